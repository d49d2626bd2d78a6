"""A skill named by a local folder or a Hub repo id (``ns/name[@rev]``), opened once: what
``eval`` and the Space both do before measuring. A Hub skill is fetched (listing scanned,
files checked, validated) through :func:`upskill_hub.registry.fetch.fetch_skill`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from upskill_hub.errors import SkillNotFoundError, UsageError
from upskill_hub.skill import Skill, load_skill

if TYPE_CHECKING:
    from upskill_hub.hub.client import Hub

__all__ = ["OpenedSkill", "open_skill"]

_REPO_ID = re.compile(r"^[\w.\-]+/[\w.\-]+(@\S+)?$")


@dataclass(frozen=True)
class OpenedSkill:
    """The loaded skill; ``repo_id`` and ``commit`` when it came from the Hub."""

    skill: Skill
    repo_id: str | None = None
    commit: str | None = None


def open_skill(
    spec: str, *, skill: str | None = None, hub: Hub | None = None, local: bool = True
) -> OpenedSkill:
    """Open ``spec``: an existing folder (when ``local``), else a Hub repo id.

    ``skill`` names one skill of a multi-skill repo; ``hub`` picks the endpoint and token.
    A malformed id is a :class:`UsageError` and a name that is neither a
    :class:`SkillNotFoundError`, both before any request.
    """
    path = Path(spec).expanduser()
    if local and path.exists():
        if skill:
            raise UsageError("skill: names a skill of a Hub repo; give the folder itself instead")
        return OpenedSkill(load_skill(path))
    # a local folder needs no Hub client (huggingface_hub costs ~0.2 s to import)
    from upskill_hub.hub.client import parse_spec
    from upskill_hub.registry.fetch import fetch_skill

    if not _REPO_ID.match(spec) or spec.startswith((".", "/", "~")):
        if local:
            raise SkillNotFoundError(
                f"{spec}: no such skill folder (nor a Hub repo id ns/name[@rev])"
            )
        raise SkillNotFoundError(f"{spec}: not a Hub repo id ns/name[@rev]")
    parse_spec(spec)
    fetched = fetch_skill(spec, skill=skill, hub=hub)
    return OpenedSkill(load_skill(fetched.path), fetched.repo_id, fetched.commit)
