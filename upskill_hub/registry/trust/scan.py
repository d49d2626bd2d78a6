"""The pre-install security scan: paths, sizes, links, hidden text and risky commands.

:func:`scan_listing` checks a remote tree listing before anything is downloaded;
:func:`scan_tree` checks files on disk (it never follows links, executes or imports anything,
reads each file once and at most ``max_file_bytes`` of it). :func:`enforce` turns findings into
an :class:`UnsafeSkillError` error or printable warning lines.

Errors (refused unless ``--allow-unsafe``): unsafe paths, oversize files or trees, symlinks,
special files, hidden Unicode (tag characters, bidi controls, zero-width characters) and HTML
comments in Markdown. Warnings: ``curl|wget ... | sh`` pipes, credential paths, executable files.
"""

from __future__ import annotations

import bisect
import os
import posixpath
import re
import stat
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from upskill_hub.errors import Param, UnsafeSkillError

Severity = Literal["error", "warning"]
MiB = 1024 * 1024


@dataclass(frozen=True)
class ScanFinding:
    """One problem. ``path`` is the posix path inside the skill, with unprintable characters
    escaped (``\\u202e``) so it is safe to print; ``line`` is 1-based when known."""

    rule: str
    severity: Severity
    message: str
    path: str
    line: int | None = None

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}: {self.message} [{self.rule}]"


@dataclass(frozen=True)
class ScanLimits:
    max_file_bytes: int = 5 * MiB
    max_files: int = 500
    max_total_bytes: int = 50 * MiB


# --- path rules --------------------------------------------------------------------------------

_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _display(text: str) -> str:
    """Escape control and hidden characters so a path prints as what it is."""
    return "".join(f"\\u{ord(c):04x}" if _CONTROL.match(c) or _HIDDEN.match(c) else c for c in text)


def _path_problem(path: str) -> tuple[str, str] | None:
    """The first rule a listed path breaks, as (rule, message), or None when it is safe."""
    if "\0" in path:
        return "path-nul", "path contains a NUL character"
    if not path or path in (".", "./"):
        return "path-empty", "empty path"
    if "\\" in path:
        return "path-backslash", "path contains a backslash (Windows separator)"
    if path.startswith("/") or _DRIVE.match(path):
        return "path-absolute", "absolute path"
    if ".." in path.split("/"):
        return "path-traversal", "path contains a '..' segment"
    if _CONTROL.search(path):
        return "path-control-char", "path contains a control character"
    if _HIDDEN.search(path):
        return "path-hidden-unicode", "path contains an invisible or bidi Unicode character"
    resolved = posixpath.normpath(posixpath.join("/root", path))
    if not resolved.startswith("/root/"):
        return "path-escape", "path resolves outside the skill folder"
    return None


def scan_listing(
    entries: Iterable[tuple[str, int]], limits: ScanLimits = ScanLimits()
) -> list[ScanFinding]:
    """Check a tree listing of ``(posix path, size in bytes)`` before downloading it."""
    findings: list[ScanFinding] = []
    count = total = 0
    folded: dict[str, str] = {}
    for path, size in entries:
        count += 1
        total += max(size, 0)
        shown = _display(path)
        problem = _path_problem(path)
        if problem:
            findings.append(ScanFinding(problem[0], "error", problem[1], shown))
            continue
        if size > limits.max_file_bytes:
            findings.append(
                ScanFinding(
                    "file-too-large",
                    "error",
                    f"file is {size} bytes, over the {limits.max_file_bytes}-byte limit",
                    shown,
                )
            )
        # macOS and Windows fold case, macOS also NFC/NFD: two such names are one file there
        key = unicodedata.normalize("NFC", posixpath.normpath(path)).casefold()
        if key in folded and folded[key] != path:
            findings.append(
                ScanFinding(
                    "path-case-collision",
                    "warning",
                    f"differs only in case or Unicode normalization from {_display(folded[key])}",
                    shown,
                )
            )
        folded.setdefault(key, path)
    if count > limits.max_files:
        findings.append(
            ScanFinding(
                "too-many-files",
                "error",
                f"more than {limits.max_files} files ({count} seen)",
                ".",
            )
        )
    if total > limits.max_total_bytes:
        findings.append(
            ScanFinding(
                "too-large-total",
                "error",
                f"{total} bytes in total, over the {limits.max_total_bytes}-byte limit",
                ".",
            )
        )
    return findings


