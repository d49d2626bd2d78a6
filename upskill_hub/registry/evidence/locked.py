"""The evidence a lock entry remembers: the published lift a skill was installed on.

One :class:`LockedEvidence` per model (results dataset and split, the skill commit measured,
lift and its 95% interval, cases, runs, mode). Optional in ``upskill-hub.lock``: entries
without it load as before, and ``install --frozen`` does not compare it (it describes the
commit, it does not pin anything).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclass(frozen=True)
class LockedEvidence:
    """One model's lift as published for the locked skill (fractions: 0.33 is +33 pts)."""

    model: str
    dataset: str
    split: str
    commit: str | None
    lift: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    cases: int | None = None
    runs: int | None = None
    mode: str = "inline"

    def to_json(self) -> dict[str, Any]:
        ci = None if self.ci_low is None or self.ci_high is None else [self.ci_low, self.ci_high]
        return {
            "model": self.model,
            "dataset": self.dataset,
            "split": self.split,
            "commit": self.commit,
            "lift": self.lift,
            "lift_ci95": ci,
            "cases": self.cases,
            "runs": self.runs,
            "mode": self.mode,
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> LockedEvidence:
        """Parse one entry; a wrong shape is a ValueError naming ``where``."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where} must be an object")
        for key in ("model", "dataset", "split"):
            if not isinstance(data.get(key), str) or not data[key]:
                raise ValueError(f"{where}.{key} must be a non-empty string")
        commit = data.get("commit")
        if commit is not None and not (isinstance(commit, str) and _COMMIT.fullmatch(commit)):
            raise ValueError(f"{where}.commit must be a 40-character hex commit sha or null")
        ci = data.get("lift_ci95")
        if ci is not None and not (isinstance(ci, list) and len(ci) == 2):
            raise ValueError(f"{where}.lift_ci95 must be [low, high] or null")
        low, high = ci if ci is not None else (None, None)
        mode = data.get("mode", "inline")
        if not isinstance(mode, str):
            raise ValueError(f"{where}.mode must be a string")
        return cls(
            model=data["model"],
            dataset=data["dataset"],
            split=data["split"],
            commit=commit,
            lift=_number(data.get("lift"), f"{where}.lift"),
            ci_low=_number(low, f"{where}.lift_ci95"),
            ci_high=_number(high, f"{where}.lift_ci95"),
            cases=_count(data.get("cases"), f"{where}.cases"),
            runs=_count(data.get("runs"), f"{where}.runs"),
            mode=mode,
        )


def evidence_from_json(data: Any, where: str) -> list[LockedEvidence]:
    """A lock entry's ``evidence`` list (absent: empty)."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise ValueError(f"{where} must be a list")
    return [LockedEvidence.from_json(e, f"{where}[{i}]") for i, e in enumerate(data)]


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where} must be a number or null")
    return float(value)


def _count(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where} must be a whole number or null")
    return value
