"""A signed-in visitor of the hosted Space, in real Chromium, through the real OAuth code flow.

The Space runs as on Hugging Face: ``python space/app.py`` in its own process with ``SPACE_ID``
and the ``OAUTH_*``/``OPENID_PROVIDER_URL`` variables a Space gets from ``hf_oauth: true``, so
Gradio attaches its real sign-in (``authlib``, the ``space`` extra's ``gradio[oauth]``), here
against a local OpenID provider standing in for huggingface.co. The Hub is a local ``hub
serve`` that lets only the visitor's token read a private skill; the Space's own ``HF_TOKEN``
is a different token. So:

- after "Sign in with Hugging Face", the visitor sees the private skill's page (only their
  token can read it: it is the one used);
- another browser (another visitor, not signed in) asks for the same repo, at the same commit,
  and is refused (nothing of the first session is shared);
- the token appears in no page, and in nothing the Space process printed or logged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from huggingface_hub import HfApi

from tests.space.conftest import REPO_ROOT, app_process, free_port, write_demo_skill
from tests.space.test_app import CHROMIUM, CHROMIUM_ARGS
from tests.support.oidc_provider import OIDCProvider

VISITOR_TOKEN = "hf_signedInVisitorToken7b3e9d1c"
SPACE_TOKEN = "hf_theSpacesOwnToken00000000"
PRIVATE_MARK = "SIGNED-IN-ONLY-5c2a"
REPO_ID = "local-user/members-only-skill"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="apt-get install chromium")


@dataclass
class HostedSpace:
    url: str
    commit: str
    log: Path
    provider: OIDCProvider


@pytest.fixture(scope="module")
def hosted_space(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostedSpace]:
    from upskill_hub.hub_server import running_server

    tmp = tmp_path_factory.mktemp("sign-in")
    folder = write_demo_skill(tmp / "skill", "members-only")
    (folder / "references").mkdir()
    (folder / "references" / "notes.md").write_text(PRIVATE_MARK, encoding="utf-8")
    with (
        running_server(tmp / "hub", token=VISITOR_TOKEN) as hub,
        OIDCProvider("space-client-id", "space-client-secret", VISITOR_TOKEN) as provider,
    ):
        api = HfApi(endpoint=str(hub.url), token=VISITOR_TOKEN)
        api.create_repo(REPO_ID, private=True)
        commit = api.upload_folder(repo_id=REPO_ID, folder_path=folder).oid
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "OAUTH_"))}
        env.update(
            {
                "SYSTEM": "spaces",  # with SPACE_ID: what Gradio reads as "on a Space"
                "SPACE_ID": "local-user/upskill-hub",
                "OAUTH_CLIENT_ID": provider.client_id,
                "OAUTH_CLIENT_SECRET": provider.client_secret,
                "OAUTH_SCOPES": "openid profile inference-api",
                "OPENID_PROVIDER_URL": provider.url,
                "HF_ENDPOINT": str(hub.url),
                "HF_TOKEN": SPACE_TOKEN,
                "HF_HOME": str(tmp / "hf-home"),
                "HF_HUB_DISABLE_XET": "1",
                "HF_HUB_DISABLE_TELEMETRY": "1",
                "GRADIO_ANALYTICS_ENABLED": "False",
                "GRADIO_SERVER_PORT": str(port),
                "GRADIO_SERVER_NAME": "127.0.0.1",
                "UPSKILL_HUB_SPACE_RUNS": str(tmp / "runs"),
                "PYTHONPATH": str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
            }
        )
        log = tmp / "space.log"
        with app_process(env, tmp, log) as url:
            yield HostedSpace(url, commit, log, provider)


def _show(page: object, repo: str) -> object:
    from playwright.sync_api import Page

    assert isinstance(page, Page)
    page.get_by_role("tab", name="Browse skills").click()
    page.get_by_label("Repo id", exact=True).fill(repo)
    page.get_by_role("button", name="Show skill").click()
    return page.locator("#upskill-skill-page")


@pytest.mark.slow
def test_signed_in_visitor_uses_their_own_token_and_only_in_their_session(
    hosted_space: HostedSpace,
) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            visitor = browser.new_context().new_page()
            visitor.goto(hosted_space.url)
            visitor.get_by_role("button", name="Sign in with Hugging Face").click()
            expect(visitor.get_by_role("button", name="Logout (local-user)")).to_be_visible(
                timeout=30_000
            )
            assert hosted_space.provider.tokens_issued == 1
            shown = _show(visitor, REPO_ID)
            expect(shown).to_contain_text("references/notes.md", timeout=30_000)
            expect(shown).to_contain_text(f"Commit {hosted_space.commit[:12]}")
            assert VISITOR_TOKEN not in visitor.content()

            # another visitor, in another browser profile, not signed in
            stranger = browser.new_context().new_page()
            stranger.goto(hosted_space.url)
            expect(stranger.get_by_role("button", name="Sign in with Hugging Face")).to_be_visible(
                timeout=30_000
            )
            for spec in (REPO_ID, f"{REPO_ID}@{hosted_space.commit}"):
                shown = _show(stranger, spec)
                expect(shown).to_contain_text("⚠", timeout=30_000)
                expect(shown).to_contain_text("not found")
                expect(shown).not_to_contain_text("references/notes.md")
            assert VISITOR_TOKEN not in stranger.content()
        finally:
            browser.close()
    log = hosted_space.log.read_text(errors="replace")
    assert VISITOR_TOKEN not in log and SPACE_TOKEN not in log
    # Gradio starts its Spaces hot-reload watcher, which needs HF's `spaces` package (installed
    # on every Space, not here): that thread's error is the only traceback allowed
    reloader = "`spaces` package is required to run hot-reloading in Spaces"
    assert log.count("Traceback") == log.count(reloader), log
