"""Lazy package exports: ``from upskill_hub import evaluate`` imports the evaluation code only
then, so ``import upskill_hub`` (and the CLI's start) stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, names: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` exporting each name from its module
    (``{"evaluate": "upskill_hub.evaluation.runner"}``)."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        return sorted(names)

    return __getattr__, __dir__
