"""No input crashes validation: every hostile SKILL.md ends in findings, quickly."""

from __future__ import annotations

import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from upskill_hub.skill import validate_skill
from upskill_hub.skill.frontmatter import parse_skill_md

SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _validate_bytes(tmp_path: Path, data: bytes):
    folder = tmp_path / "fuzz-skill"
    folder.mkdir(exist_ok=True)
    (folder / "SKILL.md").write_bytes(data)
    return validate_skill(folder)


@SETTINGS
@given(data=st.binary(max_size=2000))
def test_random_bytes(tmp_path: Path, data: bytes) -> None:
    report = _validate_bytes(tmp_path, data)
    assert report.findings  # random bytes are never a valid skill (no frontmatter)
    assert all(f.message and f.rule for f in report.findings)


YAMLISH = st.lists(
    st.sampled_from([*"abn:- \n'\"[]{}&*!|>#%@`,?\t\r\ufeff\u2028", "---", "...", "\n  "]),
    max_size=200,
).map("".join)


@SETTINGS
@given(frontmatter=YAMLISH, body=st.text(max_size=200))
def test_yamlish_frontmatter(tmp_path: Path, frontmatter: str, body: str) -> None:
    text = f"---\n{frontmatter}\n---\n{body}"
    report = _validate_bytes(tmp_path, text.encode("utf-8", "surrogatepass"))
    assert report.valid or report.errors
    parse_skill_md(text)  # also the pure parser


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=500))
def test_parser_total(text: str) -> None:
    parsed = parse_skill_md(text)
    assert parsed.frontmatter is not None or parsed.findings


def _timed(tmp_path: Path, data: bytes):
    start = time.perf_counter()
    report = _validate_bytes(tmp_path, data)
    return report, time.perf_counter() - start


def test_alias_bomb(tmp_path: Path) -> None:
    lines = ["name: fuzz-skill", "description: x", 'a: &a ["lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev}]")
    data = ("---\n" + "\n".join(lines) + "\n---\nbody\n").encode()
    report, seconds = _timed(tmp_path, data)
    assert [f.message for f in report.errors] == [
        "YAML aliases in frontmatter expand to more than 10000 nodes"
    ]
    assert seconds < 2


def test_anchors_and_aliases_are_valid_frontmatter(tmp_path: Path) -> None:
    data = (
        "---\nname: fuzz-skill\ndescription: &d Builds kernels for H100 GPUs.\n"
        "metadata:\n  summary: *d\n  base: &b {tier: one}\n  merged: {<<: *b}\n---\nbody\n"
    )
    report, seconds = _timed(tmp_path, data.encode())
    assert not [f for f in report.errors if f.rule == "frontmatter.yaml"], report.errors
    assert seconds < 2


def test_a_self_referencing_alias_is_one_finding(tmp_path: Path) -> None:
    data = b"---\nname: fuzz-skill\ndescription: x\nloop: &l [*l]\n---\nbody\n"
    report, _ = _timed(tmp_path, data)
    assert [f.rule for f in report.errors] == ["frontmatter.yaml"]


def test_deep_nesting(tmp_path: Path) -> None:
    data = b"---\nname: fuzz-skill\ndescription: x\nm: " + b"[" * 100_000 + b"]" * 100_000
    data += b"\n---\n"
    report, seconds = _timed(tmp_path, data)
    assert not report.valid
    assert seconds < 5


def test_block_nesting(tmp_path: Path) -> None:
    deep = "".join("  " * i + f"k{i}:\n" for i in range(200))
    data = f"---\nname: fuzz-skill\ndescription: x\nmetadata:\n{deep}---\n".encode()
    report, _ = _timed(tmp_path, data)
    assert any("nests deeper" in f.message for f in report.errors)


def test_fifty_megabytes(tmp_path: Path) -> None:
    data = b"---\nname: fuzz-skill\ndescription: x\n---\n" + b"x" * (50 * 1024 * 1024)
    report, seconds = _timed(tmp_path, data)
    assert report.errors[0].rule == "file.unreadable" and "MB" in report.errors[0].message
    assert seconds < 2


def test_invalid_utf8_and_bom_crlf(tmp_path: Path) -> None:
    report, _ = _timed(tmp_path, b"---\nname: fuzz-skill\ndescription: \xff\xfe\n---\n")
    assert report.errors[0].rule == "file.encoding"
    report, _ = _timed(
        tmp_path, b"\xef\xbb\xbf---\r\nname: fuzz-skill\r\ndescription: ok\r\n---\r\n"
    )
    assert report.valid


def test_huge_single_line_frontmatter(tmp_path: Path) -> None:
    data = b"---\nname: fuzz-skill\ndescription: " + b"y" * 2_000_000 + b"\n---\n"
    report, seconds = _timed(tmp_path, data)
    assert report.errors[0].rule == "frontmatter.too-large"
    assert seconds < 2


def test_skill_md_directory_and_symlink_loop(tmp_path: Path) -> None:
    d = tmp_path / "as-dir"
    (d / "SKILL.md").mkdir(parents=True)
    assert validate_skill(d).errors[0].rule == "file.not-regular"
    loop = tmp_path / "loop"
    loop.mkdir()
    (loop / "SKILL.md").symlink_to("SKILL.md")
    assert validate_skill(loop).errors[0].rule == "file.unreadable"
    dangling = tmp_path / "dangling"
    dangling.mkdir()
    (dangling / "SKILL.md").symlink_to(tmp_path / "nowhere")
    assert validate_skill(dangling).errors[0].rule == "file.unreadable"


def test_named_pipe_skill_md_does_not_hang(tmp_path: Path) -> None:
    import os

    folder = tmp_path / "fifo-skill"
    folder.mkdir()
    os.mkfifo(folder / "SKILL.md")
    start = time.perf_counter()
    report = validate_skill(folder)
    assert report.errors[0].rule == "file.not-regular"
    assert "pipe" in report.errors[0].message
    assert time.perf_counter() - start < 2
