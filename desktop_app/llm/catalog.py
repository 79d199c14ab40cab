"""The model catalog: context windows, output limits, thinking support and prices of the models Arbor knows.

Why it exists: the context meter and auto-compaction need each model's context window (pi-spec §5.4),
the Anthropic provider needs output limits and whether a model takes a thinking budget, and every
assistant message written to a session carries ``usage.cost`` in USD, as pi writes it.

Prices are Anthropic's published **list prices in US dollars per million tokens (MTok)** for the
standard tier: base input, output, cache hits (``cacheRead``) and 5-minute cache writes (``cacheWrite``,
1.25 × input; Arbor only asks for the default 5-minute cache). They were read from Anthropic's pricing
page; batch, priority-tier, long-context (> 200k) and data-residency multipliers are not modelled.

Entries are :class:`CatalogModel`, a subclass of the protocol's :class:`~desktop_app.llm.protocol.ModelInfo`,
so a catalog entry can be handed to anything that expects a ``ModelInfo``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from .offline import OFFLINE_MODEL
from .protocol import ModelInfo

__all__ = [
    "ANTHROPIC_API",
    "CATALOG",
    "CatalogModel",
    "DEFAULT_MODEL_ID",
    "cost",
    "get_model",
    "list_models",
]

ANTHROPIC_API = "anthropic-messages"
DEFAULT_MODEL_ID = "claude-sonnet-4-5"


@dataclass(frozen=True)
class CatalogModel(ModelInfo):
    """One model: pi's ``Model`` fields Arbor uses, plus a display name.

    ``max_tokens`` is the model's maximum output (``max_output`` is an alias). Costs are USD per MTok.
    ``adaptive_thinking`` marks models for which Anthropic recommends ``thinking: {type: "adaptive"}``
    with an effort level instead of a fixed budget. ``unknown`` marks the fallback entry made up for an
    id the catalog does not list (zero cost, 200k window), so the UI can say the cost is unknown.
    """

    name: str = ""
    adaptive_thinking: bool = False
    unknown: bool = False

    @property
    def max_output(self) -> int:
        return self.max_tokens


def _claude(
    model_id: str,
    name: str,
    *,
    max_output: int,
    prices: tuple[float, float, float, float],
    reasoning: bool = True,
    adaptive: bool = False,
) -> CatalogModel:
    """prices = (input, output, cache read, cache write) in USD per MTok."""
    cost_input, cost_output, cost_cache_read, cost_cache_write = prices
    return CatalogModel(
        id=model_id,
        provider="anthropic",
        api=ANTHROPIC_API,
        context_window=200_000,
        max_tokens=max_output,
        reasoning=reasoning,
        input=("text", "image"),
        cost_input=cost_input,
        cost_output=cost_output,
        cost_cache_read=cost_cache_read,
        cost_cache_write=cost_cache_write,
        name=name,
        adaptive_thinking=adaptive,
    )


_MODELS: tuple[CatalogModel, ...] = (
    _claude(
        "claude-opus-4-6", "Claude Opus 4.6", max_output=128_000, prices=(5, 25, 0.5, 6.25), adaptive=True
    ),
    _claude(
        "claude-sonnet-4-6", "Claude Sonnet 4.6", max_output=64_000, prices=(3, 15, 0.3, 3.75), adaptive=True
    ),
    _claude("claude-opus-4-5", "Claude Opus 4.5", max_output=64_000, prices=(5, 25, 0.5, 6.25)),
    _claude("claude-sonnet-4-5", "Claude Sonnet 4.5", max_output=64_000, prices=(3, 15, 0.3, 3.75)),
    _claude("claude-haiku-4-5", "Claude Haiku 4.5", max_output=64_000, prices=(1, 5, 0.1, 1.25)),
    _claude("claude-opus-4-1", "Claude Opus 4.1", max_output=32_000, prices=(15, 75, 1.5, 18.75)),
    _claude(
        "claude-3-5-haiku-latest",
        "Claude Haiku 3.5",
        max_output=8_192,
        prices=(0.8, 4, 0.08, 1),
        reasoning=False,
    ),
    # The embedded offline model (desktop_app.llm.offline): same ids as the messages it writes, free.
    CatalogModel(**dataclasses.asdict(OFFLINE_MODEL), name="Offline (no network)"),
)

CATALOG: Mapping[str, CatalogModel] = {m.id: m for m in _MODELS}

# "claude-sonnet-4-5-20250929" is the dated snapshot behind the "claude-sonnet-4-5" alias.
_DATE_SUFFIX = re.compile(r"-\d{8}$")


def list_models(provider: str | None = None) -> list[CatalogModel]:
    """The catalog in display order (newest first), optionally for one provider."""
    return [m for m in _MODELS if provider is None or m.provider == provider]


def get_model(model_id: str, provider: str = "anthropic") -> CatalogModel:
    """The catalog entry for ``model_id``; never raises.

    A dated snapshot id (``claude-haiku-4-5-20251001``) resolves to its alias's entry but keeps the id
    it was asked for, since that id is what goes into the assistant messages. Any other id gets a
    fallback entry flagged ``unknown``: a 200k window (the common Claude window, so compaction still
    triggers sensibly), 32k output, zero cost, and thinking support assumed for ``claude-*`` ids only.
    """
    entry = CATALOG.get(model_id)
    if entry is not None:
        return entry
    undated = _DATE_SUFFIX.sub("", model_id)
    entry = CATALOG.get(undated)
    if entry is not None:
        return dataclasses.replace(entry, id=model_id)
    return CatalogModel(
        id=model_id,
        provider=provider,
        api=ANTHROPIC_API if provider == "anthropic" else provider,
        context_window=200_000,
        max_tokens=32_000,
        reasoning=model_id.startswith("claude-"),
        input=("text", "image"),
        name=model_id,
        unknown=True,
    )


def cost(usage: MutableMapping[str, Any], model: ModelInfo) -> dict[str, float]:
    """Fill pi's ``usage["cost"]`` (USD) from the token counts and the model's per-MTok prices.

    Same arithmetic as pi-ai's ``calculateCost``: each part is ``(price / 1_000_000) * tokens`` and
    ``total`` is input + output + cacheRead + cacheWrite summed in that order, so the floats written to
    session files are the ones pi would write. Returns the cost object (also stored in ``usage``).
    """
    parts = {
        "input": (model.cost_input / 1_000_000) * _count(usage, "input"),
        "output": (model.cost_output / 1_000_000) * _count(usage, "output"),
        "cacheRead": (model.cost_cache_read / 1_000_000) * _count(usage, "cacheRead"),
        "cacheWrite": (model.cost_cache_write / 1_000_000) * _count(usage, "cacheWrite"),
    }
    parts["total"] = parts["input"] + parts["output"] + parts["cacheRead"] + parts["cacheWrite"]
    usage["cost"] = parts
    return parts


def _count(usage: Mapping[str, Any], key: str) -> float:
    value = usage.get(key, 0)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
