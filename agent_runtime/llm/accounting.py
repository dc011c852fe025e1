"""Counters for every LLM call and every heuristic decision, per (module, agent).

All updates happen on the event loop thread between awaits, so plain integer
increments are safe. :meth:`Accounting.snapshot` is what ``metrics.json``
stores; :meth:`Accounting.summary` is the per-module table the CLI prints.

Definitions (exact, the tests rely on them):

* ``calls``: ``complete()`` invocations that reached the layer (including ones
  refused for budget); ``ok`` + ``failures`` == ``calls``.
* ``parsed`` + ``repaired`` == ``ok``: replies valid at once / only after the
  repair turn. ``shed`` + ``failed`` == ``failures``: calls given up before
  they were sent (their priority's deadline or the backlog; by
  ``<priority>:<reason>`` in ``shed_reasons``) / calls that failed otherwise
  (by error kind in ``errors``, which also counts the shed ones as ``LLMShed``).
* ``format_rejections``: requests whose ``response_format`` the endpoint
  rejected (each is resent in the next mode at once); ``attempt_errors``:
  every HTTP error or timeout of any attempt, retried or not, by kind.
* ``attempts``: HTTP requests (or model invocations) made; ``retries`` =
  attempts beyond the first of each call (transport retries, the repair retry
  and the json_schema -> json_object switch).
* ``heuristic``: decisions produced by the heuristic brain; ``fallbacks`` is
  the subset that happened because an LLM call failed (by error kind in
  ``fallback_reasons``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from agent_runtime.config.llm import DEFAULT_PRICES, ModelPrice
from agent_runtime.interfaces import LLMResult, Usage
from agent_runtime.llm.calls import CallTrace
from agent_runtime.llm.errors import LLMError, LLMShed
from agent_runtime.text_table import text_table

__all__ = ["Accounting", "CallStats", "PriceTable", "price_usage"]


def price_usage(p: ModelPrice, usage: Usage) -> float:
    """USD for ``usage`` at ``p``: cached prompt tokens at the cached-input price, the rest
    of the prompt at the input price, completion at the output price."""
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    return (
        (usage.prompt_tokens - cached) * p.input_per_mtok
        + cached * p.cached_input
        + usage.completion_tokens * p.output_per_mtok
    ) / 1_000_000


class PriceTable:
    """USD per 1M tokens by model name; unknown models cost 0 (local endpoints)."""

    def __init__(self, prices: dict[str, ModelPrice] | None = None) -> None:
        self._prices = dict(DEFAULT_PRICES if prices is None else prices)

    def price(self, model: str) -> ModelPrice | None:
        if model in self._prices:
            return self._prices[model]
        # dated snapshots ("<model>-<yyyy>-<mm>-<dd>") use the base model's price
        best = max((m for m in self._prices if model.startswith(m + "-")), key=len, default=None)
        return self._prices[best] if best is not None else None

    def cost(self, model: str, usage: Usage) -> float:
        p = self.price(model)
        if p is None:
            return 0.0
        return price_usage(p, usage)


@dataclass(slots=True)
class CallStats:
    calls: int = 0
    ok: int = 0
    failures: int = 0
    parsed: int = 0
    repaired: int = 0
    shed: int = 0
    failed: int = 0
    format_rejections: int = 0
    attempts: int = 0
    retries: int = 0
    heuristic: int = 0
    fallbacks: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0  # of prompt_tokens, from the provider's prefix cache
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s_total: float = 0.0
    latency_s_max: float = 0.0
    errors: Counter[str] = field(default_factory=Counter)
    fallback_reasons: Counter[str] = field(default_factory=Counter)
    shed_reasons: Counter[str] = field(default_factory=Counter)
    attempt_errors: Counter[str] = field(default_factory=Counter)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def fallback_share(self) -> float:
        """Share of the calls that wanted the model and got the heuristic."""
        return self.fallbacks / self.calls if self.calls else 0.0

    @property
    def model_share(self) -> float:
        """Share of all decisions (model or heuristic) the model made."""
        decisions = self.ok + self.heuristic
        return self.ok / decisions if decisions else 0.0

    def add(self, other: CallStats) -> None:
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if isinstance(mine, Counter):
                mine.update(theirs)
            elif f.name == "latency_s_max":
                self.latency_s_max = max(mine, theirs)
            else:
                setattr(self, f.name, mine + theirs)

    def as_dict(self) -> dict[str, Any]:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return {
            **{k: v for k, v in values.items() if type(v) is int},  # the counts, in field order
            "total_tokens": self.total_tokens,
            "cost_usd": round(self.cost_usd, 8),
            "latency_s_mean": round(self.latency_s_total / self.calls, 6) if self.calls else 0.0,
            "latency_s_max": round(self.latency_s_max, 6),
            **{k: dict(sorted(v.items())) for k, v in values.items() if isinstance(v, Counter)},
            "fallback_share": round(self.fallback_share, 4),
            "model_share": round(self.model_share, 4),
        }


class Accounting:
    """Call, token, cost and fallback counters keyed by (module, agent)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._stats: dict[tuple[str, str], CallStats] = {}
        self._warned: set[tuple[str, str]] = set()
        self._clock = clock
        self.first_at: float | None = None  # the first decision recorded (clock's time)

    def _get(self, module: str, agent: str) -> CallStats:
        key = (module, agent)
        s = self._stats.get(key)
        if s is None:
            s = self._stats[key] = CallStats()
            if self.first_at is None:
                self.first_at = self._clock()
        return s

    def agent_hours(self) -> float:
        """The agents that decided anything, times the hours since the first decision."""
        if self.first_at is None:
            return 0.0
        agents = len({a for _, a in self._stats})
        return agents * max(0.0, self._clock() - self.first_at) / 3600.0

    def record_success(
        self, module: str, agent: str, result: LLMResult[Any], trace: CallTrace | None = None
    ) -> None:
        s = self._get(module, agent)
        s.calls += 1
        s.ok += 1
        if trace is not None and trace.repaired:
            s.repaired += 1
        else:
            s.parsed += 1
        self._trace(s, trace)
        self._usage(s, result.attempts, result.usage, result.cost_usd, result.latency_s)

    def record_failure(
        self,
        module: str,
        agent: str,
        error: LLMError,
        *,
        cost_usd: float,
        latency_s: float,
        trace: CallTrace | None = None,
    ) -> None:
        s = self._get(module, agent)
        s.calls += 1
        s.failures += 1
        s.errors[error.kind] += 1
        if isinstance(error, LLMShed):
            s.shed += 1
            s.shed_reasons[f"{error.priority}:{error.reason}"] += 1
        else:
            s.failed += 1
        self._trace(s, trace)
        self._usage(s, error.attempts, error.usage, cost_usd, latency_s)

    @staticmethod
    def _trace(s: CallStats, trace: CallTrace | None) -> None:
        if trace is not None:
            s.format_rejections += trace.format_rejections
            s.attempt_errors.update(trace.attempt_errors)

    @staticmethod
    def _usage(s: CallStats, attempts: int, usage: Usage, cost: float, latency: float) -> None:
        s.attempts += attempts
        s.retries += max(0, attempts - 1)
        s.prompt_tokens += usage.prompt_tokens
        s.cached_tokens += usage.cached_tokens
        s.completion_tokens += usage.completion_tokens
        s.cost_usd += cost
        s.latency_s_total += latency
        s.latency_s_max = max(s.latency_s_max, latency)

    def record_heuristic(
        self, module: str, agent: str, *, fallback_from: str | None = None
    ) -> bool:
        """Count one heuristic decision.

        Returns True the first time a (module, reason) pair falls back, so the
        caller can warn once and log the rest at debug level.
        """
        s = self._get(module, agent)
        s.heuristic += 1
        if fallback_from is None:
            return False
        s.fallbacks += 1
        s.fallback_reasons[fallback_from] += 1
        key = (module, fallback_from)
        first = key not in self._warned
        self._warned.add(key)
        return first

    # --- reading -------------------------------------------------------------------

    def stats(self, *, module: str | None = None, agent: str | None = None) -> CallStats:
        """Aggregate over everything matching ``module`` and/or ``agent``."""
        total = CallStats()
        for (m, a), s in self._stats.items():
            if (module is None or m == module) and (agent is None or a == agent):
                total.add(s)
        return total

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per-module totals over all agents."""
        modules = sorted({m for m, _ in self._stats})
        return {m: self.stats(module=m).as_dict() for m in modules}

    def progress(self) -> dict[str, Any]:
        """Figures for a run's progress line: the model's share and the real errors."""
        t = self.stats()
        return {
            "llm_calls": t.calls,
            "model_decisions": t.ok,
            "heuristic_decisions": t.heuristic,
            "model_share": round(t.model_share, 4),
            "fallbacks": t.fallbacks,
            "shed": t.shed,
            "failed": t.failed,
            "attempt_errors": sum(t.attempt_errors.values()),
        }

    def progress_text(self) -> str:
        """E.g. ``model 82% of 150 decisions  fallbacks 27 (shed 20, failed 7)  http errors 3``."""
        p = self.progress()
        decisions = p["model_decisions"] + p["heuristic_decisions"]
        return (
            f"model {p['model_share']:.0%} of {decisions} decisions  "
            f"fallbacks {p['fallbacks']} (shed {p['shed']}, failed {p['failed']})  "
            f"http errors {p['attempt_errors']}"
        )

    def warnings(self, threshold: float = 0.2) -> list[str]:
        """One line per module where more than ``threshold`` of the LLM calls fell back."""
        out = []
        for module, s in sorted(self._module_stats().items()):
            if s.calls and s.fallback_share > threshold:
                reasons = ", ".join(f"{k} {v}" for k, v in s.fallback_reasons.most_common(3))
                out.append(
                    f"warning: {module}: {s.fallbacks} of {s.calls} LLM calls "
                    f"({s.fallback_share:.0%}) fell back to the heuristic ({reasons})"
                )
        return out

    def report(self) -> list[str]:
        """The end-of-run table: per module calls, parsed, repaired, shed, failed by reason."""
        rows = []
        for module, s in sorted(self._module_stats().items()):
            reasons = {f"shed {k}": v for k, v in s.shed_reasons.items()}
            reasons.update({k: v for k, v in s.errors.items() if k != "LLMShed"})
            rows.append(
                (
                    module,
                    str(s.calls),
                    str(s.parsed),
                    str(s.repaired),
                    str(s.shed),
                    str(s.failed),
                    str(s.heuristic),
                    ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) or "-",
                )
            )
        header = ("module", "calls", "parsed", "repaired", "shed", "failed", "heuristic", "reasons")
        return text_table(header, rows) + self.warnings()

    def _module_stats(self) -> dict[str, CallStats]:
        return {m: self.stats(module=m) for m in sorted({m for m, _ in self._stats})}

    def snapshot(self) -> dict[str, Any]:
        """Everything, JSON-serialisable, for ``metrics.json``."""
        by_agent: dict[str, dict[str, Any]] = {}
        for (m, a), s in sorted(self._stats.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            by_agent.setdefault(a, {})[m] = s.as_dict()
        return {
            "total": self.stats().as_dict(),
            "by_module": self.summary(),
            "by_agent": by_agent,
            "warnings": self.warnings(),
        }
