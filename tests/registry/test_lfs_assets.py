"""Skills with binary (LFS) assets install byte-identical every time, from any listing.

The first pull reads the listing from the server (with its ``lfs`` part); every later one reads
huggingface_hub's tree cache, which holds only the pointer's blob id. Five fresh projects in a
row: a second pull, a pull after ``info``, ``install --frozen`` from the first lock, and an
offline pull all get the same bytes.
"""

from __future__ import annotations

import io
import os
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

from huggingface_hub import HfApi

from tests.registry.conftest import CliResult, tree_state, write_skill
from upskill_hub.registry.project.lock import LOCK_FILENAME
from upskill_hub.registry.push import push_skills

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40
TTF = b"\x00\x01\x00\x00\x00\x0f\x00\x80" + os.urandom(20_000)


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("template/README.txt", "hello\n" * 100)
    return buffer.getvalue()


def _skill_with_logo(tmp_path: Path, repo_id: str) -> Path:
    """A skill named after ``repo_id`` holding one binary asset, ``assets/logo.png``."""
    skill = write_skill(tmp_path / "src", repo_id.split("/")[1])
    (skill / "assets").mkdir()
    (skill / "assets" / "logo.png").write_bytes(PNG)
    return skill


def _new_project(tmp_path: Path, label: str) -> Path:
    root = tmp_path / label
    (root / ".git").mkdir(parents=True)
    return root


def test_binary_assets_install_identically_into_five_projects(
    run_cli: Callable[..., CliResult],
    hub_server: object,
    unique_repo_id: str,
    tmp_path: Path,
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path / "src", name)
    assets = {"assets/logo.png": PNG, "assets/font.ttf": TTF, "assets/template.zip": _zip()}
    for rel, data in assets.items():
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_bytes(data)
    commit = push_skills(skill, repo_id=unique_repo_id).commit
    listing = {f.path: f for f in HfApi().list_repo_tree(unique_repo_id, recursive=True)}
    assert all(getattr(listing[p], "lfs", None) for p in assets), "assets should be LFS files"

    spec = f"{unique_repo_id}@{commit}"
    a = _new_project(tmp_path, "a")
    first = run_cli("pull", spec, cwd=a)
    assert first.code == 0, first.stderr
    installed = a / ".claude" / "skills" / name
    for rel, data in assets.items():
        assert (installed / rel).read_bytes() == data
    expected = tree_state(a / ".claude")

    b = _new_project(tmp_path, "b")  # second pull: listing from the tree cache
    assert run_cli("pull", spec, cwd=b).code == 0, "second pull"
    c = _new_project(tmp_path, "c")  # info first, then pull
    assert run_cli("info", spec).code == 0
    third = run_cli("pull", spec, cwd=c)
    assert third.code == 0, third.stderr
    d = _new_project(tmp_path, "d")  # install --frozen from A's lock
    shutil.copy(a / LOCK_FILENAME, d / LOCK_FILENAME)
    frozen = run_cli("install", "--frozen", cwd=d)
    assert frozen.code == 0, frozen.stderr
    e = _new_project(tmp_path, "e")  # offline, Hub unreachable
    dead = {"HF_HUB_OFFLINE": "1", "HF_ENDPOINT": "http://127.0.0.1:9"}
    offline = run_cli("pull", spec, cwd=e, env=dead)
    assert offline.code == 0, offline.stderr
    for project in (b, c, d, e):
        assert tree_state(project / ".claude") == expected, project.name
    assert (d / LOCK_FILENAME).read_bytes() == (a / LOCK_FILENAME).read_bytes()


def test_a_tampered_lfs_file_is_still_refused(
    run_cli: Callable[..., CliResult], hub_server: object, unique_repo_id: str, tmp_path: Path
) -> None:
    """The cache-aware check must not accept what differs from the listing."""
    from huggingface_hub import constants

    skill = _skill_with_logo(tmp_path, unique_repo_id)
    commit = push_skills(skill, repo_id=unique_repo_id).commit
    a = _new_project(tmp_path, "a")
    assert run_cli("pull", f"{unique_repo_id}@{commit}", cwd=a).code == 0
    # corrupt the cached blob behind the snapshot
    cache = Path(constants.HF_HUB_CACHE) / f"models--{unique_repo_id.replace('/', '--')}"
    snapshot_file = cache / "snapshots" / commit / "assets" / "logo.png"
    blob = snapshot_file.resolve()
    os.chmod(blob, 0o644)
    blob.write_bytes(PNG[:-1] + b"!")
    b = _new_project(tmp_path, "b")
    result = run_cli("pull", f"{unique_repo_id}@{commit}", cwd=b)
    assert result.code != 0
    assert "assets/logo.png does not match the repository listing" in result.stderr
    assert not (b / ".claude").exists()


