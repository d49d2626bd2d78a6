"""README.md YAML metadata: parsing for repo tags and the ``validate-yaml`` endpoint."""

from __future__ import annotations

from typing import Any

import yaml


class CardMetadataError(ValueError):
    """The README's YAML block cannot be read or has fields of the wrong type."""


def split_front_matter(text: str) -> str | None:
    """The YAML block between the leading ``---`` lines, or None when there is none."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "\n".join(lines[1:i])
    return None


def card_metadata(text: str) -> dict[str, Any]:
    """The README's metadata mapping; raises :class:`CardMetadataError` when invalid."""
    block = split_front_matter(text)
    if block is None:
        return {}
    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        raise CardMetadataError(f"Invalid YAML in README.md metadata: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CardMetadataError("README.md metadata must be a YAML mapping")
    for key in ("tags", "datasets", "language", "metrics", "license"):
        value = data.get(key)
        if value is not None and not isinstance(value, str | list):
            raise CardMetadataError(f'"{key}" must be a string or a list of strings')
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise CardMetadataError(f'"{key}" must be a list of strings')
    for key in ("library_name", "pipeline_tag", "sdk"):
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise CardMetadataError(f'"{key}" must be a string')
    return data


def card_tags(metadata: dict[str, Any]) -> list[str]:
    """Repo tags derived from card metadata, the way the Hub shows them."""
    tags: list[str] = []

    def add(values: Any, prefix: str = "") -> None:
        for value in [values] if isinstance(values, str) else values or []:
            if isinstance(value, str) and f"{prefix}{value}" not in tags:
                tags.append(f"{prefix}{value}")

    add(metadata.get("tags"))
    add(metadata.get("library_name"))
    add(metadata.get("pipeline_tag"))
    add(metadata.get("language"))
    add(metadata.get("license"), "license:")
    add(metadata.get("datasets"), "dataset:")
    return tags
