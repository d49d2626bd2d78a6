"""Benchmark: `upskill-hub --help` start-up, `upskill-hub validate ONE_SKILL` as a whole process
against `agentskills validate ONE_SKILL` (the reference validator, skills-ref 0.1.1, installed
here if missing), and validation of 500 generated skills in-process against skills-ref.

    python benchmarks/validate.py [--skills 500] [--repeats 5]

Prints medians and ratios, all from one run. Goals: one skill per process at most 1.5x the
reference validator's time; per-skill validation in-process >= 3x faster than skills-ref;
`--help` under 0.2 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def ensure_skills_ref() -> None:
    if importlib.util.find_spec("skills_ref") is None:
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "skills-ref==0.1.1"], check=True
        )


def generate(root: Path, count: int) -> list[Path]:
    rng = random.Random(7)
    words = [
        *("kernel", "build", "cuda", "tensor", "graph", "parse"),
        *("render", "deploy", "audit", "review", "plan", "test"),
    ]
    dirs = []
    for i in range(count):
        name = f"{rng.choice(words)}-{rng.choice(words)}-{i}"
        folder = root / name
        (folder / "references").mkdir(parents=True)
        description = " ".join(rng.choice(words) for _ in range(rng.randint(10, 60)))
        body = "\n".join(
            f"{n}. {' '.join(rng.choice(words) for _ in range(12))}" for n in range(40)
        )
        extra = "license: Apache-2.0\nmetadata:\n  version: '1.0'\n" if i % 2 else ""
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\n{body}\n"
            "See [the guide](references/guide.md).\n"
        )
        (folder / "references" / "guide.md").write_text("guide\n")
        dirs.append(folder)
    return dirs


def time_call(fn, dirs: list[Path], repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for d in dirs:
            fn(d)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def time_command(args: list[str], repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(args, capture_output=True, check=True)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skills", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    ensure_skills_ref()
    import skills_ref

    from upskill_hub.skill import validate_skill

    exe = shutil.which("upskill-hub")
    cli = [exe] if exe else [sys.executable, "-m", "upskill_hub"]
    help_s = time_command([*cli, "--help"], args.repeats * 2)
    version_s = time_command([*cli, "--version"], args.repeats * 2)
    baseline = time_command([sys.executable, "-c", "pass"], args.repeats * 2)
    bundled = str(REPO / "skills" / "kernel-builder-cuda-kernels")
    reference = shutil.which("agentskills") or str(Path(sys.executable).parent / "agentskills")
    one_ours = time_command([*cli, "validate", bundled], args.repeats * 4)
    one_theirs = time_command([reference, "validate", bundled], args.repeats * 4)

    with tempfile.TemporaryDirectory() as tmp:
        dirs = generate(Path(tmp), args.skills)
        for d in dirs[:3]:  # both agree these are valid
            assert validate_skill(d).valid and not skills_ref.validate(d)
        ours = time_call(validate_skill, dirs, args.repeats)
        theirs = time_call(skills_ref.validate, dirs, args.repeats)
        cli_all = time_command(
            [*cli, "validate", tmp, "--format", "json"], max(2, args.repeats // 2)
        )

    n = args.skills
    print(
        f"upskill-hub --help      median {help_s * 1000:7.1f} ms (python -c pass: "
        f"{baseline * 1000:.1f} ms) goal < 200 ms"
    )
    print(f"upskill-hub --version   median {version_s * 1000:7.1f} ms")
    print(
        f"validate ONE skill, whole process: upskill-hub {one_ours * 1000:.0f} ms, "
        f"agentskills {one_theirs * 1000:.0f} ms, ratio {one_ours / one_theirs:.2f}x "
        "(goal <= 1.5x)"
    )
    print(
        f"validate (library)      median {ours:7.3f} s for {n} skills = "
        f"{ours / n * 1e6:7.1f} us/skill"
    )
    print(
        f"skills-ref validate     median {theirs:7.3f} s for {n} skills = "
        f"{theirs / n * 1e6:7.1f} us/skill"
    )
    print(f"ratio skills-ref / ours {theirs / ours:7.2f}x in-process (goal >= 3x)")
    print(f"upskill-hub validate DIR (CLI, {n} skills, JSON) median {cli_all:.3f} s")


if __name__ == "__main__":
    main()
