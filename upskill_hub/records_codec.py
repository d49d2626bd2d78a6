"""JSON objects to and from dataclasses, driven by ``dataclasses.fields`` and their type hints.

:func:`to_dict` writes a record's fields in declaration order, nested records as objects, then
the keys of the field marked :data:`EXTRA` (what :func:`from_dict` did not know); a field with
``metadata=OMIT_NONE`` is left out while it is None, and ``meta(key=...)`` names its JSON key.

:func:`from_dict` reads what any version of a file holds, never refusing a missing or odd value
for a type it knows: a missing key (or a non-object) gives the field's default; ``str`` takes
the default for any empty value, ``int`` / ``float`` for None, ``bool`` is ``bool(value)``;
``X | None`` is None for None; a ``dict`` that is not an object is the default (or None), as is
a ``list[dict]`` entry that is not one; ``list[str]`` items become text; nested records are read
the same way. ``meta(read=f)`` replaces all of this for one field with ``f(raw value or None)``.
Imports nothing of the package.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["EXTRA", "OMIT_NONE", "exact", "from_dict", "meta", "to_dict"]

T = TypeVar("T")


def meta(
    *, omit_none: bool = False, key: str | None = None, read: Callable[[Any], Any] | None = None
) -> dict[str, Any]:
    """``dataclasses.field(metadata=...)`` for one field: left out of the JSON while None
    (``omit_none``), written and read under another name (``key``), or read by ``read`` (given
    the raw value, None when absent)."""
    data: dict[str, Any] = {"omit_none": omit_none}
    if key is not None:
        data["key"] = key
    if read is not None:
        data["read"] = read
    return data


#: A field left out of the JSON while it is None (keys older files lack).
OMIT_NONE = meta(omit_none=True)
#: The ``dict[str, Any]`` field holding the keys the record does not know, written last.
EXTRA: dict[str, Any] = {"extra": True}


def exact(kind: type) -> Callable[[Any], Any]:
    """A ``read`` hook: the raw value when it is a ``kind``, else None."""
    return lambda value: value if isinstance(value, kind) else None


def to_dict(record: Any) -> dict[str, Any]:
    """``record`` (a dataclass instance) as the JSON object described in the module doc."""
    data: dict[str, Any] = {}
    extra: Mapping[str, Any] = {}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if f.metadata.get("extra"):
            extra = value
        elif value is not None or not f.metadata.get("omit_none"):
            data[f.metadata.get("key", f.name)] = _encode(value)
    data.update(extra)
    return data


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_dict(value)
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if isinstance(value, dict):
        return dict(value)
    return value


def from_dict(cls: type[T], data: Any) -> T:
    """A ``cls`` from a JSON object (anything else reads as ``{}``), as the module doc says."""
    data = data if isinstance(data, dict) else {}
    kwargs: dict[str, Any] = {}
    extra_field = None
    known: set[str] = set()
    for f, hint in _fields(cls):
        if f.metadata.get("extra"):
            extra_field = f.name
            continue
        key = f.metadata.get("key", f.name)
        known.add(key)
        read = f.metadata.get("read")
        if read is not None:
            kwargs[f.name] = read(data.get(key))
        elif key in data:
            kwargs[f.name] = _decode(f, hint, data[key])
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kwargs[f.name] = _default(f, hint)
    if extra_field is not None:
        kwargs[extra_field] = {k: v for k, v in data.items() if k not in known}
    return cls(**kwargs)


_FIELDS: dict[type, tuple[tuple[dataclasses.Field[Any], Any], ...]] = {}


def _fields(cls: type) -> tuple[tuple[dataclasses.Field[Any], Any], ...]:
    """``cls``'s fields with their resolved type hints (worked out once per class)."""
    found = _FIELDS.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        found = _FIELDS[cls] = tuple((f, hints[f.name]) for f in dataclasses.fields(cls))
    return found


def _default(f: dataclasses.Field[Any], hint: Any) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    _, optional = _unwrap(hint)
    return None if optional else hint()


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``, else ``(hint, False)``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1 and len(args) < len(typing.get_args(hint)):
            return args[0], True
    return hint, False


def _decode(f: dataclasses.Field[Any], hint: Any, value: Any) -> Any:
    kind, optional = _unwrap(hint)
    if optional and value is None:
        return None
    origin = typing.get_origin(kind) or kind
    if dataclasses.is_dataclass(kind):
        return from_dict(typing.cast(type, kind), value)
    if origin is dict:
        return dict(value) if isinstance(value, dict) else _default(f, hint)
    if origin is list:
        if optional and not isinstance(value, list):
            return None
        (item,) = typing.get_args(kind) or (Any,)
        return _items(item, value or [])
    if kind is str:
        return str(value) if optional or value else _default(f, hint)
    if kind is bool:
        return bool(value)
    if kind in (int, float):
        return _default(f, hint) if value is None else kind(value)
    return value


def _items(item: Any, values: Any) -> list[Any]:
    origin = typing.get_origin(item) or item
    if dataclasses.is_dataclass(item):
        return [from_dict(typing.cast(type, item), v) for v in values]
    if origin is dict:
        return [v for v in values if isinstance(v, dict)]
    if item is str:
        return [str(v) for v in values]
    return list(values)
