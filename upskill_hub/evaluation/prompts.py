"""The exact messages each arm of an eval sends.

The two arms are symmetric (upskill 0.2.1 sent the baseline no system message at all and the
skill arm a different prompt plus tools, so its "lift" mixed the skill with the harness):

* both arms send the same base system prompt and the same user message (the case input, then
  each context file in its own delimited ``<file>`` block);
* the with-skill arm appends ONLY the skill to the system message: one sentence saying a skill
  is available, then the full SKILL.md text inside ``<skill name="...">...</skill>``.

:func:`prompt_hash` fingerprints the exact messages; every sample stores it, so two samples with
the same hash were asked exactly the same thing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from html import escape

from upskill_hub.evaluation.types import Message
from upskill_hub.skill.testcases import TestCase

BASE_SYSTEM_PROMPT = (
    "You are a helpful assistant. Complete the user's task directly and completely. "
    "When the task asks for code or a file, include it in full."
)
SKILL_PREAMBLE = (
    "The following skill is available. Follow its instructions when they apply to the task."
)


def skill_block(skill_text: str, skill_name: str) -> str:
    """The delimited block holding a skill's full SKILL.md text."""
    body = skill_text.strip("\n")
    return f'{SKILL_PREAMBLE}\n<skill name="{escape(skill_name, quote=True)}">\n{body}\n</skill>'


def system_prompt(skill_text: str | None, skill_name: str = "skill") -> str:
    """The base system prompt, plus the skill block for the with-skill arm."""
    if skill_text is None:
        return BASE_SYSTEM_PROMPT
    return f"{BASE_SYSTEM_PROMPT}\n\n{skill_block(skill_text, skill_name)}"


def user_message(case: TestCase) -> str:
    """The case input followed by its context files, each in a ``<file name="...">`` block."""
    parts = [case.input.strip("\n")]
    for name, content in case.files.items():
        parts.append(f'<file name="{escape(name, quote=True)}">\n{content.strip(chr(10))}\n</file>')
    return "\n\n".join(parts)


def build_messages(
    case: TestCase, skill_text: str | None, *, skill_name: str = "skill"
) -> list[Message]:
    """The messages for one sample: ``skill_text=None`` is the baseline arm."""
    return [
        Message(role="system", content=system_prompt(skill_text, skill_name)),
        Message(role="user", content=user_message(case)),
    ]


def canonical_messages_json(messages: Sequence[Message]) -> str:
    """A canonical JSON text of ``messages`` (sorted keys, no spaces, UTF-8 kept)."""
    data = [{"role": m.role, "content": m.content} for m in messages]
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def prompt_hash(messages: Sequence[Message]) -> str:
    """``sha256:<hex>`` of :func:`canonical_messages_json`."""
    digest = hashlib.sha256(canonical_messages_json(messages).encode("utf-8")).hexdigest()
    return f"sha256:{digest}"