def test_allow_unsafe_lifts_the_file_size_cap_on_pull_as_on_push(
    run_cli: Callable[..., CliResult], hub_server: object, unique_repo_id: str, tmp_path: Path
) -> None:
    name = unique_repo_id.split("/")[1]
    skill = write_skill(tmp_path / "src", name)
    big = os.urandom(6 * 1024 * 1024)
    (skill / "assets").mkdir()
    (skill / "assets" / "big.bin").write_bytes(big)
    refused = run_cli("push", str(skill), "--repo", unique_repo_id)
    assert refused.code != 0 and "big.bin" in refused.stderr
    pushed = run_cli("push", str(skill), "--repo", unique_repo_id, "--allow-unsafe")
    assert pushed.code == 0, pushed.stderr
    project = _new_project(tmp_path, "p")
    plain = run_cli("pull", unique_repo_id, cwd=project)
    assert plain.code != 0 and "big.bin" in plain.stderr
    assert not (project / ".claude").exists()
    allowed = run_cli("pull", unique_repo_id, "--allow-unsafe", cwd=project)
    assert allowed.code == 0, allowed.stderr
    assert (project / ".claude/skills" / name / "assets/big.bin").read_bytes() == big


def test_two_skills_with_one_name_in_a_repo_are_refused(
    run_cli: Callable[..., CliResult], hub_server: object, unique_repo_id: str, tmp_path: Path
) -> None:
    src = tmp_path / "multi"
    write_skill(src / "a", "dupx")
    write_skill(src / "b", "dupx")
    api = HfApi()
    api.create_repo(unique_repo_id)
    api.upload_folder(repo_id=unique_repo_id, folder_path=src)
    project = _new_project(tmp_path, "p")
    result = run_cli("pull", unique_repo_id, cwd=project)
    assert result.code != 0
    assert "two skills named 'dupx'" in result.stderr
    assert "a/dupx" in result.stderr and "b/dupx" in result.stderr
    assert not (project / ".claude").exists() and not (project / LOCK_FILENAME).exists()


def test_nfc_and_nfd_twins_are_warned_once(
    run_cli: Callable[..., CliResult], hub_server: object, unique_repo_id: str, tmp_path: Path
) -> None:
    import unicodedata

    name = unique_repo_id.split("/")[1]
    nfc, nfd = (unicodedata.normalize(form, "references/café.md") for form in ("NFC", "NFD"))
    files = {nfc: "one\n", nfd: "two\n", "references/Notes.md": "a\n", "references/notes.md": "b\n"}
    skill = write_skill(tmp_path / "src", name, files)
    push = run_cli("push", str(skill), "--repo", unique_repo_id)
    assert push.code == 0, push.stderr
    project = _new_project(tmp_path, "p")
    result = run_cli("pull", unique_repo_id, cwd=project)
    assert result.code == 0, result.stderr
    output = result.stdout + result.stderr
    assert output.count("differs only in case or Unicode normalization") == 2, output


def test_binary_push_with_xet_on_to_a_server_without_xet_fails_before_creating_anything(
    run_cli: Callable[..., CliResult], hub_server: object, unique_repo_id: str, tmp_path: Path
) -> None:
    skill = _skill_with_logo(tmp_path, unique_repo_id)
    done = run_cli("push", str(skill), "--repo", unique_repo_id, unset=("HF_HUB_DISABLE_XET",))
    assert done.code == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: assets/logo.png is binary and would be uploaded through Xet, which "
        f"{os.environ['HF_ENDPOINT']} does not serve; set HF_HUB_DISABLE_XET=1 "
        "(or HF_HUB_DISABLE_XET=0 if it does)"
    ]
    assert not HfApi().repo_exists(unique_repo_id)


def test_executable_scripts_stay_executable_after_pull(
    run_cli: Callable[..., CliResult], hub_server: object, unique_repo_id: str, tmp_path: Path
) -> None:
    name = unique_repo_id.split("/")[1]
    files = {"scripts/build.sh": "#!/bin/sh\necho built\n", "scripts/notes.txt": "plain\n"}
    skill = write_skill(tmp_path / "src", name, files)
    (skill / "scripts" / "build.sh").chmod(0o755)
    assert run_cli("push", str(skill), "--repo", unique_repo_id).code == 0
    for label in ("first", "second"):  # the second pull reads the cached card and listing
        project = _new_project(tmp_path, label)
        result = run_cli("pull", unique_repo_id, cwd=project)
        assert result.code == 0, result.stderr
        installed = project / ".claude" / "skills" / name / "scripts"
        assert os.access(installed / "build.sh", os.X_OK), label
        assert not os.access(installed / "notes.txt", os.X_OK), label
