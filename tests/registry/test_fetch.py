"""fetch_skill / fetch_skills over real HTTP, and Hub failures as one-line typed errors."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.registry.conftest import HostileFile, HostileHub, HubFactory, write_skill
from upskill_hub.errors import HubError, RepoNotFoundError, RevisionNotFoundError, UsageError
from upskill_hub.hub.client import Hub, parse_spec
from upskill_hub.registry.fetch import fetch_skill, fetch_skills
from upskill_hub.registry.project.lock import hash_tree
from upskill_hub.registry.push import push_skills

SKILL_MD = b"---\nname: okay\ndescription: A fine skill.\n---\nBody.\n"


def test_fetch_by_tag_resolves_to_the_pushed_commit(pushed: tuple[str, str]) -> None:
    repo_id, commit = pushed
    fetched = fetch_skill(f"{repo_id}@v1")
    assert fetched.commit == commit
    assert fetched.repo_id == repo_id and fetched.subpath == ""
    assert sorted(hash_tree(fetched.path)) == ["SKILL.md", "scripts/run.py"]
    assert fetched.path.name == repo_id.split("/")[1]
    assert fetched.files == hash_tree(fetched.path)


def test_fetch_default_branch_and_commit_agree(pushed: tuple[str, str]) -> None:
    repo_id, commit = pushed
    assert fetch_skill(repo_id).commit == commit
    assert fetch_skill(f"{repo_id}@{commit}").path == fetch_skill(repo_id).path


def test_multi_skill_repo_needs_a_name(tmp_path: Path, unique_repo_id: str) -> None:
    write_skill(tmp_path / "many", "alpha")
    write_skill(tmp_path / "many", "beta")
    push_skills(tmp_path / "many", repo_id=unique_repo_id)
    with pytest.raises(UsageError, match="alpha, beta"):
        fetch_skill(unique_repo_id)
    beta = fetch_skill(unique_repo_id, skill="beta")
    assert beta.subpath == "skills/beta" and beta.name == "beta"
    assert (beta.path / "SKILL.md").read_text().startswith("---\nname: beta")
    both = fetch_skills(unique_repo_id)
    assert [f.name for f in both] == ["alpha", "beta"]
    with pytest.raises(UsageError, match="gamma"):
        fetch_skills(unique_repo_id, ["gamma"])


def test_missing_repo_and_revision_are_typed_one_liners(pushed: tuple[str, str]) -> None:
    repo_id, _ = pushed
    with pytest.raises(RepoNotFoundError) as missing:
        fetch_skill("local-user/no-such-skill-anywhere")
    assert "local-user/no-such-skill-anywhere" in str(missing.value)
    assert "\n" not in str(missing.value)
    with pytest.raises(RevisionNotFoundError) as rev:
        fetch_skill(f"{repo_id}@no-such-tag")
    assert repo_id in str(rev.value) and "no-such-tag" in str(rev.value)
    assert "\n" not in str(rev.value)


@pytest.mark.parametrize("spec", ["nonsense", "a/b/c", "../x", "ns/name@"])
def test_malformed_specs_are_usage_errors(spec: str) -> None:
    with pytest.raises(UsageError):
        parse_spec(spec)


def test_connection_refused_is_retried_then_one_line(fast_hub_for: HubFactory) -> None:
    hub: Hub = fast_hub_for("http://127.0.0.1:9", attempts=2)
    started = time.monotonic()
    with pytest.raises(HubError) as err:
        fetch_skills("someone/skill@main", hub=hub)
    assert "someone/skill" in str(err.value) and "cannot reach" in str(err.value)
    assert "HF_ENDPOINT" in str(err.value) and "\n" not in str(err.value)
    assert time.monotonic() - started < 20


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (401, "HF_TOKEN"),
        (403, "permission"),
        (429, "rate limited"),
        (500, "try again later"),
        (503, "try again later"),
    ],
)
def test_http_failures_map_to_one_line(
    hostile_hub: HostileHub,
    fast_hub_for: HubFactory,
    status: int,
    words: str,
) -> None:
    repo_id = hostile_hub.add([HostileFile("SKILL.md", SKILL_MD)])
    hostile_hub.fail_status = status
    with pytest.raises(HubError) as err:
        fetch_skills(f"{repo_id}@main", hub=fast_hub_for(hostile_hub.url, attempts=3))
    message = str(err.value)
    assert repo_id in message and words in message and "\n" not in message
    assert "hf_" not in message  # no token in messages
    transient = status in (429, 500, 503)
    assert len(hostile_hub.requests) == (3 if transient else 1)


def test_transient_failures_are_retried_until_success(
    hostile_hub: HostileHub,
    fast_hub_for: HubFactory,
) -> None:
    repo_id = hostile_hub.add([HostileFile("SKILL.md", SKILL_MD)])
    hostile_hub.fail_status, hostile_hub.fail_first = 503, 2
    [fetched] = fetch_skills(f"{repo_id}@main", hub=fast_hub_for(hostile_hub.url, attempts=4))
    assert (fetched.path / "SKILL.md").read_bytes() == SKILL_MD
    assert fetched.name == "okay"


def test_fetch_skill_uses_the_hub_it_is_given(hostile_hub: HostileHub) -> None:
    repo_id = hostile_hub.add([HostileFile("SKILL.md", SKILL_MD)])
    with pytest.raises(RepoNotFoundError):  # the default Hub (HF_ENDPOINT) has no such repo
        fetch_skill(f"{repo_id}@main")
    assert hostile_hub.requests == []
    fetched = fetch_skill(f"{repo_id}@main", hub=Hub(endpoint=hostile_hub.url, token=False))
    assert (fetched.path / "SKILL.md").read_bytes() == SKILL_MD
    assert fetched.repo_id == repo_id and fetched.name == "okay"
    assert hostile_hub.gets("/SKILL.md")


def test_several_skills_error_is_typed_and_names_them(tmp_path: Path, unique_repo_id: str) -> None:
    from upskill_hub.registry.fetch import SeveralSkillsError

    write_skill(tmp_path / "many", "alpha")
    write_skill(tmp_path / "many", "beta")
    push_skills(tmp_path / "many", repo_id=unique_repo_id)
    with pytest.raises(SeveralSkillsError) as err:
        fetch_skill(unique_repo_id, hub=Hub(token=False))
    assert err.value.names == ["alpha", "beta"] and err.value.repo_id == unique_repo_id
    assert isinstance(err.value, UsageError) and err.value.param == "skill"
    assert str(err.value).endswith("name one with skill")
