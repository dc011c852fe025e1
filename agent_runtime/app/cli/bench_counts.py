"""Figures the runtime benches count alike, in one process (:mod:`.bench_runtime`) or over
workers (:mod:`.bench_workers`): cadence errors, module errors by kind, Redis commands."""

from __future__ import annotations

from typing import Any

__all__ = ["cadence_errors", "count_errors", "error_kind", "redis_commands"]


def cadence_errors(
    achieved: dict[str, float], expected: dict[str, float]
) -> tuple[dict[str, float], float]:
    """Timed steps achieved vs expected: the signed error per module (%) and the overall
    absolute error (%) over every cadenced module."""
    per_module = {
        name: round(100 * (achieved.get(name, 0.0) - exp) / exp, 2) if exp else 0.0
        for name, exp in expected.items()
    }
    total_exp = sum(expected.values())
    total_got = sum(achieved.get(name, 0.0) for name in expected)
    overall = round(100 * abs(total_got - total_exp) / total_exp, 2) if total_exp else 0.0
    return per_module, overall


def error_kind(record: dict[str, Any]) -> str:
    """``module: ExceptionType`` of a ``module_error`` event (the message varies per agent)."""
    return f"{record.get('module', '?')}: {str(record.get('error', '?')).split(':', 1)[0]}"


def count_errors(records: Any, since: float, until: float) -> dict[str, int]:
    """Module errors by kind among event ``records`` stamped within [since, until]."""
    out: dict[str, int] = {}
    for r in records:
        if r.get("type") == "module_error" and since <= float(r.get("t", 0)) <= until:
            kind = error_kind(r)
            out[kind] = out.get(kind, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


async def redis_commands(redis: Any) -> int:
    """Commands the redis-server processed so far (every client: state, memory, workers)."""
    if redis is None:
        return 0
    info = await redis.info("stats")
    return int(info.get("total_commands_processed", 0))
