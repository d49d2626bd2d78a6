"""samples.jsonl without holding it: compact per-sample records, streaming reads, and the
resume scan that rewrites the file only when a line must go.

A run keeps no sample in memory; the full samples stay in samples.jsonl and are read back one
line at a time (:func:`iter_samples`; :func:`compact` drops a sample's output and assertion
reasons). A resume (:func:`resume_records`) reads the file line by line, holding a line number
per key (the samples kept are read again afterwards, :class:`KeptSamples`), and leaves it
untouched (same inode, same bytes) unless a line must be dropped: a torn or unreadable line, an
errored sample to run again, a key written twice, a key the run no longer has. Then the lines
kept are streamed to a new file that replaces the old atomically.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
from collections.abc import Collection, Container, Iterator
from pathlib import Path

from upskill_hub.atomic_io import atomic_write_chunks
from upskill_hub.evaluation.types import AssertionResult, Sample, SampleKey

__all__ = ["KeptSamples", "ResumeScan", "compact", "iter_samples", "resume_records"]

log = logging.getLogger(__name__)


_VERDICTS: dict[tuple[str, str], AssertionResult] = {}


def _verdict(result: AssertionResult) -> AssertionResult:
    """The assertion's type and status without its reason, one shared (frozen) object each."""
    ident = (result.type, result.status)
    found = _VERDICTS.get(ident)
    if found is None:
        found = _VERDICTS[ident] = AssertionResult(sys.intern(result.type), result.status)
    return found


def compact(sample: Sample) -> Sample:
    """What the summary, benchmark.json and agent usage read of a sample: everything but its
    output, the assertion reasons and the finish time (the full sample stays in samples.jsonl).
    """
    return dataclasses.replace(
        sample,
        model=sys.intern(sample.model),
        case_id=sys.intern(sample.case_id),
        arm="with_skill" if sample.arm == "with_skill" else "baseline",
        prompt_hash=sys.intern(sample.prompt_hash),
        output="",
        assertions=[_verdict(a) for a in sample.assertions],
        finished_at="",
    )


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, raw line with its newline, if any), one at a time."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below; a generator must not hold `with`
    except FileNotFoundError:
        return
    with fh:
        yield from enumerate(fh, 1)


def _parse(raw: bytes, source: Path, number: int) -> Sample | None:
    if not raw.strip():
        return None
    try:
        return Sample.from_dict(json.loads(raw))
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("%s:%d: skipped an unreadable sample line (%s)", source, number, exc)
        return None


def iter_samples(path: Path) -> Iterator[Sample]:
    """The samples of a samples.jsonl file in file order, read one line at a time (nothing when
    the file does not exist; blank, torn and unreadable lines are skipped)."""
    path = Path(path)
    for number, raw in _lines(path):
        sample = _parse(raw, path, number)
        if sample is not None:
            yield sample


@dataclasses.dataclass
class ResumeScan:
    """What a resume found in samples.jsonl: the line number (as read) of each finished,
    non-error sample it keeps, by key, and whether the file had to be rewritten to drop lines.
    After the scan the file holds exactly the samples kept (:class:`KeptSamples` reads them)."""

    done: dict[SampleKey, int]
    rewritten: bool = False
    dropped: int = 0


class KeptSamples(Collection[Sample]):
    """The samples a resume kept, as compact records read from samples.jsonl each time they
    are iterated (after :func:`resume_records` the file holds exactly these, one per line)."""

    def __init__(self, path: Path, count: int) -> None:
        self.path, self.count = Path(path), count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Sample]:
        for sample in iter_samples(self.path):
            yield compact(sample)

    def __contains__(self, item: object) -> bool:
        return any(sample == item for sample in self)


def resume_records(path: Path, wanted: Container[SampleKey]) -> ResumeScan:
    """Read samples.jsonl line by line for a resume: keep the last sample of each wanted key
    unless it errored; rewrite the file (atomically, streaming) only when a line must go.
    Holds a line number per key, not the samples."""
    path = Path(path)
    kept_line: dict[SampleKey, int] = {}
    lines = 0
    for number, raw in _lines(path):
        lines = number
        sample = _parse(raw, path, number)
        if sample is None:
            continue
        key = (sys.intern(sample.model), sys.intern(sample.case_id), sample.run, sample.arm)
        kept_line.pop(key, None)  # the last line of a key wins
        if key in wanted and sample.outcome != "error":
            kept_line[key] = number
    complete = _ends_with_newline(path)
    if len(kept_line) == lines and complete:
        return ResumeScan(kept_line)
    keep = set(kept_line.values())

    def chunks() -> Iterator[bytes]:
        for number, raw in _lines(path):
            if number in keep:
                yield raw if raw.endswith(b"\n") else raw + b"\n"

    atomic_write_chunks(path, chunks())
    return ResumeScan(kept_line, rewritten=True, dropped=lines - len(keep))


def _ends_with_newline(path: Path) -> bool:
    """True for an empty or missing file and one whose last byte is a newline."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            if fh.tell() == 0:
                return True
            fh.seek(-1, 2)
            return fh.read(1) == b"\n"
    except FileNotFoundError:
        return True
