"""The two arms send the same prompt, except for one delimited skill block."""

from __future__ import annotations

from upskill_hub.evaluation.prompts import (
    BASE_SYSTEM_PROMPT,
    SKILL_PREAMBLE,
    build_messages,
    canonical_messages_json,
    prompt_hash,
)
from upskill_hub.evaluation.types import Message
from upskill_hub.skill.testcases import TestCase

SKILL_MD = (
    "---\nname: canary\ndescription: Teaches a fact.\n---\n\n# Canary\nThe code is 7Q-ALPHA.\n"
)
CASE = TestCase(
    id="ask",
    input="What is the code? Check the files.",
    files={"notes.txt": "first file\n", 'we"ird <name>.md': "second"},
    assertions=({"type": "contains", "values": ["7Q-ALPHA"]},),
)


def test_arms_share_user_message_and_base_system_prompt() -> None:
    base = build_messages(CASE, None, skill_name="canary")
    skill = build_messages(CASE, SKILL_MD, skill_name="canary")
    assert [m.role for m in base] == [m.role for m in skill] == ["system", "user"]
    assert base[1] == skill[1]
    assert base[0].content == BASE_SYSTEM_PROMPT
    assert skill[0].content.startswith(BASE_SYSTEM_PROMPT + "\n\n")
    added = skill[0].content[len(BASE_SYSTEM_PROMPT) :]
    assert added == f'\n\n{SKILL_PREAMBLE}\n<skill name="canary">\n{SKILL_MD.strip()}\n</skill>'


def test_baseline_has_no_trace_of_the_skill() -> None:
    base = build_messages(CASE, None, skill_name="canary")
    text = "\n".join(m.content for m in base)
    assert "7Q-ALPHA" not in text
    assert "<skill" not in text
    assert "canary" not in text


def test_user_message_holds_input_then_each_file_in_a_delimited_block() -> None:
    user = build_messages(CASE, None)[1].content
    assert user.startswith(CASE.input + "\n\n")
    assert '<file name="notes.txt">\nfirst file\n</file>' in user
    assert '<file name="we&quot;ird &lt;name&gt;.md">\nsecond\n</file>' in user
    assert user.index("notes.txt") < user.index("second")


def test_skill_name_is_escaped_in_the_tag() -> None:
    system = build_messages(CASE, "body", skill_name='a"b<c')[0].content
    assert '<skill name="a&quot;b&lt;c">' in system


def test_prompt_hash_is_stable_and_exact() -> None:
    one = build_messages(CASE, SKILL_MD, skill_name="canary")
    two = build_messages(CASE, SKILL_MD, skill_name="canary")
    assert prompt_hash(one) == prompt_hash(two)
    assert prompt_hash(one).startswith("sha256:") and len(prompt_hash(one)) == 7 + 64
    assert prompt_hash(one) != prompt_hash(build_messages(CASE, None))
    changed = [one[0], Message("user", one[1].content + " ")]
    assert prompt_hash(changed) != prompt_hash(one)
    assert canonical_messages_json([Message("user", "é")]) == '[{"content":"é","role":"user"}]'
