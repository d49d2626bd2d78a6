"""The ``## Results`` section of a skill repo's model card, filled from a published run.

Only that section changes (from its heading to the next ``## `` heading, appended when the card
has none; see :mod:`upskill_hub.registry.card`, which writes the initial "no results yet"
section) and the card's ``upskill_hub.results`` metadata gains the run (dataset, split, skill
commit, mode and each model's lift: :mod:`upskill_hub.registry.evidence.index`), which is how
``info``, ``pull`` and ``search`` find the evidence; every other byte of the card body stays as
it was. A replication (:func:`add_replication`) changes only the metadata: its entry joins
``upskill_hub.replications``. Committed directly or as a pull request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from upskill_hub.errors import Param, UsageError
from upskill_hub.publish import summary_text as fmt
from upskill_hub.registry.card import (
    RESULTS_HEADING,
    replace_results_section,
    results_metadata,
    with_results_metadata,
)

if TYPE_CHECKING:
    from upskill_hub.evaluation.run.records import RunInfo
    from upskill_hub.hub.client import Hub
    from upskill_hub.registry.evidence.index import PublishedRun, ReplicationEntry

CARD_FILE = "README.md"


def skill_card_repo(info: RunInfo, skill_repo: str | None) -> str:
    """The model repo whose card to update: ``skill_repo``, else the run's skill repo."""
    from upskill_hub.hub.client import parse_spec

    chosen = skill_repo or info.skill.repo_id
    if not chosen:
        raise UsageError(
            Param("update_skill_card"),
            ": the run's skill came from a local folder; name its Hub repo with ",
            Param("skill_repo", "NS/NAME"),
        )
    repo_id, revision = parse_spec(str(chosen))
    if revision is not None and skill_repo:
        raise UsageError(Param("skill_repo"), f" {skill_repo!r}: give NS/NAME without '@revision'")
    return repo_id


def results_markdown(
    rows: list[dict[str, Any]],
    info: RunInfo,
    *,
    dataset_repo: str,
    dataset_url: str,
    split: str,
) -> str:
    """The section's content: a row per model and a link to the dataset."""
    revision = info.skill.revision
    at = f" at revision `{revision}`" if revision else ""
    lines = [
        f"Measured with upskill-hub{at}: pass rate of each model on the skill's test cases "
        "without and with the skill, with 95% intervals. Samples, method and the command to "
        f"reproduce: dataset [{dataset_repo}]({dataset_url}) (split `{split}`).",
        "",
        "| model | baseline | with skill | lift (95% CI) | tokens/sample (baseline → with skill) |",
        "|---|---|---|---|---|",
    ]
    for r in fmt.by_model(rows):
        lines.append(
            f"| `{r.model}` | {fmt.rate_with_ci(r.baseline)} | {fmt.rate_with_ci(r.with_skill)} "
            f"| {fmt.lift_with_ci(r)} | {fmt.tokens_pair(r)} |"
        )
    return "\n".join(lines)


def _current_card(hub: Hub, repo_id: str) -> tuple[str | None, str]:
    """The repo's head commit and its card text ("" without one)."""
    head = hub.head(repo_id)
    if head and CARD_FILE in hub.repo_files(repo_id):
        return head, hub.download_file(repo_id, CARD_FILE, head).read_text(encoding="utf-8")
    return head, ""


def _commit_card(
    hub: Hub, repo_id: str, text: str, head: str | None, message: str, create_pr: bool
) -> tuple[str, str | None]:
    from huggingface_hub import CommitOperationAdd

    commit = hub.create_commit(
        repo_id,
        [CommitOperationAdd(path_in_repo=CARD_FILE, path_or_fileobj=text.encode("utf-8"))],
        message=message,
        create_pr=create_pr,
        parent_commit=head,
    )
    return str(commit.oid), (str(commit.pr_url) if commit.pr_url else None)


def add_replication(
    hub: Hub, repo_id: str, entry: ReplicationEntry, *, create_pr: bool = False
) -> tuple[str, str | None]:
    """Add ``entry`` to the card's ``upskill_hub.replications``; (commit, pull request URL or
    None). The body and the ``results`` list stay as they are."""
    from upskill_hub.registry.card import REPLICATIONS_META_KEY
    from upskill_hub.registry.evidence.index import with_replication

    head, current = _current_card(hub, repo_id)
    entries = with_replication(results_metadata(current, REPLICATIONS_META_KEY), entry)
    updated = with_results_metadata(current, entries, REPLICATIONS_META_KEY)
    return _commit_card(hub, repo_id, updated, head, "Add a replication", create_pr)


def update_results(
    hub: Hub,
    repo_id: str,
    markdown: str,
    *,
    create_pr: bool = False,
    run: PublishedRun | None = None,
) -> tuple[str, str | None]:
    """Write ``markdown`` as the card's results section and add ``run`` to its metadata;
    (commit, pull request URL or None)."""
    from upskill_hub.registry.evidence.index import with_run

    head, current = _current_card(hub, repo_id)
    if current.strip():
        updated = replace_results_section(current, markdown)
    else:
        updated = f"{RESULTS_HEADING}\n\n{markdown.strip()}\n"
    if run is not None:
        updated = with_results_metadata(updated, with_run(results_metadata(current), run))
    return _commit_card(hub, repo_id, updated, head, "Update evaluation results", create_pr)
