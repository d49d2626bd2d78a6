"""The one secrets rule: which values are secret and how text is redacted."""

from __future__ import annotations

import pytest

from upskill_hub.secrets import Redactor, is_secret_name, redact, secret_values

ENV = {
    "OPENAI_API_KEY": "sk-openai-0123456789",
    "HF_TOKEN": "hf_short",  # 8 characters: still a secret
    "GITHUB_TOKEN": "short",  # under 8: too likely to occur by chance
    "DB_PASSWORD": "correct-horse-battery",
    "MY_SECRET_THING": "secret-value-42",
    "HOME": "/home/someone-long-enough",
    "BASE_URL": "http://127.0.0.1:9/v1",
}


def test_secret_values_from_names_and_extras_longest_first() -> None:
    found = secret_values(["visitor-key", None, "", "abc"], environ=ENV)
    assert found == [
        "correct-horse-battery",
        "sk-openai-0123456789",
        "secret-value-42",
        "visitor-key",
        "hf_short",
    ]
    assert is_secret_name("anthropic_api_key") and not is_secret_name("HOME")


def test_redact_values_and_key_shapes() -> None:
    r = Redactor(["visitor-key"], environ=ENV)
    text = (
        "a sk-openai-0123456789 b visitor-key c sk-ant-api03-XyZ123abc d hf_AbCdEf123456 "
        "e correct-horse-battery-staple"
    )
    assert r(text) == "a *** b *** c *** d *** e ***-staple"
    assert r("sk-1 and hf_x stay") == "sk-1 and hf_x stay"  # too short to be keys
    assert r.leaks("x visitor-key y") and not r.leaks("nothing here")
    assert r.scrub({"a": ["visitor-key", 3], "b": None}) == {"a": ["***", 3], "b": None}
    assert "visitor-key" not in repr(r) and "sk-openai" not in repr(r)


def test_redact_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_VENDOR_API_KEY", "vendor-key-value-99")
    assert redact("x vendor-key-value-99 y extra1") == "x *** y extra1"
    assert redact("x vendor-key-value-99 y extra1", ["extra1"]) == "x *** y ***"
