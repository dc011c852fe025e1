"""Metric functions shared by the experiments (pure functions over plain data, no I/O).

- :func:`shannon_entropy` of a role distribution (bits by default);
- :func:`pearson` r with the least-squares slope and intercept; :func:`spearman` rank r;
- :func:`count_matrix`, :func:`normalise_rows`, :func:`normalise_cols` for the
  action-by-role frequency matrix (the paper's figure 9);
- :func:`persistence` of a label sequence (share of consecutive samples that keep the label);
- :func:`deposit_share` of an inventory and :func:`mean_ci` (Student-t confidence interval);
  the distributions and correlations are ``scipy.stats``'s;
- :func:`commitment`: decisions cancelled per agent-hour and deposit skills started /
  finished / cancelled, from a run's events.

Undefined results are ``nan`` (never an exception), so reports can say "n/a".
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats

__all__ = [
    "CI",
    "Fit",
    "count_matrix",
    "deposit_share",
    "mean_ci",
    "normalise_cols",
    "normalise_rows",
    "pearson",
    "persistence",
    "shannon_entropy",
    "spearman",
    "t_quantile",
]

Matrix = npt.NDArray[np.float64]


def shannon_entropy(counts: Mapping[str, float] | Sequence[float], base: float = 2.0) -> float:
    """Entropy of a distribution given as counts (or weights); 0 for a single category."""
    values = list(counts.values()) if isinstance(counts, Mapping) else list(counts)
    arr = np.asarray([v for v in values if v > 0], dtype=np.float64)
    if arr.size == 0:
        return math.nan
    p = arr / arr.sum()
    h = float(-(p * np.log(p)).sum() / math.log(base))
    return abs(h)  # -0.0 -> 0.0


@dataclass(frozen=True, slots=True)
class Fit:
    r: float
    slope: float
    intercept: float
    n: int


def _finite_pairs(
    x: Sequence[float], y: Sequence[float]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length ({len(x)} vs {len(y)})")
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    ok = np.isfinite(xa) & np.isfinite(ya)
    return xa[ok], ya[ok]


def _constant(v: npt.NDArray[np.float64]) -> bool:
    return bool(np.all(v == v[0]))


def pearson(x: Sequence[float], y: Sequence[float]) -> Fit:
    """Pearson correlation of paired samples plus the least-squares line ``y = slope*x + b``
    (``scipy.stats.linregress``); nan where undefined (fewer than two pairs, a constant side)."""
    xa, ya = _finite_pairs(x, y)
    n = int(xa.size)
    if n < 2 or _constant(xa):
        return Fit(math.nan, math.nan, math.nan, n)
    fit = stats.linregress(xa, ya)
    r = math.nan if _constant(ya) else float(fit.rvalue)
    return Fit(r, float(fit.slope), float(fit.intercept), n)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation of paired samples (``scipy.stats.spearmanr``: ties share
    their average rank); nan when fewer than two finite pairs or a constant side."""
    xa, ya = _finite_pairs(x, y)
    if xa.size < 2 or _constant(xa) or _constant(ya):
        return math.nan
    return float(stats.spearmanr(xa, ya).statistic)


def count_matrix(
    pairs: Iterable[tuple[str, str]],
    rows: Sequence[str] | None = None,
    cols: Sequence[str] | None = None,
) -> tuple[list[str], list[str], Matrix]:
    """Counts of (row, col) pairs, e.g. (role, action); labels sorted unless given."""
    counter = Counter(pairs)
    r = list(rows) if rows is not None else sorted({a for a, _ in counter})
    c = list(cols) if cols is not None else sorted({b for _, b in counter})
    m = np.zeros((len(r), len(c)), dtype=np.float64)
    ri = {k: i for i, k in enumerate(r)}
    ci = {k: i for i, k in enumerate(c)}
    for (a, b), n in counter.items():
        if a in ri and b in ci:
            m[ri[a], ci[b]] = n
    return r, c, m


def normalise_rows(m: npt.ArrayLike) -> Matrix:
    """Each row sums to 1 (rows of zeros stay zero)."""
    a = np.asarray(m, dtype=np.float64)
    s = a.sum(axis=1, keepdims=True)
    out: Matrix = np.divide(a, s, out=np.zeros_like(a), where=s > 0)
    return out


def normalise_cols(m: npt.ArrayLike) -> Matrix:
    """Each column sums to 1 (columns of zeros stay zero)."""
    a = np.asarray(m, dtype=np.float64)
    s = a.sum(axis=0, keepdims=True)
    out: Matrix = np.divide(a, s, out=np.zeros_like(a), where=s > 0)
    return out


def persistence(labels: Sequence[str | None]) -> float:
    """Share of consecutive (defined) samples whose label did not change; nan if < 2."""
    seq = [x for x in labels if x]
    if len(seq) < 2:
        return math.nan
    same = sum(1 for a, b in itertools.pairwise(seq) if a == b)
    return same / (len(seq) - 1)


