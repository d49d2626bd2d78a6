"""What tokens cost: model prices in US dollars per million tokens, and the cost of a token count.

A model's price comes from ``eval --price MODEL=IN/OUT[/CACHED]`` (an override, parsed by
:func:`parse_price`) or else from the built-in table ``upskill_hub/data/prices.json`` (read once,
when first needed; each entry names its source page and date; never fetched). The embedded
``local`` model, ``mock:`` models and any model behind an explicit ``base_url`` are unpriced
unless given: :func:`price_for` returns None, and every cost figure derived from it is None,
never 0.

:func:`cost_usd` prices a token count: ``input_tokens`` is all input (OpenAI's
``prompt_tokens`` meaning), of which ``cached_input_tokens`` are billed at the cached-input price
and ``cache_write_tokens`` at the cache-write price; each of those two falls back to the input
price when the price has none (an upper bound for cache reads, the vendor's own bill for
OpenAI, which charges no cache write).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from upskill_hub.errors import Param, UsageError

__all__ = [
    "Price",
    "builtin_prices",
    "cost_usd",
    "parse_price",
    "parse_prices",
    "price_for",
    "prices_from_json",
    "prices_to_json",
    "resolve_prices",
]

#: The ``source`` of a price given with ``--price``.
OVERRIDE_SOURCE = "--price"
_UNPRICED_KINDS = frozenset({"local", "mock", "compat"})


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens: input, output, cached input and cache write (None:
    not known; such tokens are then billed at the input price), and where the figures come
    from (a URL and date, or ``--price``)."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None
    source: str = OVERRIDE_SOURCE

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "output": self.output,
            "cached_input": self.cached_input,
            "cache_write": self.cache_write,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Price:
        def rate(key: str) -> float | None:
            value = data.get(key)
            return None if value is None else float(value)

        return cls(
            input=float(data["input"]),
            output=float(data["output"]),
            cached_input=rate("cached_input"),
            cache_write=rate("cache_write"),
            source=str(data.get("source") or ""),
        )


def _rate(text: str, spec: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise UsageError(
            Param("prices"),
            f" {spec!r}: the {what} price {text!r} is not a number of dollars per million "
            "tokens (0 or more)",
        )
    return value


def parse_price(spec: str) -> tuple[str, Price]:
    """``MODEL=IN/OUT[/CACHED]`` as (model string, price); :class:`UsageError` naming
    ``prices`` for any other form."""
    model, sep, rates = spec.rpartition("=")
    model = model.strip()
    if not sep or not model:
        raise UsageError(Param("prices"), f" {spec!r}: give MODEL=IN/OUT[/CACHED]")
    parts = rates.split("/")
    if len(parts) not in (2, 3):
        raise UsageError(
            Param("prices"),
            f" {spec!r}: give IN/OUT or IN/OUT/CACHED dollars per million tokens after '='",
        )
    names = ("input", "output", "cached-input")
    values = [_rate(p.strip(), spec, name) for p, name in zip(parts, names, strict=False)]
    return model, Price(
        input=values[0],
        output=values[1],
        cached_input=values[2] if len(values) == 3 else None,
    )


def parse_prices(specs: list[str], *, base_url: str | None = None) -> dict[str, Price]:
    """Several ``--price`` values, keyed by canonical model id (``haiku`` and
    ``anthropic:claude-haiku-...`` are one model); a model priced twice is an error."""
    from upskill_hub.errors import UnknownModelError
    from upskill_hub.evaluation.providers.resolve import canonical_model_id

    prices: dict[str, Price] = {}
    for spec in specs:
        model, price = parse_price(spec)
        try:
            key = canonical_model_id(model, base_url)
        except UnknownModelError:  # a bare name of a resumed run's --base-url server
            key = model
        if key in prices:
            raise UsageError(Param("prices"), f" prices {key} twice")
        prices[key] = price
    return prices


@lru_cache(maxsize=1)
def builtin_prices() -> dict[str, Price]:
    """The built-in table (``upskill_hub/data/prices.json``), canonical model id -> price;
    the source is the entry's URL and its date."""
    text = resources.files("upskill_hub").joinpath("data", "prices.json").read_text("utf-8")
    table = json.loads(text)["models"]
    return {
        model: Price.from_dict({**entry, "source": f"{entry['source']} ({entry['date']})"})
        for model, entry in table.items()
    }


def price_for(
    model: str, overrides: Mapping[str, Price] | None = None, *, base_url: str | None = None
) -> Price | None:
    """The price of ``model`` (a canonical id or any model string): the override given for it,
    else the built-in table's, else None. Models of the embedded, ``mock:`` and bare-name
    kinds, and any model behind ``base_url``, are priced only by an override."""
    from upskill_hub.errors import UnknownModelError
    from upskill_hub.evaluation.providers.resolve import parse_model

    try:
        parsed = parse_model(model, base_url)
    except UnknownModelError:
        key, kind = model, "compat"
    else:
        key, kind = parsed.model_id, parsed.kind
    found = (overrides or {}).get(key) or (overrides or {}).get(model)
    if found is not None:
        return found
    if base_url or kind in _UNPRICED_KINDS:
        return None
    return builtin_prices().get(key)


def resolve_prices(
    models: list[str], overrides: Mapping[str, Price] | None = None, *, base_url: str | None = None
) -> dict[str, Price | None]:
    """run.json's ``prices``: each model's :func:`price_for` (None: unpriced)."""
    return {m: price_for(m, overrides, base_url=base_url) for m in models}


def prices_to_json(prices: Mapping[str, Price | None]) -> dict[str, Any]:
    """run.json's ``prices`` object."""
    return {m: None if p is None else p.to_dict() for m, p in prices.items()}


def prices_from_json(data: Any) -> dict[str, Price | None]:
    """run.json's ``prices`` read back (anything malformed: that model unpriced; absent:
    every model unpriced)."""
    if not isinstance(data, Mapping):
        return {}
    out: dict[str, Price | None] = {}
    for model, entry in data.items():
        try:
            out[str(model)] = None if entry is None else Price.from_dict(entry)
        except (KeyError, TypeError, ValueError):
            out[str(model)] = None
    return out


def cost_usd(
    price: Price,
    *,
    input_tokens: float,
    output_tokens: float,
    cached_input_tokens: float = 0,
    cache_write_tokens: float = 0,
) -> float:
    """What the tokens cost in US dollars (see the module docstring for cached tokens)."""
    cached = price.input if price.cached_input is None else price.cached_input
    write = price.input if price.cache_write is None else price.cache_write
    plain = max(input_tokens - cached_input_tokens - cache_write_tokens, 0)
    total = (
        plain * price.input
        + cached_input_tokens * cached
        + cache_write_tokens * write
        + output_tokens * price.output
    )
    return total / 1_000_000
