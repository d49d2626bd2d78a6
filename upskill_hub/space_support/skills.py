"""The skills the Space offers and loading the one a visitor chose.

Bundled skills are the folders of a ``skills/`` directory shipped with the app (next to
``app.py`` on a Space, at the repository root in a checkout). Anything else in the "Skill" box
must be a Hub repo id ``ns/name[@revision]``, fetched (scanned and validated) by the registry.
On a hosted Space the fetch uses the visitor's token (or none), never the Space's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from upskill_hub.errors import SkillNotFoundError, UsageError
from upskill_hub.skill import Skill, discover_skills, load_skill

if TYPE_CHECKING:
    from upskill_hub.hub.client import Hub

DEFAULT_SKILL = "kernel-builder-cuda-kernels"


@dataclass(frozen=True)
class ChosenSkill:
    """A loaded skill and where it came from (repo id and commit for a Hub skill)."""

    skill: Skill
    ref: str
    repo_id: str | None = None
    commit: str | None = None


def find_skills_dir(candidates: Sequence[Path]) -> Path | None:
    """The first of ``candidates`` that holds at least one skill folder."""
    for candidate in candidates:
        if candidate.is_dir() and any((d / "SKILL.md").is_file() for d in candidate.iterdir()):
            return candidate
    return None


def bundled_skills(skills_dir: Path | None) -> dict[str, Path]:
    """Bundled skill name -> folder, the default skill first."""
    if skills_dir is None:
        return {}
    found = {p.name: p for p in discover_skills(skills_dir)}
    ordered = sorted(found, key=lambda name: (name != DEFAULT_SKILL, name))
    return {name: found[name] for name in ordered}


def visitor_hub(hosted: bool, token: str | None) -> Hub:
    """The Hub client for one visitor's request.

    Hosted, every call carries the visitor's sign-in token or none at all (``token=False``: not
    even the Space's own ``HF_TOKEN``), so a visitor sees exactly what the Hub shows them; and
    every revision, a full commit hash too, is resolved by asking the Hub with that token
    (:class:`~.visitor_hub.VisitorHub`), because the files of a commit another visitor fetched
    are in the Space's shared cache. Locally it is the machine's own login.
    """
    if hosted:
        from upskill_hub.space_support.visitor_hub import VisitorHub

        return VisitorHub(token=token or False)
    from upskill_hub.hub.client import Hub

    return Hub(token=None)


def load_choice(
    choice: str, bundled: dict[str, Path], *, hosted: bool, token: str | None = None
) -> ChosenSkill:
    """The skill for the "Skill" box: a bundled name, else a Hub repo id (fetched and checked)."""
    text = choice.strip()
    if text in bundled:
        return ChosenSkill(load_skill(bundled[text]), ref=text)
    if "/" not in text:
        known = ", ".join(bundled) or "none"
        raise SkillNotFoundError(
            f"Skill {text!r} is neither a bundled skill ({known}) nor a Hub repo id "
            "(namespace/name[@revision])"
        )
    from upskill_hub.registry.fetch import SeveralSkillsError
    from upskill_hub.registry.skill_source import open_skill

    try:
        opened = open_skill(text, hub=visitor_hub(hosted, token), local=False)
    except SeveralSkillsError as exc:
        raise UsageError(
            f"{exc.repo_id} holds several skills ({', '.join(exc.names)}); the Space evaluates "
            "single-skill repos (use `upskill-hub eval REPO --skill NAME` locally)"
        ) from None
    return ChosenSkill(opened.skill, ref=text, repo_id=opened.repo_id, commit=opened.commit)
