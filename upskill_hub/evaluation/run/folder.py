"""The run folder: everything one eval wrote, readable by publish and the Space.

Layout (``FORMAT_VERSION`` 1)::

    runs/20261122-013045-<skill>-<6 hex>/     unique per run; never reused unless resumed
      run.json        what was asked (``records.RunInfo``): run_id, skill {name, path,
                      repo_id, revision, skill_md_sha256}, models (canonical ids), runs,
                      arms, case_ids, params {temperature, max_tokens, seed, timeout},
                      retries, concurrency, base_url (credentials stripped), judge_model,
                      tool {name, version},
                      started_at, finished_at, status (running | complete | cancelled |
                      interrupted; still "running" after a kill), sessions [{started_at,
                      finished_at, samples}], reproduce (the exact command to run the same eval
                      again), resume (the command to finish this one). Never an API key.
      tests.json      the exact cases used, canonical test-file form ({"metadata", "tests"}),
                      readable by ``upskill_hub.skill.testcases.read_suite``.
      samples.jsonl   one ``Sample.to_dict()`` per line, appended as samples finish (one write
                      and one fsync per group of lines, on disk before a sample is reported
                      done). At most one line per key (model, case_id, run, arm) once a run
                      or resume session ends; a truncated last line (after a kill) is ignored,
                      and dropped by the next resume.
      summary.json    written atomically at the end of each session
                      (``records.RunSummary``): {"format", "run_id",
                      "skill", "revision", "run_dir", "complete", "cancelled", "samples",
                      "expected_samples", "errors", "skipped_assertions", "generated_at",
                      "models": [ModelStats.to_dict(), ...]}.
      lift.png        baseline vs with-skill pass rate per model with 95% CI error bars.
      frontier.png    pass rate against cost per passed case per model and arm; written only
                      when at least one arm is priced
                      (:mod:`upskill_hub.evaluation.report.frontier_chart`).
      benchmark.json  the run in the agentskills.io guide's format
                      (:mod:`upskill_hub.evaluation.run.benchmark_json`).

All times are UTC ISO 8601 (``2026-11-22T01:30:45Z``). Every file but samples.jsonl is written
atomically (temp file + rename); samples.jsonl is append-only between resume compactions, which
rewrite it atomically, and only when a line must go (:func:`.samples.resume_records`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import re
import secrets
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from upskill_hub.atomic_io import append_lines, atomic_write_text
from upskill_hub.errors import UsageError
from upskill_hub.evaluation.run.records import RunInfo, RunSummary
from upskill_hub.evaluation.types import Sample, SampleKey
from upskill_hub.skill.testcases import TestCase, TestSuite, dump_suite, read_suite

FORMAT_VERSION = 1
RUN_FILE = "run.json"
TESTS_FILE = "tests.json"
SAMPLES_FILE = "samples.jsonl"
SUMMARY_FILE = "summary.json"
CHART_FILE = "lift.png"
FRONTIER_CHART_FILE = "frontier.png"


def utc_now() -> str:
    """The current UTC time as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _name_part(skill_name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", skill_name.lower()).strip("-")
    return slug[:48].strip("-") or "skill"


def create_run_dir(output_root: Path, skill_name: str, *, now: datetime | None = None) -> Path:
    """Create and return a new, empty run folder under ``output_root``; never reuses one."""
    output_root = Path(output_root)
    output_root.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    for _ in range(100):
        path = output_root / f"{stamp}-{_name_part(skill_name)}-{secrets.token_hex(3)}"
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise UsageError(f"{output_root}: cannot create a unique run folder")  # pragma: no cover


def _json_text(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: not found (is {path.parent} a run folder?)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: unreadable ({exc.__class__.__name__})") from None


def read_samples(path: Path) -> list[Sample]:
    """The samples of a samples.jsonl file in file order ([] when it does not exist), read line
    by line (:func:`.samples.iter_samples` streams them without the list)."""
    from upskill_hub.evaluation.run.samples import iter_samples

    return list(iter_samples(Path(path)))


def latest_by_key(samples: list[Sample]) -> dict[SampleKey, Sample]:
    """One sample per key: the last one written wins."""
    latest: dict[SampleKey, Sample] = {}
    for sample in samples:
        latest[sample.key] = sample
    return latest


@dataclass
class RunFolder:
    """Paths and readers/writers of one run folder."""

    path: Path

    def __post_init__(self) -> None:
        self.path = Path(self.path)

    @property
    def run_file(self) -> Path:
        return self.path / RUN_FILE

    @property
    def tests_file(self) -> Path:
        return self.path / TESTS_FILE

    @property
    def samples_file(self) -> Path:
        return self.path / SAMPLES_FILE

    @property
    def summary_file(self) -> Path:
        return self.path / SUMMARY_FILE

    @property
    def frontier_chart_file(self) -> Path:
        return self.path / FRONTIER_CHART_FILE

    @property
    def chart_file(self) -> Path:
        return self.path / CHART_FILE

    def write_info(self, info: RunInfo) -> None:
        atomic_write_text(self.run_file, _json_text(info.to_dict()))

    def read_info(self) -> RunInfo:
        data = _read_json(self.run_file)
        if not isinstance(data, dict):
            raise UsageError(f"{self.run_file}: not a run description")
        try:
            return RunInfo.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{self.run_file}: not a run description ({exc})") from None

    def write_tests(self, cases: list[TestCase], metadata: dict[str, Any] | None = None) -> None:
        atomic_write_text(self.tests_file, dump_suite(TestSuite(list(cases), dict(metadata or {}))))

    def read_tests(self) -> list[TestCase]:
        if not self.tests_file.exists():
            raise UsageError(f"{self.tests_file}: not found (is {self.path} a run folder?)")
        return read_suite(self.tests_file).cases

    def read_samples(self) -> list[Sample]:
        return read_samples(self.samples_file)

    def rewrite_samples(self, samples: list[Sample]) -> None:
        """Replace samples.jsonl atomically (used when a resume drops errored samples)."""
        text = "".join(json.dumps(s.to_dict(), ensure_ascii=False) + "\n" for s in samples)
        atomic_write_text(self.samples_file, text)

    def write_summary(self, summary: RunSummary) -> None:
        atomic_write_text(self.summary_file, _json_text(summary.to_dict()))

    def read_summary(self) -> RunSummary | None:
        if not self.summary_file.exists():
            return None
        data = _read_json(self.summary_file)
        if not isinstance(data, dict):
            return None
        try:
            return RunSummary.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{self.summary_file}: not a run summary ({exc})") from None


@dataclass
class RunRecord:
    """A run folder read back: what publish and the Space consume."""

    folder: RunFolder
    info: RunInfo
    cases: list[TestCase]
    samples: list[Sample] = field(default_factory=list)
    summary: RunSummary | None = None


def load_run(path: Path) -> RunRecord:
    """Read a run folder (samples de-duplicated by key, the last one wins)."""
    folder = RunFolder(Path(path))
    info = folder.read_info()
    cases = folder.read_tests()
    samples = list(latest_by_key(folder.read_samples()).values())
    return RunRecord(folder, info, cases, samples, folder.read_summary())


_STOP = object()


class SampleLog:
    """Appends samples to samples.jsonl from a background thread, one write and one fsync per
    group of lines (a group commit).

    :meth:`append` never blocks the event loop and cannot be interrupted half-way (it only
    queues the line), so a cancelled task never loses a finished sample; it returns the line's
    number, and ``await`` :meth:`durable` returns once that line is on disk (the session reports
    a sample done only then, and its workers wait there, so no more lines than workers are ever
    queued). :meth:`close` waits until every queued line is on disk. The first write error is
    re-raised by :meth:`durable` and :meth:`close`.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._error: OSError | None = None
        self._closed = False
        self._queued = 0
        self._written = 0  # lines on disk (only the writer thread changes it)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiters: deque[tuple[int, asyncio.Future[None]]] = deque()
        self._thread = threading.Thread(target=self._drain, name="samples-jsonl", daemon=True)
        self._thread.start()

    def append(self, sample: Sample) -> int:
        """Queue ``sample`` for disk; returns its line number in this log (from 1)."""
        if self._closed:
            raise RuntimeError("SampleLog is closed")
        self._queue.put(json.dumps(sample.to_dict(), ensure_ascii=False))
        self._queued += 1
        return self._queued

    async def durable(self, line: int) -> None:
        """Return once line number ``line`` (from :meth:`append`) is on disk."""
        if self._error is not None:
            raise self._error
        if self._written >= line:
            return
        self._loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = self._loop.create_future()
        self._waiters.append((line, future))
        self._wake()  # the writer may have finished the line in between
        await future

    def _wake(self) -> None:
        """In the event loop: resolve the waiters whose lines are on disk (or the error)."""
        while self._waiters and (self._error is not None or self._waiters[0][0] <= self._written):
            _, future = self._waiters.popleft()
            if future.done():
                continue
            if self._error is not None:
                future.set_exception(self._error)
            else:
                future.set_result(None)

    def _notify(self) -> None:
        loop = self._loop
        if loop is not None and self._waiters:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                loop.call_soon_threadsafe(self._wake)

    def _drain(self) -> None:
        stop = False
        while not stop:
            # every line queued by now goes in one write and one fsync (a group commit): no
            # line reaches the disk later than it would one fsync at a time, and a slow disk
            # cannot fall behind the samples and keep the run waiting at its end
            lines: list[str] = []
            item = self._queue.get()
            while True:
                if item is _STOP:
                    stop = True
                    break
                lines.append(str(item))
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            if lines and self._error is None:
                try:
                    append_lines(self.path, lines)
                    self._written += len(lines)
                except OSError as exc:
                    self._error = exc
            self._notify()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._queue.put(_STOP)
        self._thread.join()
        if self._error is not None:
            raise self._error