# --- content rules -----------------------------------------------------------------------------

_TAGS = "\U000e0000-\U000e007f"
_BIDI = "\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u200b-\u200d\u2060\ufeff"
_HIDDEN = re.compile(f"[{_TAGS}{_BIDI}{_ZERO_WIDTH}]")
_HIDDEN_KINDS = (
    ("unicode-tag", re.compile(f"[{_TAGS}]"), "Unicode tag character (invisible text)"),
    ("unicode-bidi", re.compile(f"[{_BIDI}]"), "bidi override/isolate character"),
    ("unicode-zero-width", re.compile(f"[{_ZERO_WIDTH}]"), "zero-width character"),
)

#: Code point ranges of pictographic emoji (what a ZWJ may join in an emoji sequence).
_EMOJI_RANGES = (
    (0x1F000, 0x1FAFF),
    (0x2600, 0x27BF),
    (0x2300, 0x23FF),
    (0x2B00, 0x2BFF),
    (0x2190, 0x21FF),
    (0x203C, 0x203C),
    (0x2049, 0x2049),
    (0x00A9, 0x00A9),
    (0x00AE, 0x00AE),
)

_PIPE_TO_SHELL = re.compile(
    r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:(?:\S*/)?(?:sudo|env)(?:\s+-\S+)*\s+)*"
    r"(?:\S*/)?(?:(?:ba|z|da|k)?sh|python[0-9.]*)\b"
    r"|(?:\b(?:ba|z|da|k)?sh|\bsource|(?:^|\s)\.)\s+(?:-c\s+)?[\"']?(?:\$\(|<\(|`)\s*"
    r"(?:curl|wget)\b",
    re.MULTILINE,
)
#: PowerShell's ``curl | sh``: ``iwr URL | iex``, ``Invoke-WebRequest ... | Invoke-Expression``,
#: ``iex (irm URL)``, ``iex (New-Object Net.WebClient).DownloadString(URL)``.
_PS_DOWNLOAD = (
    r"(?:iwr|irm|curl|wget|Invoke-WebRequest|Invoke-RestMethod"
    r"|New-Object\s+(?:System\.)?Net\.WebClient|Start-BitsTransfer)"
)
_PS_PIPE_TO_IEX = re.compile(
    rf"(?<![\w-]){_PS_DOWNLOAD}(?![\w-])[^\n|]*\|\s*(?:&\s*)?(?:iex|Invoke-Expression)(?![\w-])"
    rf"|(?<![\w-])(?:iex|Invoke-Expression)\s*[(\s]\s*(?:\(\s*|\$\(\s*)?{_PS_DOWNLOAD}(?![\w-])",
    re.IGNORECASE,
)
_PS_HINT = re.compile(r"iex|invoke-expression", re.IGNORECASE)
_CREDENTIALS = re.compile(
    r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%)[/\\]\.(?:ssh|aws|gnupg|kube|docker)\b"
    r"|(?:~|\$HOME|\$\{HOME\})/\.config/gh\b"
    r"|\.aws/credentials\b|\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b"
    r"|(?<![\w.$-])\.env(?:\.[\w-]+)?\b"
    r"|\.netrc\b|\.git-credentials\b|\.pypirc\b|\.docker/config\.json\b|\.kube/config\b"
)
_CREDENTIAL_HINTS = (
    ".ssh",
    ".aws",
    ".env",
    "id_",
    ".netrc",
    "/gh",
    "credentials",
    ".pypirc",
    ".docker",
    ".kube",
    ".gnupg",
)
_TEXT_EXTENSIONS = (
    "md markdown txt rst py sh bash zsh fish ps1 bat cmd js mjs cjs ts tsx jsx json jsonl yaml"
    " yml toml ini cfg conf html htm xml csv tsv sql rb go rs java kt c h cc cpp hpp cu cuh lua pl"
    " php r swift env tex svg"
)
_TEXT_SUFFIXES = frozenset("." + ext for ext in _TEXT_EXTENSIONS.split())
_MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+).*?\1")
_MAX_LINES_SHOWN = 5


