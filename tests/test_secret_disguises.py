"""A model that echoes the run's key in disguise (base64, reversed, spaced out, hex, URL-encoded,
split at ``-``) never gets it into samples.jsonl. A real local OpenAI-compatible server plays
the hostile model."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.support.llm_servers import openai_server
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.runner import evaluate
from upskill_hub.evaluation.types import GenerationParams
from upskill_hub.secrets import Redactor
from upskill_hub.skill.model import load_skill
from upskill_hub.skill.testcases import TestCase

KEY = "sk-ant-api03-Qw3rTy9UiOp1-AsDf4GhJk2Lz/x+Vb7Nm8"
PIECES = ("Qw3rTy9UiOp1", "AsDf4GhJk2Lz")


def disguises(key: str) -> dict[str, str]:
    raw = key.encode()
    return {
        "base64": base64.b64encode(raw).decode(),
        "base64 inside a longer text": base64.b64encode(b"Authorization: Bearer " + raw).decode(),
        "url-safe base64, unpadded": base64.urlsafe_b64encode(b"k=" + raw).decode().rstrip("="),
        "reversed": key[::-1],
        "spaced out": " ".join(key),
        "one character a line": "\n".join(key),
        "dotted": ".".join(key),
        "hex": raw.hex(),
        "url-encoded": quote(key, safe=""),
        "pieces": f"first {PIECES[0]}, later {PIECES[1]}",
    }


def test_every_disguise_is_redacted_and_words_are_not() -> None:
    redact = Redactor([KEY], environ={})
    for how, text in disguises(KEY).items():
        cleaned = redact(f"echo: {text} :end")
        assert cleaned.startswith("echo: ") and cleaned.endswith(" :end"), how
        assert redact.leaks(text), how
        for form in (*disguises(KEY).values(), *PIECES):
            assert form not in cleaned, (how, cleaned)
    odd = "tok_Ab12-/-Cd34Ef56Gh"  # punctuation runs widen the gaps when spaced out
    assert Redactor([odd], environ={})(" ".join(odd)) == "***"
    # pieces that are words, and a short explicit key, stay as they are around it
    words = Redactor(["correct-horse-battery-password"], environ={})
    assert words("the password is a battery") == "the password is a battery"
    assert Redactor(["abcd"], environ={})("a b c d") == "a b c d"


def test_a_model_echoing_the_key_in_disguise_leaves_no_trace(tmp_path: Path) -> None:
    forms = disguises(KEY)

    def hostile(request: dict[str, Any]) -> str:
        return "Here is your key: " + " | ".join(forms.values())

    folder = tmp_path / "echo"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: echo\ndescription: Echo.\n---\n\nEcho.\n")
    case = TestCase(id="q", input="hi", assertions=({"type": "contains", "values": ["key"]},))
    with openai_server(hostile, api_key=KEY) as srv:
        config = EvalConfig(
            models=["fake-model"],
            base_url=srv.base_url,
            api_key=KEY,
            params=GenerationParams(max_tokens=4000, timeout=5.0),
        )
        result = evaluate(
            load_skill(folder, with_tests=False), [case], config, output_root=tmp_path / "r"
        )
    stored = (result.run_dir / "samples.jsonl").read_text()
    outputs = [json.loads(line)["output"] for line in stored.splitlines()]
    assert all(o.startswith("Here is your key: ***") for o in outputs), outputs
    for how, text in (*forms.items(), *(("piece", p) for p in PIECES)):
        assert text not in stored, how
