"""``upskill-hub space deploy`` against the local Hub (repo type space), the Browse tab's
library functions, and the results push guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.space.conftest import SENTINEL_KEY, SkillRepo
from upskill_hub import __version__
from upskill_hub.errors import UpskillHubError
from upskill_hub.secrets import Redactor
from upskill_hub.source_wheel import build_wheel
from upskill_hub.space_support import browse
from upskill_hub.space_support.deploy import deploy_space, requirements_text
from upskill_hub.space_support.push_results import check_no_secrets

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_checked_in_requirements_pin_nothing() -> None:
    # the deploy writes the Space's requirements; the checked-in file must not pin a release
    text = (REPO_ROOT / "space" / "requirements.txt").read_text(encoding="utf-8")
    assert all(line.startswith("#") for line in text.splitlines() if line.strip())
    wheel = f"upskill_hub-{__version__}-py3-none-any.whl"
    assert requirements_text(wheel) == f"./wheels/{wheel}[space]\n"
    assert requirements_text() == f"upskill-hub[space]=={__version__}\n"  # no source checkout


def test_pip_accepts_the_wheel_requirement(tmp_path: Path) -> None:
    """The requirements line resolves, extra included, from the Space repo's root."""
    import subprocess
    import sys

    wheel = build_wheel(REPO_ROOT, tmp_path / "wheels")
    (tmp_path / "requirements.txt").write_text(requirements_text(wheel.name), encoding="utf-8")
    report = tmp_path / "report.json"
    pip = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index"]
    proc = subprocess.run(
        [*pip, "--ignore-installed", "-r", "requirements.txt", "--report", str(report), "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    import json

    (item,) = json.loads(report.read_text())["install"]
    assert item["metadata"]["name"] == "upskill-hub"
    assert item["requested_extras"] == ["space"]
    assert item["download_info"]["url"].endswith(wheel.name)


def test_space_readme_metadata() -> None:
    import yaml

    text = (REPO_ROOT / "space" / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py"
    assert meta["hf_oauth"] is True
    assert {"inference-api", "contribute-repos"} <= set(meta["hf_oauth_scopes"])
    assert len(meta["short_description"]) <= 60
    import gradio

    assert meta["sdk_version"] == gradio.__version__


@pytest.mark.slow
def test_deploy_creates_then_updates_a_space(unique_repo_id: str, tmp_path: Path) -> None:
    from huggingface_hub import HfApi

    first = deploy_space(unique_repo_id)
    api = HfApi()
    files = set(api.list_repo_files(unique_repo_id, repo_type="space"))
    assert {"app.py", "README.md", "requirements.txt"} <= files
    assert "skills/kernel-builder-cuda-kernels/SKILL.md" in files
    assert "skills/kernel-builder-cuda-kernels/skill_meta.json" in files
    assert first.url.endswith(f"/spaces/{unique_repo_id}")
    # a wheel of this source, not a release that may not exist, and requirements.txt installs it
    wheel = f"wheels/upskill_hub-{__version__}-py3-none-any.whl"
    assert wheel in files and wheel in first.files
    req = api.hf_hub_download(unique_repo_id, "requirements.txt", repo_type="space")
    assert Path(req).read_text(encoding="utf-8") == f"./{wheel}[space]\n"
    import zipfile

    shipped = api.hf_hub_download(unique_repo_id, wheel, repo_type="space")
    with zipfile.ZipFile(shipped) as whl:
        names = whl.namelist()
        assert "upskill_hub/space_support/deploy.py" in names
        deployed = whl.read("upskill_hub/space_support/deploy.py")
    assert deployed == (REPO_ROOT / "upskill_hub/space_support/deploy.py").read_bytes()

    app_dir = tmp_path / "app"
    app_dir.mkdir()
    (app_dir / "app.py").write_text("print('v2')\n", encoding="utf-8")
    (app_dir / "README.md").write_text("---\nsdk: gradio\n---\n", encoding="utf-8")
    skills = tmp_path / "skills"
    (skills / "only-one").mkdir(parents=True)
    (skills / "only-one" / "SKILL.md").write_text("---\nname: only-one\n---\n", encoding="utf-8")
    second = deploy_space(unique_repo_id, app_dir=app_dir, skills_dir=skills)
    assert "skills/kernel-builder-cuda-kernels/SKILL.md" in second.deleted
    files = set(api.list_repo_files(unique_repo_id, repo_type="space"))
    assert not any(f.startswith("skills/kernel-builder") for f in files)
    assert "skills/only-one/SKILL.md" in files


def test_deploy_cli(unique_repo_id: str) -> None:
    result = run_cli("space", "deploy", "--repo", unique_repo_id, "--format", "json")
    assert result.returncode == 0, result.stderr
    assert '"app.py"' in result.stdout
    bad = run_cli("space", "deploy", "--repo", "not a repo")
    assert bad.returncode == 2 and "not a Hub repo id" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_skill_page_and_search(skill_repo: SkillRepo) -> None:
    page = browse.skill_page(skill_repo.repo_id)
    assert page.pull_command == f"upskill-hub pull {skill_repo.repo_id}"
    assert "`SKILL.md`" in page.markdown and "`skill_meta.json`" in page.markdown
    assert "no findings" in page.markdown and "**Measured lift**" in page.markdown
    rows = browse.search_rows("fruit")
    assert [skill_repo.repo_id] == [r[0] for r in rows if r[0] == skill_repo.repo_id]
    assert browse.selected_repo({"data": rows}, [0, 1]) == rows[0][0]


def test_markdown_escape_neutralises_links_and_html() -> None:
    text = browse.md_escape("[click](http://evil) <img src=x>")
    assert "\\[click\\]" in text and "\\<img" in text


def test_push_refuses_a_run_folder_holding_the_key(tmp_path: Path) -> None:
    (tmp_path / "samples.jsonl").write_text(f'{{"output": "{SENTINEL_KEY}"}}\n')
    with pytest.raises(UpskillHubError, match="contains your API key"):
        check_no_secrets(tmp_path, Redactor([SENTINEL_KEY]))
    (tmp_path / "samples.jsonl").write_text('{"output": "fine"}\n')
    check_no_secrets(tmp_path, Redactor([SENTINEL_KEY]))
