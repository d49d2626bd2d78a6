"""Signed results (``results push --sign``): who measured a figure, checked by readers.

Through ``hub serve`` and the real ``datasets`` writer: a run signed by its publisher reads as
``measured by <key>`` on ``info`` given that key; the same run read with another trusted key
is "signed by an untrusted key"; someone with write access but no key who rewrites the samples
split after signing breaks the signature (``info`` says so, ``update --require-lift
--require-signed-results`` refuses); a signature copied to another dataset or split is
refused; an honest signed figure lets ``update --require-signed-results`` move.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import HfApi

from tests.cli_runner import run_cli
from tests.registry.published_skill import CLAUDE, GPT, THREE_FAIL, SkillRepo
from upskill_hub.errors import RepoNotFoundError, SignatureError, UsageError
from upskill_hub.hub.client import Hub
from upskill_hub.publish.dataset_push import push_config_rows, split_name
from upskill_hub.publish.results_dataset import config_schema, push_results
from upskill_hub.publish.results_signing import (
    signature_path,
    statement_path,
    verify_results_signature,
)
from upskill_hub.registry.evidence.read import load_split_rows
from upskill_hub.registry.trust.keys import TrustedKey, generate_key_pair
from upskill_hub.registry.trust.signing import TrustPolicy

pytestmark = pytest.mark.slow


@pytest.fixture
def skill_repo(tmp_path: Path, unique_repo_id: str) -> SkillRepo:
    return SkillRepo(tmp_path, unique_repo_id)


@pytest.fixture
def owner(tmp_path: Path) -> TrustedKey:
    """The results publisher's key pair (``owner.key`` / ``owner.pub``)."""
    return generate_key_pair(tmp_path / "keys" / "owner.key")


@pytest.fixture
def stranger(tmp_path: Path) -> TrustedKey:
    """A key the reader trusts that did not sign anything here."""
    return generate_key_pair(tmp_path / "keys" / "stranger.key")


def _private(key: TrustedKey) -> Path:
    return Path(key.source).with_suffix(".key")


def _publish_signed(skill_repo: SkillRepo, commit: str, key: TrustedKey) -> str:
    pushed = push_results(
        skill_repo.run_folder(commit, THREE_FAIL),
        skill_repo.dataset,
        update_skill_card=True,
        sign=_private(key),
    )
    assert pushed.signed_by == key.fingerprint
    return pushed.split


def _models(info: Any) -> dict[str, dict[str, Any]]:
    assert info.returncode == 0, info.stderr
    [skill] = json.loads(info.stdout)["skills"]
    return {m["model"]: m for m in skill["evidence"]["models"]}


def _rewrite_samples(dataset: str, split: str, *, blank: bool = True) -> None:
    """Someone with write access and no key pushes the samples split again, outputs blanked
    (or, ``blank=False``, each given a line that changes no grade, so the run still verifies),
    through the same ``datasets`` writer ``results push`` uses."""
    hub = Hub()
    rows = load_split_rows(hub, dataset, "samples", split)
    for row in rows:
        row["output"] = "" if blank else f"{row['output']}\n(edited)"
    push_config_rows(hub, dataset, "samples", config_schema("samples"), rows, split, None)