def deposit_share(deposited: float, inventory_total: float) -> float:
    """Deposited items as a share of the inventory held when the season opened (0..1)."""
    if inventory_total <= 0:
        return math.nan
    return max(0.0, min(1.0, deposited / inventory_total))


def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t distribution (``scipy.stats.t.ppf``)."""
    if not 0 < p < 1:
        raise ValueError("p must be in (0, 1)")
    return float(stats.t.ppf(p, df))


@dataclass(frozen=True, slots=True)
class CI:
    mean: float
    lo: float
    hi: float
    n: int


def mean_ci(
    values: Iterable[float], confidence: float = 0.95, clip: tuple[float, float] | None = None
) -> CI:
    """Mean with a Student-t confidence interval; nan bounds when fewer than 2 values.
    ``clip`` bounds the interval to the quantity's range (e.g. (0, 1) for shares)."""
    arr = np.asarray([v for v in values if math.isfinite(v)], dtype=np.float64)
    n = int(arr.size)
    if n == 0:
        return CI(math.nan, math.nan, math.nan, 0)
    mean = float(arr.mean())
    if n < 2:
        return CI(mean, math.nan, math.nan, 1)
    sem = float(arr.std(ddof=1)) / math.sqrt(n)
    half = t_quantile(0.5 + confidence / 2, n - 1) * sem
    lo, hi = mean - half, mean + half
    if clip is not None:
        lo, hi = max(clip[0], lo), min(clip[1], hi)
    return CI(mean, lo, hi, n)


def commitment(events: Iterable[Mapping[str, Any]], agents: int, wall_s: float) -> dict[str, Any]:
    """How well the controllers kept their word in one run, from the run's events: decisions
    cancelled (per agent-hour, by reason), deposit skills started / finished / cancelled, and
    every skill the body ended as cancelled, by what stopped it (``skill_outcome``'s
    ``superseded_by`` is the decision that replaced it): ``preempted`` (an urgent perceived
    reason; then ``resumed``, found done, or ``abandoned``), ``idle_ended`` (an idle wait ended
    by a perceived reason), ``cancelled`` (the controller dropped it), ``not_by_controller``
    (no replacing decision: a stop, the body's own timeout). ``controller_cancelled`` =
    cancelled + abandoned: the skills the controller did not carry out as decided."""
    events = list(events)
    cancelled: Counter[str] = Counter()
    skills_cancelled = 0
    deposits = {"started": 0, "succeeded": 0, "failed": 0, "cancelled": 0}
    preempt_by = {str(e.get("decision")) for e in events if e.get("type") == "skill_preempted"}
    idle_by = {str(e.get("decision")) for e in events if e.get("type") == "idle_ended"}
    ended_as: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    for e in events:
        kind = e.get("type")
        skill = (e.get("call") or {}).get("skill")
        if kind == "decision_cancelled":
            cancelled[str(e.get("reason") or e.get("why") or "?")] += 1
            if e.get("reason") == "abandoned":
                ended_as["abandoned"] += 1
                by_kind.setdefault(str((e.get("running") or {}).get("skill")), Counter())[
                    "abandoned"] += 1
        elif kind in ("skill_resumed", "preempted_done"):
            ended_as["resumed" if kind == "skill_resumed" else "done_before_resume"] += 1
        elif kind == "skill_started" and skill == "deposit":
            deposits["started"] += 1
        elif kind == "skill_outcome":
            if e.get("cancelled"):
                skills_cancelled += 1
                by = str(e.get("superseded_by") or "")
                how = ("not_by_controller" if not by else "preempted" if by in preempt_by
                       else "idle_ended" if by in idle_by else "cancelled")
                ended_as[how] += 1
                by_kind.setdefault(str(skill), Counter())[how] += 1
            if skill == "deposit":
                key = ("succeeded" if e.get("success")
                       else "cancelled" if e.get("cancelled") else "failed")
                deposits[key] += 1
    hours = agents * wall_s / 3600.0
    n = sum(cancelled.values())
    by_controller = ended_as["cancelled"] + ended_as["abandoned"]
    return {
        "agent_hours": round(hours, 4),
        "decisions_cancelled": n,
        "decisions_cancelled_per_agent_hour": n / hours if hours > 0 else math.nan,
        "cancelled_by_reason": dict(cancelled),
        "skills_cancelled": skills_cancelled,
        "skills_cancelled_per_agent_hour": skills_cancelled / hours if hours > 0 else math.nan,
        "skills_ended_as": dict(ended_as),
        "skills_ended_by_kind": {k: dict(c) for k, c in sorted(by_kind.items())},
        "controller_cancelled": by_controller,
        "controller_cancelled_per_agent_hour": by_controller / hours if hours > 0 else math.nan,
        "deposits": deposits,
    }