class _Text:
    """A decoded file with fast offset -> line lookups."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None

    def line_of(self, offset: int) -> int:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return bisect.bisect_right(self._starts, offset)


def _grouped(rule: str, severity: Severity, what: str, path: str, lines: list[int]) -> ScanFinding:
    """One finding per file and rule: first line as location, the others in the message."""
    unique = sorted(set(lines))
    message = what
    if len(unique) > 1:
        shown = ", ".join(map(str, unique[1 : _MAX_LINES_SHOWN + 1]))
        more = "..." if len(unique) > _MAX_LINES_SHOWN + 1 else ""
        message += f"; also line {shown}{more}"
    return ScanFinding(rule, severity, message, path, unique[0])


def _is_emoji(char: str) -> bool:
    return any(lo <= ord(char) <= hi for lo, hi in _EMOJI_RANGES)


def _emoji_zwj(text: str, index: int) -> bool:
    """Whether the ZWJ at ``index`` joins two emoji (👨‍👩‍👧, 🏳️‍🌈): part of the emoji, not hidden."""
    if text[index] != "\u200d" or index == 0 or index + 1 >= len(text):
        return False
    before = index - 1
    while before > 0 and ("\ufe00" <= text[before] <= "\ufe0f" or _is_skin_tone(text[before])):
        before -= 1  # variation selectors and skin tones sit between the emoji and the ZWJ
    return _is_emoji(text[before]) and _is_emoji(text[index + 1])


def _is_skin_tone(char: str) -> bool:
    return 0x1F3FB <= ord(char) <= 0x1F3FF


def _hidden_unicode(doc: _Text, path: str) -> Iterator[ScanFinding]:
    if not _HIDDEN.search(doc.text, 1 if doc.text.startswith("\ufeff") else 0):
        return
    for rule, pattern, what in _HIDDEN_KINDS:
        offsets = [m.start() for m in pattern.finditer(doc.text)]
        if rule == "unicode-zero-width":
            offsets = [i for i in offsets if not _emoji_zwj(doc.text, i)]
        if offsets and offsets[0] == 0 and doc.text[0] == "\ufeff":
            offsets = offsets[1:]  # a leading byte-order mark is harmless
        if offsets:
            first = doc.text[offsets[0]]
            yield _grouped(
                rule,
                "error",
                f"{what} U+{ord(first):04X}",
                path,
                [doc.line_of(o) for o in offsets],
            )


def _html_comments(doc: _Text, path: str) -> Iterator[ScanFinding]:
    """``<!-- ... -->`` outside code fences and code spans: hidden from rendered Markdown."""
    if "<!--" not in doc.text:
        return
    starts: list[int] = []
    fence: str | None = None
    in_comment = False
    for number, line in enumerate(doc.text.split("\n"), start=1):
        if not in_comment:
            marker = _FENCE.match(line)
            if fence is not None:
                if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                    fence = None
                continue
            if marker:
                fence = marker.group(1)
                continue
            line = _CODE_SPAN.sub("", line)
        pos = 0
        while True:
            if in_comment:
                end = line.find("-->", pos)
                if end < 0:
                    break
                in_comment, pos = False, end + 3
            else:
                begin = line.find("<!--", pos)
                if begin < 0:
                    break
                starts.append(number)
                in_comment, pos = True, begin + 4
    if starts:
        what = "HTML comment (hidden when the Markdown is rendered)"
        if in_comment:
            what += "; the last one is never closed"
        yield _grouped("html-comment", "error", what, path, starts)


def _line_rules(doc: _Text, path: str) -> Iterator[ScanFinding]:
    text = doc.text
    pipes: list[int] = []
    if "curl" in text or "wget" in text:  # cheap pre-checks keep large files fast
        pipes += [doc.line_of(m.start()) for m in _PIPE_TO_SHELL.finditer(text)]
    if _PS_HINT.search(text):
        pipes += [doc.line_of(m.start()) for m in _PS_PIPE_TO_IEX.finditer(text)]
    if pipes:
        what = "downloads a script and pipes it to a shell"
        yield _grouped("pipe-to-shell", "warning", what, path, sorted(set(pipes)))
    if any(hint in text for hint in _CREDENTIAL_HINTS):
        creds = [doc.line_of(m.start()) for m in _CREDENTIALS.finditer(text)]
        if creds:
            what = "mentions a credential file or folder"
            yield _grouped("credential-path", "warning", what, path, creds)


def _decode(rel: str, data: bytes) -> _Text | None:
    """Text to scan, or None for binary files (images and the like)."""
    name = PurePosixPath(rel).name
    if PurePosixPath(rel).suffix.lower() in _TEXT_SUFFIXES or name == "SKILL.md":
        return _Text(data.decode("utf-8", errors="replace"))
    if b"\0" in data[:8192]:
        return None
    try:
        return _Text(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def scan_content(rel: str, data: bytes, mode: int = 0o644) -> list[ScanFinding]:
    """The content rules for one file's bytes (``rel`` is its posix path in the skill)."""
    shown = _display(rel)
    findings: list[ScanFinding] = []
    if mode & 0o111:
        where = "script" if rel.startswith("scripts/") else "file outside scripts/"
        findings.append(
            ScanFinding("executable-file", "warning", f"executable {where}", shown, None)
        )
    doc = _decode(rel, data)
    if doc is None:
        return findings
    findings.extend(_hidden_unicode(doc, shown))
    if PurePosixPath(rel).suffix.lower() in _MARKDOWN_SUFFIXES:
        findings.extend(_html_comments(doc, shown))
    findings.extend(_line_rules(doc, shown))
    return findings


