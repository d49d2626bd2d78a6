"""``json`` / ``yaml`` / ``toml``: a fenced block of that language parses and holds given keys.

Spec: ``{"type": "toml", "paths": ["general.name"]?, "require": {"kernel.*.cuda-capabilities":
"9.0"}?}`` (key paths: :mod:`.keypath`). Passes when ANY candidate block parses to a mapping or
list in which every path exists and every requirement holds for at least one value its path
reaches.

Candidate blocks: those tagged with the language (``json``; ``yaml``/``yml``; ``toml``). Only when
there is none, untagged blocks (```` ``` ```` with no info string) are tried instead; and for
``json`` only, a reply with no fenced block at all is parsed whole (JSON-mode answers). Blocks
over 200,000 characters are not parsed; YAML is loaded safely with at most 100 aliases.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from upskill_hub.evaluation.assertions.base import Assertion, CheckContext, short
from upskill_hub.evaluation.assertions.keypath import (
    PathTooWide,
    path_problems,
    resolve,
    value_matches,
)
from upskill_hub.evaluation.fenced import extract_blocks
from upskill_hub.evaluation.types import AssertionResult
from upskill_hub.json_input import parse_json

MAX_BLOCK_CHARS = 200_000
MAX_YAML_ALIASES = 100

_TAGS = {"json": {"json"}, "yaml": {"yaml", "yml"}, "toml": {"toml"}}


class _BoundedYamlLoader(yaml.SafeLoader):
    """SafeLoader that refuses documents with many aliases (billion-laughs style fan-out)."""

    aliases_seen = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self.aliases_seen += 1
            if self.aliases_seen > MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} aliases")
        return super().compose_node(parent, index)


def _parse(language: str, text: str) -> list[Any]:
    """The documents in ``text`` (YAML may hold several); raises ValueError on any failure."""
    if len(text) > MAX_BLOCK_CHARS:
        raise ValueError(f"too large to parse ({len(text)} chars, limit {MAX_BLOCK_CHARS})")
    try:
        if language == "json":
            return [parse_json(text)]
        if language == "toml":
            return [tomllib.loads(text)]
        loader = _BoundedYamlLoader(text)
        try:
            docs = []
            while loader.check_data():
                docs.append(loader.get_data())
            return docs
        finally:
            loader.dispose()
    except (ValueError, yaml.YAMLError, RecursionError) as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(message) from None


@dataclass
class _Candidate:
    label: str
    data: Any = None
    parse_error: str = ""


def _candidates(language: str, output: str) -> tuple[list[_Candidate], str]:
    """The candidate documents and, when there is none, why."""
    blocks = extract_blocks(output)
    tagged = [b for b in blocks if b.lang in _TAGS[language]]
    chosen, name = tagged, f"{language} block"
    if not tagged:
        chosen, name = [b for b in blocks if not b.lang], "untagged block"
    sources = [(f"{name} {i} (line {b.start_line})", b.code) for i, b in enumerate(chosen, 1)]
    if not blocks and language == "json" and output.strip():
        sources = [("the whole reply", output.strip())]
    if not sources:
        return [], f"no ```{language} block found"
    found: list[_Candidate] = []
    for label, text in sources:
        try:
            docs = _parse(language, text)
        except ValueError as exc:
            found.append(_Candidate(label, parse_error=f"does not parse as {language}: {exc}"))
            continue
        for n, doc in enumerate(docs, 1):
            where = f"{label} document {n}" if len(docs) > 1 else label
            if isinstance(doc, dict | list):
                found.append(_Candidate(where, data=doc))
            else:
                found.append(
                    _Candidate(
                        where, parse_error=f"is a {type(doc).__name__}, not a mapping or list"
                    )
                )
    return found, ""


def _requirement_problem(data: Any, path: str, expected: Any) -> str:
    hits = resolve(data, path)
    if not hits:
        return f"missing {path}"
    if any(value_matches(value, expected) for _, value in hits):
        return ""
    if len(hits) == 1:
        return f"{path} = {short(hits[0][1])}, expected {short(expected)}"
    shown = ", ".join(f"{where} = {short(value)}" for where, value in hits[:3])
    more = f" and {len(hits) - 3} more" if len(hits) > 3 else ""
    return f"{path}: no match equals {short(expected)} ({shown}{more})"


class Structured(Assertion):
    """Base of the three structured kinds; subclasses only name their language."""

    allowed = frozenset({"type", "paths", "require"})

    @classmethod
    def problems(cls, spec: Mapping[str, Any]) -> list[str]:
        found = super().problems(spec)
        paths = spec.get("paths", [])
        if not isinstance(paths, list):
            found.append("'paths' must be a list of key paths")
        else:
            found += [f"'paths': {p}" for path in paths for p in path_problems(path)]
        require = spec.get("require", {})
        if not isinstance(require, dict):
            found.append("'require' must be an object mapping key paths to values")
        else:
            found += [f"'require': {p}" for key in require for p in path_problems(key)]
        return found

    def _problems_in(self, data: Any) -> list[str]:
        found = [f"missing {p}" for p in self.spec.get("paths", []) if not resolve(data, p)]
        for path, expected in self.spec.get("require", {}).items():
            problem = _requirement_problem(data, path, expected)
            if problem:
                found.append(problem)
        # A path listed twice, or in both ``paths`` and ``require``, is reported once.
        return list(dict.fromkeys(found))

    async def check(self, output: str, ctx: CheckContext) -> AssertionResult:
        candidates, why_none = _candidates(self.kind, output)
        if not candidates:
            return self.result("fail", why_none)
        best: tuple[int, str] | None = None
        for cand in candidates:
            if cand.parse_error:
                ranked = (10**6, f"{cand.label} {cand.parse_error}")
            else:
                try:
                    problems = self._problems_in(cand.data)
                except PathTooWide as exc:
                    problems = [str(exc)]
                if not problems:
                    n_paths, n_req = (
                        len(self.spec.get("paths", [])),
                        len(self.spec.get("require", {})),
                    )
                    return self.result(
                        "pass",
                        f"{cand.label} parses; {n_paths} path(s) present, "
                        f"{n_req} requirement(s) met",
                    )
                ranked = (len(problems), f"{cand.label}: {'; '.join(problems)}")
            if best is None or ranked[0] < best[0]:
                best = ranked
        assert best is not None
        suffix = f" (best of {len(candidates)} candidates)" if len(candidates) > 1 else ""
        return self.result("fail", best[1] + suffix)


class Json(Structured):
    kind = "json"


class Yaml(Structured):
    kind = "yaml"


class Toml(Structured):
    kind = "toml"
