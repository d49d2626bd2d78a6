"""Atomic file writes: every file the tool writes goes through here (temp file + rename)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _mode_for(path: Path) -> int:
    """Keep an existing file's permissions; a new file gets what ``open`` would give it."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never half."""
    atomic_write_chunks(path, (data,))


def atomic_write_chunks(path: Path, chunks: Iterable[bytes]) -> None:
    """:func:`atomic_write_bytes` for data streamed in pieces (never all in memory at once)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def append_line(path: Path, line: str) -> None:
    """Append one line and flush it to disk (for JSONL logs that must survive a kill)."""
    append_lines(path, [line])


def append_lines(path: Path, lines: list[str]) -> None:
    """Append lines in one write and flush them to disk with one fsync."""
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("".join(line.rstrip("\n") + "\n" for line in lines))
        fh.flush()
        os.fsync(fh.fileno())
