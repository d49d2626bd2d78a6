"""Trigger evals: does the model load the skill when it should, and only then?

Each query runs ``config.runs`` times per model as an agent-mode exchange: the system prompt of
agent mode listing the skill among distractor skills (sorted by name), the query as the user
message, the ``Skill`` and ``Read`` tools. A run **triggered** when the model called ``Skill``
with this skill's name; the loop stops right there (the answer is not graded), or when the
model answers, or at the turn/token limits.

The run folder (never reused) holds ``run.json`` (``"kind": "triggers"``, the settings and the
reproduce command), ``queries.json`` (the queries with their split), ``trigger_samples.jsonl``
(one :class:`TriggerSample` per line, appended as each finishes) and ``trigger_summary.json``
(:func:`upskill_hub.evaluation.triggers.rates.trigger_stats` per model). Errors after retries
are recorded on their sample (redacted) and left out of the rates.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from upskill_hub import __version__
from upskill_hub._sync import blocking
from upskill_hub.atomic_io import append_line, atomic_write_text
from upskill_hub.errors import UpskillHubError, UsageError
from upskill_hub.evaluation.agent.arms import check_tool_support, retried_turns
from upskill_hub.evaluation.agent.loop import run_agent
from upskill_hub.evaluation.agent.prompts import agent_system_prompt
from upskill_hub.evaluation.agent.settings import AgentSettings
from upskill_hub.evaluation.agent.tools import SkillFolder, Toolbox
from upskill_hub.evaluation.config import EvalConfig
from upskill_hub.evaluation.provider_pool import ProviderPool
from upskill_hub.evaluation.retry import RetriesExhausted
from upskill_hub.evaluation.run.folder import create_run_dir, utc_now
from upskill_hub.evaluation.run.info import params_dict, public_url
from upskill_hub.evaluation.run.order import run_params
from upskill_hub.evaluation.triggers.queries import TriggerQuery
from upskill_hub.evaluation.triggers.rates import TriggerSample, TriggerStats, trigger_stats
from upskill_hub.evaluation.types import Message, ToolUse
from upskill_hub.secrets import Redactor

if TYPE_CHECKING:
    from upskill_hub.evaluation.providers.base import Provider

__all__ = [
    "TRIGGER_SAMPLES_FILE",
    "TRIGGER_SUMMARY_FILE",
    "TriggerResult",
    "evaluate_triggers",
    "is_trigger_run",
    "run_trigger_eval",
]

TRIGGER_SAMPLES_FILE = "trigger_samples.jsonl"
TRIGGER_SUMMARY_FILE = "trigger_summary.json"
QUERIES_JSON = "queries.json"
_ERROR_MAX = 500


@dataclass
class TriggerResult:
    run_dir: Path
    samples: list[TriggerSample]
    stats: list[TriggerStats]
    summary: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


def is_trigger_run(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds a trigger eval (its ``trigger_summary.json``)."""
    return (Path(run_dir) / TRIGGER_SUMMARY_FILE).is_file()


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _reproduce(
    ref: str,
    queries_file: str,
    config: EvalConfig,
    split: tuple[float, int] | None,
    distractors: str | None,
) -> str:
    agent = config.agent or AgentSettings()
    argv = ["upskill-hub", "eval", ref, "--triggers", queries_file]
    for model in config.models:
        argv += ["--model", model]
    argv += ["--runs", str(config.runs)]
    p = config.params
    argv += ["--temperature", format(p.temperature, "g"), "--max-tokens", str(p.max_tokens)]
    if split is not None:
        argv += ["--split", format(split[0], "g"), "--seed", str(split[1])]
    elif p.seed is not None:
        argv += ["--seed", str(p.seed)]
    if distractors:
        argv += ["--distractors", distractors]
    argv += ["--max-turns", str(agent.max_turns), "--token-budget", str(agent.token_budget)]
    url = public_url(config.base_url)
    if url:
        argv += ["--base-url", url]
    if not config.cache:
        argv.append("--no-cache")
    return shlex.join(argv)


