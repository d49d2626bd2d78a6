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


def schema_errors(name: str, data: Any) -> list[tuple[str, str]]:
    """``(json-path, message)`` for every way ``data`` breaks schema ``name`` (best first)."""
    validator = _validator(name)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    out: list[tuple[str, str]] = []
    for err in errors[:20]:
        where = "$" + "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path
        )
        message = err.message if len(err.message) < 200 else err.message[:197] + "..."
        out.append((where, message))
    return out