def test_signed_run_is_measured_by_the_trusted_key_and_not_by_another(
    skill_repo: SkillRepo, owner: TrustedKey, stranger: TrustedKey, project: Path
) -> None:
    v1 = skill_repo.push()
    run = skill_repo.run_folder(v1, THREE_FAIL)
    pushed = run_cli(
        "results", "push", str(run), "--repo", skill_repo.dataset, "--update-skill-card",
        "--sign", str(_private(owner)),
    )  # fmt: skip
    assert pushed.returncode == 0, pushed.stderr
    split = split_name(run.name)
    assert f"signed by {owner.fingerprint} (signatures/{split}.oms.sig)" in pushed.stdout
    listed = set(HfApi().list_repo_files(skill_repo.dataset, repo_type="dataset"))
    assert {signature_path(split), statement_path(split)} <= listed

    spec = f"{skill_repo.repo_id}@{v1}"
    trusted = _models(run_cli("info", spec, "--trusted-key", owner.source, "--format", "json"))
    assert {m["measured_by"] for m in trusted.values()} == {owner.fingerprint}
    text = run_cli("info", spec, "--trusted-key", owner.source)
    assert text.returncode == 0, text.stderr
    assert f"measured by {owner.fingerprint}" in text.stdout
    from_env = run_cli(
        "info", spec, "--format", "json", env={"UPSKILL_HUB_TRUSTED_KEYS": owner.source}
    )
    assert _models(from_env)[GPT]["measured_by"] == owner.fingerprint

    other = _models(run_cli("info", spec, "--trusted-key", stranger.source, "--format", "json"))
    assert other[GPT]["measured_by"] is None
    assert "signed by an untrusted key" in other[GPT]["signature_note"]
    text = run_cli("info", spec, "--trusted-key", stranger.source)
    assert "· measured by" not in text.stdout
    assert (
        f"{GPT}: results dataset {skill_repo.dataset} (split {split}): signed by an " in text.stdout
    )
    assert f"untrusted key {owner.fingerprint}; not counted as measured by anyone" in text.stdout

    unchecked = _models(run_cli("info", spec, "--format", "json"))  # no trusted key: not checked
    assert unchecked[CLAUDE]["measured_by"] is None and unchecked[CLAUDE]["signature_note"] is None

    pulled = run_cli("pull", spec, "--trusted-key", owner.source, "--format", "json", cwd=project)
    assert pulled.returncode == 0, pulled.stderr
    [skill] = json.loads(pulled.stdout)["skills"]
    assert {m["measured_by"] for m in skill["evidence"]["models"]} == {owner.fingerprint}


def test_samples_rewritten_after_signing_no_longer_match(
    skill_repo: SkillRepo, owner: TrustedKey
) -> None:
    v1 = skill_repo.push()
    split = _publish_signed(skill_repo, v1, owner)
    policy = TrustPolicy(keys=(owner,))
    assert verify_results_signature(Hub(), skill_repo.dataset, split, policy) == owner.fingerprint

    _rewrite_samples(skill_repo.dataset, split)
    with pytest.raises(SignatureError) as refused:
        verify_results_signature(Hub(), skill_repo.dataset, split, policy)
    assert refused.value.kind == "mismatch" and refused.value.files == ["samples.jsonl (changed)"]
    info = run_cli("info", f"{skill_repo.repo_id}@{v1}", "--trusted-key", owner.source)
    assert info.returncode == 0, info.stderr
    assert "· measured by" not in info.stdout
    assert f"signatures/{split}.oms.sig no longer matches the published run" in info.stdout
    assert "samples.jsonl (changed)" in info.stdout


