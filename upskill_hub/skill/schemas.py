"""The project's JSON Schemas (``schemas/*.schema.json``) and validation against them."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

_REPO_SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def schemas_dir() -> Path:
    """Where the schemas live: packaged in the wheel, or the repository's ``schemas/``."""
    packaged = Path(str(resources.files("upskill_hub"))) / "_schemas"
    return packaged if packaged.is_dir() else _REPO_SCHEMAS


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Load ``schemas/<name>.schema.json``."""
    path = schemas_dir() / f"{name}.schema.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    resources_: list[tuple[str, Resource[Any]]] = []
    for path in sorted(schemas_dir().glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resource = Resource.from_contents(schema)
        resources_.append((path.name, resource))
        if "$id" in schema:
            resources_.append((schema["$id"], resource))
    registry: Registry[Any] = Registry().with_resources(resources_)
    return Draft202012Validator(load_schema(name), registry=registry)


def _specific(error: Any) -> Any:
    """For a oneOf/anyOf failure ("not valid under any of the given schemas"), the error of the
    alternative the data was meant for: alternatives whose discriminator (``type`` const or the
    JSON type at that place) does not match are set aside, then the deepest error wins."""
    if not error.context:
        return error
    by_branch: dict[Any, list[Any]] = {}
    for sub in error.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)

    def mismatched(subs: list[Any]) -> bool:
        return any(
            (sub.validator in ("const", "enum") and list(sub.path)[-1:] == ["type"])
            or (sub.validator == "type" and list(sub.absolute_path) == list(error.absolute_path))
            for sub in subs
        )

    branches = [subs for subs in by_branch.values() if not mismatched(subs)]
    pool = [sub for subs in (branches or list(by_branch.values())) for sub in subs]
    return _specific(max(pool, key=lambda sub: len(sub.absolute_path)))


def schema_errors(name: str, data: Any) -> list[tuple[str, str]]:
    """``(json-path, message)`` for every way ``data`` breaks schema ``name`` (best first)."""
    validator = _validator(name)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    out: list[tuple[str, str]] = []
    for top in errors[:20]:
        err = _specific(top)
        where = "$" + "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path
        )
        message = err.message if len(err.message) < 200 else err.message[:197] + "..."
        out.append((where, message))
    return out
