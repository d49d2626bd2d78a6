"""A hosted Space browses with each visitor's token, never its own (through the Space's API),
and one visitor's fetch of a private repo gives nothing to the next (the cache is shared)."""

from __future__ import annotations

from pathlib import Path

import pytest
from huggingface_hub import HfApi

from tests.space.conftest import sign_in, write_demo_skill

PRIVATE_MARK = "PRIVATE-CARD-TEXT-7d1e"


@pytest.fixture(scope="module")
def private_repo(hub_server: object, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A private skill repo the Space's own HF_TOKEN can read, an anonymous visitor not."""
    folder = write_demo_skill(tmp_path_factory.mktemp("private"), "secret-fruit")
    (folder / "references").mkdir()
    (folder / "references" / "internal-notes.md").write_text(PRIVATE_MARK, encoding="utf-8")
    api = HfApi()
    repo_id = "local-user/secret-fruit-private"
    api.create_repo(repo_id, private=True, exist_ok=True)
    api.upload_folder(repo_id=repo_id, folder_path=folder)
    api.upload_file(
        repo_id=repo_id, path_in_repo="README.md", path_or_fileobj=PRIVATE_MARK.encode()
    )
    return repo_id


def test_anonymous_visitor_cannot_read_a_private_repo_through_the_space(
    private_repo: str, hosted_url: str, tmp_path: Path
) -> None:
    from gradio_client import Client

    # the Space process itself holds a token that can read the repo ...
    assert HfApi().model_info(private_repo).private
    client = Client(hosted_url, verbose=False, download_files=str(tmp_path))
    page = client.predict(private_repo, api_name="/skill_page")
    # ... but the anonymous visitor gets what the Hub gives them: nothing of it
    assert "internal-notes.md" not in page and PRIVATE_MARK not in page
    assert page.startswith("⚠")
    rows, _ = client.predict("secret-fruit", "", api_name="/search_skills")
    assert private_repo not in str(rows)


def test_a_commit_another_visitor_fetched_is_checked_with_your_own_token(
    private_repo: str, hosted_url: str, tmp_path: Path
) -> None:
    from gradio_client import Client

    commit = HfApi().model_info(private_repo).sha
    assert commit
    # a signed-in visitor who may read the repo opens it: its files land in the Space's cache
    signed_in = Client(
        hosted_url,
        verbose=False,
        headers={"Cookie": sign_in(hosted_url)},
        download_files=str(tmp_path / "in"),
    )
    page = signed_in.predict(f"{private_repo}@{commit}", api_name="/skill_page")
    assert "internal-notes.md" in page and PRIVATE_MARK in page, page
    # an anonymous visitor who learnt the commit hash gets nothing of it, browsing or evaluating
    anonymous = Client(hosted_url, verbose=False, download_files=str(tmp_path / "out"))
    for spec in (f"{private_repo}@{commit}", private_repo):
        page = anonymous.predict(spec, api_name="/skill_page")
        assert page.startswith("⚠") and "not found" in page.lower(), page
        assert "internal-notes.md" not in page and PRIVATE_MARK not in page
    outputs = anonymous.predict(
        f"{private_repo}@{commit}",
        "Hugging Face Inference Providers",
        "some/model",
        "",
        "hf_anonymousVisitorKey0000",
        1,
        0,
        api_name="/evaluate",
    )
    status = outputs[1]
    assert status.startswith("⚠ Skill not found on the Hub"), status
    assert PRIVATE_MARK not in str(outputs)


def test_a_private_results_dataset_another_visitor_loaded_stays_private(
    hub_server: object, unique_repo_id: str
) -> None:
    """A public skill's card may name a private results dataset: a signed-in visitor's read
    puts its rows in the Space's shared ``datasets`` cache, and ``load_dataset`` falls back to
    that cache when the Hub refuses the next, anonymous, visitor."""
    from datasets import Dataset
    from huggingface_hub import get_token

    from upskill_hub.errors import HubError
    from upskill_hub.registry.evidence.read import load_summary_split
    from upskill_hub.space_support.skills import visitor_hub

    dataset = f"local-user/{unique_repo_id.split('/')[-1]}-private-results"
    rows = [{"model": "m", "skill_commit": "c" * 40, "lift": 0.5, "note": PRIVATE_MARK}]
    Dataset.from_list(rows).push_to_hub(dataset, "summary", split="run1", private=True)
    assert HfApi().dataset_info(dataset).private

    owner = visitor_hub(True, get_token())  # signed in as the dataset's owner
    assert load_summary_split(owner, dataset, "run1")[0]["note"] == PRIVATE_MARK
    with pytest.raises(HubError, match="not found") as refused:
        load_summary_split(visitor_hub(True, None), dataset, "run1")
    assert PRIVATE_MARK not in str(refused.value)


@pytest.mark.slow
def test_a_skill_page_reads_a_private_results_dataset_only_for_who_may(
    hosted_url: str, tmp_path: Path, unique_repo_id: str
) -> None:
    """Through the Space: a public skill whose results dataset is private. The signed-in owner's
    page shows the dataset's figures (and fills the shared cache); an anonymous visitor's page
    falls back to the public card's digest, saying the dataset was not found."""
    from gradio_client import Client

    from tests.registry.published_skill import GPT, THREE_FAIL, SkillRepo

    skill = SkillRepo(tmp_path / "skill", unique_repo_id)
    HfApi().create_repo(skill.dataset, repo_type="dataset", private=True)
    skill.publish(skill.push(), THREE_FAIL, models=(GPT,))
    owner = Client(
        hosted_url,
        verbose=False,
        headers={"Cookie": sign_in(hosted_url)},
        download_files=str(tmp_path / "in"),
    )
    fallback = "figures from the skill card's digest instead"
    page = owner.predict(skill.repo_id, api_name="/skill_page")
    assert "| inline |" in page and fallback not in page, page  # read from the dataset
    anonymous = Client(hosted_url, verbose=False, download_files=str(tmp_path / "out"))
    page = anonymous.predict(skill.repo_id, api_name="/skill_page")
    assert "repository not found" in page and fallback in page, page