class _TriggerRun:
    def __init__(
        self,
        skill: SkillFolder,
        distractors: Sequence[SkillFolder],
        queries: Sequence[TriggerQuery],
        config: EvalConfig,
        pool: ProviderPool,
        samples_file: Path,
        on_sample: Callable[[TriggerSample, int, int], None] | None = None,
    ) -> None:
        self.on_sample = on_sample
        self.skill = skill
        listed = sorted([skill, *distractors], key=lambda s: s.name)
        self.listed = listed
        self.system = agent_system_prompt(listed)
        self.queries = list(queries)
        self.config = config
        self.agent = config.agent or AgentSettings()
        self.pool = pool
        self.samples_file = samples_file
        self.redact = Redactor([config.api_key])
        self.done: list[TriggerSample] = []
        self.retry = config.retry

    def _hit(self, use: ToolUse) -> bool:
        return use.tool == "Skill" and use.ok and use.input == self.skill.name

    async def one(self, provider: Provider, query: TriggerQuery, run: int) -> TriggerSample:
        messages = [Message("system", self.system), Message("user", query.query)]
        params = run_params(self.config.params, run)
        toolbox = Toolbox(self.listed, {})
        send = retried_turns(provider, messages, params, self.retry)

        try:
            trace = await run_agent(send, toolbox, self.agent, stop_when=self._hit)
        except RetriesExhausted as failed:
            error = failed.error
            text = str(error) if isinstance(error, UpskillHubError) else repr(error)
            text = self.redact(" ".join(text.split()))[:_ERROR_MAX]
            return TriggerSample(
                provider.model_id, query.id, run, False, error=text, finished_at=utc_now()
            )
        loaded = [u.input for u in trace.tool_uses if u.tool == "Skill" and u.ok]
        return TriggerSample(
            model=provider.model_id,
            query_id=query.id,
            run=run,
            triggered=any(self._hit(u) for u in trace.tool_uses),
            loaded=loaded,
            turns=trace.turns,
            input_tokens=trace.completion.usage.input_tokens,
            output_tokens=trace.completion.usage.output_tokens,
            finished_at=utc_now(),
        )

    async def run(self) -> None:
        keys = [
            (provider, query, run)
            for run in range(1, self.config.runs + 1)
            for provider in self.pool.by_spec.values()
            for query in self.queries
        ]
        queue: asyncio.Queue[tuple[Provider, TriggerQuery, int]] = asyncio.Queue()
        for key in keys:
            queue.put_nowait(key)

        async def worker() -> None:
            while not queue.empty():
                provider, query, run = queue.get_nowait()
                sample = await self.one(provider, query, run)
                line = json.dumps(sample.to_dict(), ensure_ascii=False)
                await asyncio.to_thread(append_line, self.samples_file, line)
                self.done.append(sample)
                if self.on_sample is not None:
                    self.on_sample(sample, len(self.done), len(keys))

        workers = [worker() for _ in range(min(self.config.concurrency, len(keys)))]
        await asyncio.gather(*workers)


async def run_trigger_eval(
    skill: object,
    queries: Sequence[TriggerQuery],
    distractors: Sequence[SkillFolder],
    config: EvalConfig,
    *,
    output_root: Path = Path("runs"),
    split: tuple[float, int] | None = None,
    queries_file: str = "evals/eval_queries.json",
    distractors_ref: str | None = None,
    skill_ref: str | None = None,
    providers: dict[str, Provider] | None = None,
    on_sample: Callable[[TriggerSample, int, int], None] | None = None,
) -> TriggerResult:
    """Run a trigger eval of ``skill`` (see the module docstring). ``split`` records the
    ``(train fraction, seed)`` the queries were split with; ``on_sample(sample, done, total)``
    is called in the event loop as each run finishes."""
    config.validate()
    if not queries:
        raise UsageError(f"{queries_file}: no queries")
    folder = SkillFolder.of(skill)
    pool = ProviderPool.for_config(config, providers)
    try:
        check_tool_support(pool.all(), triggers=True)
        path = create_run_dir(output_root, f"{folder.name}-triggers")
        ref = skill_ref or str(folder.path)
        agent = config.agent or AgentSettings()
        info: dict[str, Any] = {
            "format": 1,
            "kind": "triggers",
            "run_id": path.name,
            "tool": {"name": "upskill-hub", "version": __version__},
            "skill": {
                "name": folder.name,
                "description": folder.description,
                "ref": ref,
                "skill_md_sha256": "sha256:"
                + hashlib.sha256(folder.skill_md_text.encode("utf-8")).hexdigest(),
            },
            "models": pool.model_ids,
            "model_specs": list(config.models),
            "runs": config.runs,
            "params": params_dict(config.params),
            "agent": agent.to_dict(),
            "split": None if split is None else {"train_fraction": split[0], "seed": split[1]},
            "distractors": sorted(d.name for d in distractors if d.name != folder.name),
            "base_url": public_url(config.base_url),
            "cache": config.cache,
            "started_at": utc_now(),
            "finished_at": None,
            "status": "running",
            "reproduce": _reproduce(ref, queries_file, config, split, distractors_ref),
        }
        atomic_write_text(path / "run.json", _json(info))
        atomic_write_text(path / QUERIES_JSON, _json([q.to_dict() for q in queries]))
        others = [d for d in distractors if d.name != folder.name]
        run = _TriggerRun(
            folder, others, queries, config, pool, path / TRIGGER_SAMPLES_FILE, on_sample
        )
        try:
            await run.run()
            info["status"] = "complete"
        finally:
            info["finished_at"] = utc_now()
            if info["status"] == "running":
                info["status"] = "interrupted"
            atomic_write_text(path / "run.json", _json(info))
    finally:
        await pool.aclose()
    order = {q.id: i for i, q in enumerate(queries)}
    models = {m: i for i, m in enumerate(pool.model_ids)}
    samples = sorted(run.done, key=lambda s: (models[s.model], order[s.query_id], s.run))
    stats = trigger_stats(queries, samples)
    summary = {
        "format": 1,
        "kind": "triggers",
        "run_id": path.name,
        "skill": folder.name,
        "run_dir": str(path),
        "runs": config.runs,
        "samples": len(samples),
        "errors": sum(1 for s in samples if s.error is not None),
        "split": info["split"],
        "distractors": info["distractors"],
        "generated_at": utc_now(),
        "models": [m.to_dict() for m in stats],
    }
    atomic_write_text(path / TRIGGER_SUMMARY_FILE, _json(summary))
    return TriggerResult(path, samples, stats, summary)


evaluate_triggers = blocking(
    run_trigger_eval,
    "evaluate_triggers",
    """Blocking :func:`run_trigger_eval` (threads without an event loop).""",
)
