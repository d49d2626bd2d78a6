"""A hosted Space browses with each visitor's token, never its own (through the Space's API)."""

from __future__ import annotations

from pathlib import Path

import pytest
from huggingface_hub import HfApi

from tests.space.conftest import write_demo_skill

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
