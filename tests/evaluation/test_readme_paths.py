"""The README's "Without the embedded model" command works as written, with no llama_cpp."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tests.support.eval_runs import REPO, run_eval
from tests.support.llm_servers import constant, openai_server


def _readme_command() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Without the embedded model", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None
    [line] = [ln for ln in block.group(1).splitlines() if ln.startswith("upskill-hub eval")]
    return line.split()[1:]


def test_the_zero_compile_eval_runs_against_a_local_openai_server(tmp_path: Path) -> None:
    args = _readme_command()
    assert args[:2] == ["eval", "skills/kernel-builder-cuda-kernels"] and "--base-url" in args
    blocker = tmp_path / "no-llama"
    (blocker / "llama_cpp").mkdir(parents=True)
    (blocker / "llama_cpp" / "__init__.py").write_text("raise ImportError('not installed')\n")
    env = {"PYTHONPATH": f"{blocker}{os.pathsep}{REPO}"}
    with openai_server(constant("I do not know.")) as srv:
        args[args.index("--base-url") + 1] = srv.base_url
        skill, readme_args = args[1], args[2:]  # the README's --base-url, pointed at srv
        done = run_eval(
            skill,
            None,
            *readme_args,
            *("--runs", "1", "--format", "json", "--output", str(tmp_path / "runs")),
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert {r.json["model"] for r in srv.requests if r.json} == {"my-model"}
    [model] = json.loads(done.stdout)["models"]
    assert model["with_skill"]["total"] == model["baseline"]["total"] == 18
