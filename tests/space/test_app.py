"""The running app, as gradio_client and a real browser (Debian's Chromium) reach it.

The browser test fills the labelled inputs with a Hub repo id served by the local Hub and a
model behind a local OpenAI-compatible server, clicks "Run evaluation", checks the summary and
per-case tables, and saves screenshots under test-artifacts/ (1280x800 and 390x844).
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.space.conftest import (
    ARTIFACTS,
    SENTINEL_KEY,
    RunningApp,
    SkillRepo,
    evaluate_on,
    files_text,
)
from tests.support.llm_servers import FakeLLMServer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-gpu",
]


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.DEBUG)
    yield caplog


def test_api_evaluate_a_hub_skill(
    running_app: RunningApp,
    skill_repo: SkillRepo,
    llm: FakeLLMServer,
    all_logs: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    _, (bar, status, summary, chart, frontier, cases) = evaluate_on(running_app, skill_repo, llm)
    assert "Done" in status and "too few cases" in status  # 3 cases: too few
    assert 'aria-valuenow="6"' in bar
    [row] = summary["data"]
    assert row[0] == "fake-model" and row[3].endswith("0/3") and row[4].endswith("3/3")
    assert row[1].startswith("+100 pts") and "too few cases" in row[2]
    assert chart and Path(chart).suffix == ".png"
    assert frontier and Path(frontier).name == "frontier.png"  # the owner priced fake-model
    assert "fruit-3" in cases and "PINEAPPLE" in cases and "&lt;script&gt;" in cases
    everything = "\n".join([status, str(summary), cases, all_logs.text, *capfd.readouterr()])
    assert SENTINEL_KEY not in everything
    assert SENTINEL_KEY not in files_text(running_app.runs_dir)


def test_api_failures_are_messages(running_app: RunningApp, hub_server: object) -> None:
    from gradio_client import Client

    client = Client(running_app.url, verbose=False)
    _, status, *_ = client.predict(
        "local-user/no-such-skill-xyz",
        "OpenAI-compatible",
        "m",
        "http://127.0.0.1:9/v1",
        "k-123456",
        1,
        0,
        api_name="/evaluate",
    )
    assert status.startswith("⚠ Skill not found on the Hub") and "Traceback" not in status
    _, status, *_ = client.predict(
        "kernel-builder-cuda-kernels", "Anthropic", "", "", "", 1, 0, api_name="/evaluate"
    )
    assert status.startswith("⚠ Model is empty")
    page = client.predict("not//valid", api_name="/skill_page")
    assert page.startswith("⚠") and "not a Hub repo id" in page


def test_api_browse(running_app: RunningApp, skill_repo: SkillRepo) -> None:
    from gradio_client import Client

    client = Client(running_app.url, verbose=False)
    table, found = client.predict("fruit", "", api_name="/search_skills")
    assert skill_repo.repo_id in [r[0] for r in table["data"]] and "found" in found
    page = client.predict(skill_repo.repo_id, api_name="/skill_page")
    assert f"upskill-hub pull {skill_repo.repo_id}" in page


def test_pushed_dataset_holds_no_key(
    running_app: RunningApp, skill_repo: SkillRepo, llm: FakeLLMServer, tmp_path: Path
) -> None:
    from huggingface_hub import snapshot_download

    client, _ = evaluate_on(running_app, skill_repo, llm)
    message = client.predict(api_name="/push_results")
    assert message.startswith("✓ Results pushed to"), message
    repo_id = message.split("[", 1)[1].split("]", 1)[0]
    assert repo_id == f"local-user/{skill_repo.name}-upskill-results"
    local = snapshot_download(repo_id, repo_type="dataset", local_dir=tmp_path / "ds")
    files = {p.relative_to(local).as_posix() for p in Path(local).rglob("*") if p.is_file()}
    assert "README.md" in files and any(f.endswith(".parquet") for f in files)
    assert any(f.startswith("samples/") for f in files), files
    assert SENTINEL_KEY not in files_text(Path(local))
    assert SENTINEL_KEY not in message


BAR_IS_FULL = """() => {
    const bar = document.querySelector('[role=progressbar][aria-label="Evaluation progress"]');
    const fill = bar && bar.firstElementChild;
    if (!fill) return false;
    const outer = bar.getBoundingClientRect().width, inner = fill.getBoundingClientRect().width;
    return outer > 0 && Math.abs(outer - inner) < 0.5;
}"""
SUMMARY_FITS = """() => {
    const block = document.getElementById('upskill-summary');
    const table = block.querySelector('table');
    const right = (el) => el.getBoundingClientRect().right;
    const cells = [...table.querySelectorAll('th, td')].map(right);
    return {block: right(block), table: Math.max(right(table), ...cells)};
}"""


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason="apt-get install chromium")
def test_browser_run_evaluation(
    running_app: RunningApp,
    skill_repo: SkillRepo,
    llm: FakeLLMServer,
    all_logs: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    from playwright.sync_api import expect, sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(running_app.url)
            skill = page.get_by_label("Skill", exact=True)
            expect(skill).to_have_value("kernel-builder-cuda-kernels", timeout=20_000)
            skill.fill(skill_repo.repo_id)
            skill.press("Enter")
            page.get_by_label("OpenAI-compatible", exact=True).check()
            base_url = page.get_by_label("Base URL", exact=True)
            expect(base_url).to_be_visible()
            base_url.fill(llm.base_url)
            page.get_by_label("Model", exact=True).fill("fake-model")
            page.get_by_label("API key", exact=True).fill(SENTINEL_KEY)
            page.get_by_role("button", name="Run evaluation").click()

            status = page.get_by_text("Done:", exact=False)
            expect(status).to_be_visible(timeout=60_000)
            progress = page.get_by_role("progressbar", name="Evaluation progress")
            expect(progress).to_have_attribute("aria-valuenow", "6")
            expect(page.get_by_text("too few cases", exact=False).first).to_be_visible()
            summary = page.locator("table").filter(has_text="With skill (95% CI)").first
            expect(summary).to_contain_text("fake-model")
            expect(summary).to_contain_text("3/3")
            expect(summary).to_contain_text("+100 pts")
            cases = page.locator(".upskill-cases")
            expect(cases.locator(".upskill-case")).to_have_count(3)
            expect(cases).to_contain_text("PINEAPPLE")
            expect(cases).to_contain_text("apple <script>alert(1)</script>")  # shown, not run
            expect(page.locator("img[src*='lift.png']")).to_be_visible()
            expect(page.locator("img[src*='frontier.png']")).to_be_visible()
            expect(page.get_by_role("button", name="Push results to the Hub")).to_be_enabled()

            # the bar's width eases in (a CSS transition): wait until it is drawn full
            page.wait_for_function(BAR_IS_FULL, timeout=10_000)
            # the summary fits its column at 1280 px: nothing scrolls or is cut off sideways
            fits = page.evaluate(SUMMARY_FITS)
            assert fits["table"] <= fits["block"] + 1, fits
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(ARTIFACTS / "space-1280x800.png"))
            page.screenshot(path=str(ARTIFACTS / "space-1280-full.png"), full_page=True)
            assert SENTINEL_KEY not in page.content()
            assert SENTINEL_KEY not in page.inner_text("body")

            phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
            phone.goto(running_app.url)
            phone.get_by_label("Skill", exact=True).fill(skill_repo.repo_id)
            phone.get_by_label("Skill", exact=True).press("Enter")
            phone.get_by_label("OpenAI-compatible", exact=True).check()
            phone.get_by_label("Base URL", exact=True).fill(llm.base_url)
            phone.get_by_label("Model", exact=True).fill("fake-model")
            phone.get_by_label("API key", exact=True).fill(SENTINEL_KEY)
            phone.get_by_role("button", name="Run evaluation").click()
            expect(phone.get_by_text("Done:", exact=False)).to_be_visible(timeout=60_000)
            phone.get_by_text("Done:", exact=False).scroll_into_view_if_needed()
            phone.screenshot(path=str(ARTIFACTS / "space-390x844.png"))
            phone.screenshot(path=str(ARTIFACTS / "space-390-full.png"), full_page=True)
            assert SENTINEL_KEY not in phone.content()
        finally:
            browser.close()
    logs = all_logs.text + "".join(capfd.readouterr())
    assert SENTINEL_KEY not in logs
    assert SENTINEL_KEY not in files_text(running_app.runs_dir)
    shutil.copyfile(ARTIFACTS / "space-1280x800.png", ARTIFACTS / "latest.png")
