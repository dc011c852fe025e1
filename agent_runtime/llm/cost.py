"""The LLM bill per agent-hour: calls, tokens and dollars from :class:`Accounting` figures.

:func:`cost_table` turns per-module counters (``CallStats.as_dict()`` shapes, as in
``Accounting.summary()`` or ``metrics.json``'s ``llm.accounting.by_module``) and the
agent-hours they were spent in into per agent-hour rates, per module and in ``all``, priced
with any :class:`~agent_runtime.config.llm.ModelPrice` (cached prompt tokens at the cached
input price). :func:`per_agent_hour_lines` is the end-of-run text of ``piano run``;
:func:`window` subtracts two summaries (a measurement window inside a run).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_runtime.config.llm import DEFAULT_PRICES, ModelPrice
from agent_runtime.interfaces import Usage
from agent_runtime.llm.accounting import price_usage
from agent_runtime.text_table import text_table

__all__ = ["BENCH_PRICES", "COUNTERS", "cost_table", "per_agent_hour_lines", "usd", "window"]

#: the price table ``piano bench cost`` reports (entries of DEFAULT_PRICES)
BENCH_PRICES: tuple[str, ...] = ("gpt-4o", "gpt-4o-mini", "local")

#: the additive counters a window subtracts and a table sums
COUNTERS: tuple[str, ...] = (
    "calls",
    "ok",
    "heuristic",
    "fallbacks",
    "shed",
    "failed",
    "prompt_tokens",
    "cached_tokens",
    "completion_tokens",
)


def usd(stats: Mapping[str, Any], price: ModelPrice, *, cached: bool = True) -> float:
    """What ``stats``' tokens cost at ``price`` (``cached=False``: as if nothing had been
    served from a prefix cache)."""
    return price_usage(
        price,
        Usage(
            int(stats.get("prompt_tokens", 0)),
            int(stats.get("completion_tokens", 0)),
            int(stats.get("cached_tokens", 0)) if cached else 0,
        ),
    )


def window(
    end: Mapping[str, Mapping[str, Any]], start: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, float]]:
    """Per module, the counters (and ``cost_usd``) of ``end`` minus those of ``start``."""
    out: dict[str, dict[str, float]] = {}
    for module, stats in end.items():
        before = start.get(module, {})
        out[module] = {k: int(stats.get(k, 0)) - int(before.get(k, 0)) for k in COUNTERS}
        out[module]["cost_usd"] = float(stats.get("cost_usd", 0.0)) - float(
            before.get("cost_usd", 0.0)
        )
    return out


def _rates(
    stats: Mapping[str, Any], agent_hours: float, prices: Mapping[str, ModelPrice]
) -> dict[str, Any]:
    h = max(agent_hours, 1e-9)
    prompt, completion = int(stats.get("prompt_tokens", 0)), int(stats.get("completion_tokens", 0))
    return {
        **{k: int(stats.get(k, 0)) for k in COUNTERS},
        "calls_per_agent_hour": round(int(stats.get("calls", 0)) / h, 1),
        "prompt_tokens_per_agent_hour": round(prompt / h, 1),
        "cached_tokens_per_agent_hour": round(int(stats.get("cached_tokens", 0)) / h, 1),
        "completion_tokens_per_agent_hour": round(completion / h, 1),
        "tokens_per_agent_hour": round((prompt + completion) / h, 1),
        "usd_per_agent_hour": {name: round(usd(stats, p) / h, 4) for name, p in prices.items()},
        "usd_per_agent_hour_uncached": {
            name: round(usd(stats, p, cached=False) / h, 4) for name, p in prices.items()
        },
        # at the price of the model each call went to (what the run paid; 0 if unpriced)
        "model_usd_per_agent_hour": round(float(stats.get("cost_usd", 0.0)) / h, 4),
    }


def cost_table(
    by_module: Mapping[str, Mapping[str, Any]],
    agent_hours: float,
    prices: Mapping[str, ModelPrice] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per module and ``all``: the counters, their rates per agent-hour, and dollars per
    agent-hour for each price (default: :data:`BENCH_PRICES` of the default table)."""
    if prices is None:
        prices = {name: DEFAULT_PRICES[name] for name in BENCH_PRICES}
    table = {m: _rates(s, agent_hours, prices) for m, s in sorted(by_module.items())}
    total: dict[str, float] = {
        k: sum(int(s.get(k, 0)) for s in by_module.values()) for k in COUNTERS
    }
    total["cost_usd"] = sum(float(s.get("cost_usd", 0.0)) for s in by_module.values())
    table["all"] = _rates(total, agent_hours, prices)
    return table


def per_agent_hour_lines(table: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The end-of-run lines: per module and in all, calls, tokens (cached among them) and
    dollars per agent-hour at the price of the model each module used."""
    rows = []
    for module, r in table.items():
        rows.append(
            (
                module,
                f"{r['calls_per_agent_hour']:,.0f}",
                f"{r['tokens_per_agent_hour']:,.0f}",
                f"{r['cached_tokens_per_agent_hour']:,.0f}",
                f"{r['model_usd_per_agent_hour']:.4f}",
            )
        )
    return text_table(("per agent-hour", "calls", "tokens", "cached", "$"), rows)