# --- trees -------------------------------------------------------------------------------------


def scan_tree(root: Path, limits: ScanLimits = ScanLimits()) -> list[ScanFinding]:
    """Scan a folder on disk: links and special files, the listing rules, then file contents."""
    root = Path(root)
    findings: list[ScanFinding] = []
    files: list[tuple[str, int, int]] = []  # (relpath, size, mode)
    top = root.lstat()
    if stat.S_ISLNK(top.st_mode):
        return [ScanFinding("symlink", "error", "the skill folder itself is a symlink", ".")]
    if not stat.S_ISDIR(top.st_mode):
        return [ScanFinding("special-file", "error", "the skill path is not a folder", ".")]
    stack = [root]
    overflow = False
    while stack and not overflow:
        folder = stack.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            rel = Path(entry.path).relative_to(root).as_posix()
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                target = _display(os.readlink(entry.path))
                findings.append(
                    ScanFinding("symlink", "error", f"symlink to {target}", _display(rel))
                )
            elif stat.S_ISDIR(st.st_mode):
                stack.append(Path(entry.path))
            elif stat.S_ISREG(st.st_mode):
                files.append((rel, st.st_size, st.st_mode))
                if len(files) > limits.max_files:
                    overflow = True  # stop walking: the count alone refuses the tree
                    break
            else:
                findings.append(
                    ScanFinding(
                        "special-file", "error", "not a regular file or folder", _display(rel)
                    )
                )
    findings.extend(scan_listing(((rel, size) for rel, size, _ in files), limits))
    budget = limits.max_total_bytes
    for rel, size, mode in files:
        if _path_problem(rel) or size > limits.max_file_bytes or budget <= 0:
            continue
        data = _read_capped(root / rel, min(limits.max_file_bytes, budget))
        budget -= len(data)
        findings.extend(scan_content(rel, data, mode))
    return findings


def _read_capped(path: Path, cap: int) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(cap)
    finally:
        os.close(fd)


# --- verdict -----------------------------------------------------------------------------------


def enforce(findings: Iterable[ScanFinding], allow_unsafe: bool) -> list[str]:
    """Raise :class:`UnsafeSkillError` when any finding is an error, unless ``allow_unsafe``.

    Returns the lines to print as warnings (without the word: the caller labels them): every
    warning, plus the overridden errors when allowed.
    """
    findings = list(findings)
    errors = [f for f in findings if f.severity == "error"]
    if errors and not allow_unsafe:
        first = errors[0]
        raise UnsafeSkillError(
            f"security scan refused the skill: {len(errors)} error(s); first: "
            f"{first.location}: {first.message} [{first.rule}]; use ",
            Param("allow_unsafe"),
            " to override",
        )
    # callers print these under a "warning" label: the line itself does not say it again
    lines = [f"{f.location}: {f.message} [{f.rule}]" for f in findings if f.severity == "warning"]
    lines += [
        f"{f.location}: {f.message} [{f.rule}] (an error, allowed by --allow-unsafe)"
        for f in errors
    ]
    return lines