def test_a_signature_copied_to_another_dataset_or_split_is_refused(
    skill_repo: SkillRepo, owner: TrustedKey
) -> None:
    v1 = skill_repo.push()
    split = _publish_signed(skill_repo, v1, owner)
    policy = TrustPolicy(keys=(owner,))
    api, hub = HfApi(), Hub()

    def copy_signature(dataset: str, to_split: str) -> None:
        for path, target in (
            (signature_path(split), signature_path(to_split)),
            (statement_path(split), statement_path(to_split)),
            (f"tests/{split}.json", f"tests/{to_split}.json"),
        ):
            local = api.hf_hub_download(skill_repo.dataset, path, repo_type="dataset")
            api.upload_file(
                path_or_fileobj=local, path_in_repo=target, repo_id=dataset, repo_type="dataset"
            )

    def copy_rows(dataset: str, to_split: str) -> None:
        for config in ("summary", "samples"):
            rows = load_split_rows(hub, skill_repo.dataset, config, split)
            push_config_rows(hub, dataset, config, config_schema(config), rows, to_split, None)

    # the very rows of the signed split, in another dataset, the signature beside them
    other = skill_repo.dataset + "-copy"
    copy_rows(other, split)
    assert verify_results_signature(hub, other, split, policy) is None  # unsigned so far
    copy_signature(other, split)
    with pytest.raises(SignatureError) as elsewhere:
        verify_results_signature(hub, other, split, policy)
    assert elsewhere.value.kind == "identity"
    assert f"signed for {skill_repo.dataset} (split {split})" in str(elsewhere.value)

    # the same, under another split name of the signed dataset
    copy_rows(skill_repo.dataset, "run_copy")
    copy_signature(skill_repo.dataset, "run_copy")
    with pytest.raises(SignatureError) as renamed:
        verify_results_signature(hub, skill_repo.dataset, "run_copy", policy)
    assert renamed.value.kind == "identity"
    assert f"signed for {skill_repo.dataset} (split {split})" in str(renamed.value)
    # the original still verifies
    assert verify_results_signature(hub, skill_repo.dataset, split, policy) == owner.fingerprint


def test_an_unreadable_signing_key_stops_the_push_before_any_upload(
    run_folder: Path, tmp_path: Path, unique_repo_id: str
) -> None:
    with pytest.raises(UsageError, match=r"missing\.key: cannot read the signing key"):
        push_results(run_folder, unique_repo_id, sign=tmp_path / "missing.key")
    with pytest.raises(RepoNotFoundError):  # nothing was created
        Hub().head(unique_repo_id, "dataset")


def _project_at_v1(skill_repo: SkillRepo, project: Path) -> None:
    v1 = skill_repo.push()
    skill_repo.publish(v1, THREE_FAIL)
    pulled = run_cli("pull", skill_repo.repo_id, cwd=project)
    assert pulled.returncode == 0, pulled.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def test_require_signed_results_accepts_only_what_a_trusted_key_signed(
    skill_repo: SkillRepo, owner: TrustedKey, project: Path
) -> None:
    _project_at_v1(skill_repo, project)
    v2 = skill_repo.push("print('better')\n")
    split = _publish_signed(skill_repo, v2, owner)  # +70 pts, as locked: the lift holds
    args = ("update", "--require-lift", "--require-signed-results", "--format", "json")

    alone = run_cli("update", "--require-lift", "--require-signed-results", cwd=project)
    assert alone.returncode == 2 and "--require-signed-results needs a trusted key" in alone.stderr
    without = run_cli("update", "--require-signed-results", "--trusted-key", owner.source)
    assert without.returncode == 2
    assert "--require-signed-results applies only with --require-lift" in without.stderr

    _rewrite_samples(skill_repo.dataset, split, blank=False)  # still verifies: only the key says
    refused = run_cli(*args, "--trusted-key", owner.source, cwd=project)
    assert refused.returncode == 1, refused.stderr
    [skill] = json.loads(refused.stdout)["skills"]
    assert skill["status"] == "skipped"
    assert "--require-lift --require-signed-results: not moved" in skill["detail"]
    assert "is not signed by a trusted key" in skill["detail"]
    assert "no longer matches the published run" in skill["detail"]

    signed_again = push_results(
        skill_repo.run_folder(v2, THREE_FAIL),
        skill_repo.dataset,
        update_skill_card=True,
        sign=_private(owner),
    )  # the owner publishes (and signs) the run again: honest rows, a fresh signature
    assert signed_again.signed_by == owner.fingerprint
    moved = run_cli(*args, "--trusted-key", owner.source, cwd=project)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    [skill] = json.loads(moved.stdout)["skills"]
    assert skill["status"] == "installed"
    assert {m["measured_by"] for m in skill["evidence"]["models"]} == {owner.fingerprint}
