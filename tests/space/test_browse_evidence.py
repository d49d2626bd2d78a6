"""The Browse tab shows the same evidence as the CLI: ranked by measured lift on a chosen
model (the code behind ``search --model``), and each skill's page lists lift per model with
its interval and the commit measured, next to the ``pull`` command (local Hub, no gradio)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.registry.published_skill import CLAUDE, EIGHT_FAIL, GPT, THREE_FAIL, SkillRepo
from upskill_hub.registry.search import search
from upskill_hub.space_support import browse


@pytest.mark.slow
def test_browse_ranks_by_lift_and_the_page_shows_it_by_the_pull_command(
    tmp_path: Path, unique_repo_id: str
) -> None:
    word = unique_repo_id.split("-")[-1]
    strong = SkillRepo(tmp_path / "a", f"local-user/strong-{word}")
    weak = SkillRepo(tmp_path / "b", f"local-user/weak-{word}")
    v1 = weak.push()
    weak.publish(v1, EIGHT_FAIL)
    strong.publish(strong.push(), THREE_FAIL, models=(GPT,))

    rows = browse.search_rows(word, model=GPT)
    assert [r[0] for r in rows] == [h.repo_id for h in search(word, model=GPT)]
    assert [r[0] for r in rows] == [strong.repo_id, weak.repo_id]
    assert rows[0][4] == f"+70 pts [+34, +100] · reported on {GPT}"
    assert rows[1][4] == f"+20 pts [-18, +58] · reported on {GPT}"
    by_claude = browse.search_rows(word, model=CLAUDE)
    assert by_claude[0][0] == weak.repo_id and by_claude[1][4] == f"not measured on {CLAUDE}"
    plain = {r[0]: r[4] for r in browse.search_rows(word)}
    assert plain[strong.repo_id] == f"{GPT}: +70 pts [+34, +100] · reported"

    weak.push("print('v2')\n")
    page = browse.skill_page(weak.repo_id).markdown
    pull_at = page.index(f"upskill-hub pull {weak.repo_id}")
    table_at = page.index("| model | lift (95% interval) | checked | cases × runs |")
    assert pull_at < table_at < page.index("### Skill")
    row = next(line for line in page.splitlines() if line.startswith(f"| {browse.md_escape(GPT)}"))
    assert browse.md_escape("+20 pts [-18, +58]") in row and "✅ verified" in row
    assert browse.md_escape("10 cases × 2 runs") in row and "| inline |" in row
    owner = weak.dataset.split("/")[0]
    assert browse.md_escape(f"reported by {owner} for {v1[:7]}, 2 commits behind") in row


def test_a_page_without_published_results_says_so(tmp_path: Path, unique_repo_id: str) -> None:
    repo = SkillRepo(tmp_path, unique_repo_id)
    repo.push()
    page = browse.skill_page(repo.repo_id).markdown
    assert "No published results for this skill" in page
    assert page.index("upskill-hub pull") < page.index("No published results")
