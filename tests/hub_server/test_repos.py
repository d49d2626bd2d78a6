"""Repos, accounts, search and card validation through huggingface_hub's public API."""

from __future__ import annotations

import pytest
from huggingface_hub import DatasetCard, HfApi, RepoCard
from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError


def test_whoami_names_the_local_user(hub_server: object) -> None:
    me = HfApi().whoami(cache=False)
    assert me["name"] == "local-user"
    assert "local-org" in [org["name"] for org in me["orgs"]]
    assert isinstance(me["avatarUrl"], str)  # gradio's local OAuth mock reads it


def test_create_repo_conflict_and_exist_ok(unique_repo_id: str) -> None:
    api = HfApi()
    url = api.create_repo(unique_repo_id)
    assert url.repo_id == unique_repo_id
    with pytest.raises(HfHubHTTPError) as err:
        api.create_repo(unique_repo_id)
    assert err.value.response.status_code == 409
    assert api.create_repo(unique_repo_id, exist_ok=True).repo_id == unique_repo_id
    # A new repo starts with the Hub's initial commit.
    assert api.list_repo_files(unique_repo_id) == [".gitattributes"]


def test_default_namespace_is_the_local_user(hub_server: object, unique_repo_id: str) -> None:
    name = unique_repo_id.split("/")[1]
    url = HfApi().create_repo(name, repo_type="dataset")
    assert url.repo_id == f"local-user/{name}"
    assert url.repo_type == "dataset"


def test_private_repo_hidden_from_anonymous_readers(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id, private=True)
    assert api.model_info(unique_repo_id).private is True
    assert not HfApi(token=False).repo_exists(unique_repo_id)
    with pytest.raises(RepositoryNotFoundError):
        HfApi(token=False).model_info(unique_repo_id)
    api.update_repo_settings(unique_repo_id, private=False)
    assert HfApi(token=False).model_info(unique_repo_id).private is False


def test_delete_repo(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id, repo_type="dataset")
    assert api.repo_exists(unique_repo_id, repo_type="dataset")
    api.delete_repo(unique_repo_id, repo_type="dataset")
    assert not api.repo_exists(unique_repo_id, repo_type="dataset")
    with pytest.raises(RepositoryNotFoundError):
        api.delete_repo(unique_repo_id, repo_type="dataset")
    api.delete_repo(unique_repo_id, repo_type="dataset", missing_ok=True)


def test_space_repo_keeps_its_sdk(unique_repo_id: str) -> None:
    api = HfApi()
    url = api.create_repo(unique_repo_id, repo_type="space", space_sdk="gradio")
    assert url.repo_type == "space"
    assert api.space_info(unique_repo_id).sdk == "gradio"


def test_list_models_filters_by_card_tags_and_search(unique_repo_id: str) -> None:
    api = HfApi()
    tagged, plain = unique_repo_id + "-tagged", unique_repo_id + "-plain"
    for repo_id, card in (
        (tagged, "---\ntags:\n- agent-skills\nlicense: mit\n---\n# Skill\n"),
        (plain, "---\ntags:\n- other\n---\n# Other\n"),
    ):
        api.create_repo(repo_id)
        api.upload_file(path_or_fileobj=card.encode(), path_in_repo="README.md", repo_id=repo_id)
    search = unique_repo_id.split("/")[1]
    found = [m.id for m in api.list_models(filter="agent-skills", search=search)]
    assert found == [tagged]
    assert {m.id for m in api.list_models(search=search)} == {tagged, plain}
    assert [m.id for m in api.list_models(search=search, author="nobody")] == []
    info = api.model_info(tagged)
    assert "agent-skills" in (info.tags or [])
    assert "license:mit" in (info.tags or [])
    assert info.card_data is not None and info.card_data.license == "mit"


def test_private_repos_are_not_listed_for_anonymous(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id, private=True, repo_type="dataset")
    search = unique_repo_id.split("/")[1]
    assert [d.id for d in api.list_datasets(search=search)] == [unique_repo_id]
    assert list(HfApi(token=False).list_datasets(search=search)) == []


def test_validate_yaml_rejects_bad_metadata(hub_server: object) -> None:
    DatasetCard("---\nlicense: mit\ntags:\n- a\n---\n# ok\n").validate()
    with pytest.raises(ValueError):
        DatasetCard("---\ntags: 3\n---\n# bad\n").validate()
    with pytest.raises(ValueError):
        RepoCard("---\nlicense:\n  nested: 1\n---\n# bad license\n").validate(repo_type="model")


def test_repocard_push_to_hub(unique_repo_id: str) -> None:
    api = HfApi()
    api.create_repo(unique_repo_id)
    RepoCard("---\ntags:\n- agent-skills\n---\n# Card\n").push_to_hub(unique_repo_id)
    assert "agent-skills" in (api.model_info(unique_repo_id).tags or [])
    with pytest.raises(ValueError):
        RepoCard("---\ntags: 3\n---\n# bad\n").push_to_hub(unique_repo_id)
