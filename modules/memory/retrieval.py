"""Retrieval scoring of Generative Agents, vectorised over all candidates.

For every candidate memory *i* and a query at game time ``now`` (hours)::

    recency_i    = decay ** max(0, now - last_accessed_i)     # paper: decay 0.995 / game hour
    importance_i = importance rating, 1..10
    relevance_i  = cos(embedding_i, query)                   # 0 for a zero vector

Each component is min-max normalised over the candidate set,
``(x - min) / (max - min)``. **When a component is constant over the
candidates (``max - min <= 1e-12``, e.g. a single candidate) every candidate
gets 0.5 for it**: a component without spread carries no information, so it
adds the same amount to every score and cannot change the ranking; 0.5 is the
neutral middle of [0, 1]. Then::

    score_i = w_rec * recency_i + w_imp * importance_i + w_rel * relevance_i

with ``weights = (w_rec, w_imp, w_rel)`` in that order (paper: 1, 1, 1; the
public Smallville code used recency 0.5, importance 2, relevance 3, i.e.
``(0.5, 2, 3)``, with decay 0.99 and top 30).

Ranking is by score, descending; exact ties go to the more recently created
record, then to the higher id (deterministic). :func:`select` keeps the top
``k`` and then trims to a token budget: walking down the ranking it keeps
each memory whose estimated tokens still fit in what is left of the budget
and skips those that do not (so one long memory does not crowd out shorter,
lower-ranked ones). Token estimates come from
:func:`modules.memory.records.estimate_tokens` (``ceil(len(text) / 4)``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from modules.memory.records import MemoryRecord

__all__ = [
    "DEFAULT_DECAY",
    "DEFAULT_WEIGHTS",
    "EQUAL_SPREAD_VALUE",
    "Candidates",
    "ScoredMemory",
    "Scores",
    "min_max",
    "score",
    "select",
]

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]

DEFAULT_WEIGHTS: tuple[float, float, float] = (1.0, 1.0, 1.0)
DEFAULT_DECAY = 0.995
#: Value a component takes on every candidate when it has no spread.
EQUAL_SPREAD_VALUE = 0.5
_SPREAD_EPS = 1e-12


@dataclass(frozen=True, slots=True)
class Candidates:
    """Column arrays describing ``n`` candidate memories (row ``i`` is one memory).

    ``norms`` (row L2 norms of ``embeddings``) may be given to save recomputing them.
    """

    ids: I64
    embeddings: F32
    last_accessed: F64
    importance: F64
    created: F64
    tokens: I64
    norms: F32 | None = None

    def __post_init__(self) -> None:
        n = self.ids.shape[0]
        if self.embeddings.ndim != 2 or self.embeddings.shape[0] != n:
            raise ValueError("embeddings must have shape (n, dim)")
        for name in ("last_accessed", "importance", "created", "tokens"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"{name} must have shape ({n},)")
        if self.norms is not None and self.norms.shape != (n,):
            raise ValueError(f"norms must have shape ({n},)")

    def __len__(self) -> int:
        return int(self.ids.shape[0])


@dataclass(frozen=True, slots=True)
class Scores:
    """Normalised components, raw components and the weighted total, per candidate."""

    recency: F64
    importance: F64
    relevance: F64
    total: F64
    raw_recency: F64
    raw_importance: F64
    raw_relevance: F64


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    """A retrieved memory with its score and normalised components.

    ``record`` is the record as it was scored (its ``last_accessed`` is the
    value before this retrieval refreshed it). ``cosine`` is the raw relevance.
    """

    record: MemoryRecord
    score: float
    recency: float
    importance: float
    relevance: float
    cosine: float


def min_max(x: F64) -> F64:
    """Min-max normalise to [0, 1]; a constant (or empty) array maps to 0.5 everywhere."""
    if x.size == 0:
        return x.astype(np.float64)
    lo = float(x.min())
    span = float(x.max()) - lo
    if span <= _SPREAD_EPS:
        return np.full(x.shape, EQUAL_SPREAD_VALUE, dtype=np.float64)
    out: F64 = (x - lo) / span
    return out


def score(
    candidates: Candidates,
    query_vec: npt.NDArray[np.floating],
    now: float,
    weights: tuple[float, float, float] = DEFAULT_WEIGHTS,
    decay: float = DEFAULT_DECAY,
) -> Scores:
    """Score every candidate for ``query_vec`` at game time ``now`` (hours)."""
    if not 0.0 < decay <= 1.0:
        raise ValueError(f"decay must be in (0, 1], got {decay}")
    if len(weights) != 3:
        raise ValueError("weights must be (recency, importance, relevance)")
    q = np.asarray(query_vec, dtype=np.float32).reshape(-1)
    if q.shape[0] != candidates.embeddings.shape[1]:
        raise ValueError(
            f"query has dim {q.shape[0]}, embeddings have {candidates.embeddings.shape[1]}"
        )
    hours = np.maximum(0.0, now - candidates.last_accessed)
    raw_rec: F64 = np.power(decay, hours, dtype=np.float64)
    raw_imp: F64 = candidates.importance.astype(np.float64, copy=False)
    qn = float(np.linalg.norm(q))
    if len(candidates) == 0 or qn == 0.0:
        raw_rel: F64 = np.zeros(len(candidates), dtype=np.float64)
    else:
        dots = candidates.embeddings @ q
        norms = (
            candidates.norms
            if candidates.norms is not None
            else np.linalg.norm(candidates.embeddings, axis=1)
        )
        denom = norms.astype(np.float64) * qn
        raw_rel = np.divide(
            dots.astype(np.float64), denom, out=np.zeros(len(candidates)), where=denom > 0
        )
    rec, imp, rel = min_max(raw_rec), min_max(raw_imp), min_max(raw_rel)
    w_rec, w_imp, w_rel = (float(w) for w in weights)
    total: F64 = w_rec * rec + w_imp * imp + w_rel * rel
    return Scores(rec, imp, rel, total, raw_rec, raw_imp, raw_rel)


def select(
    scores: Scores,
    candidates: Candidates,
    k: int,
    token_budget: int | None = None,
) -> I64:
    """Row indices of the best ``k`` candidates, best first, then trimmed to ``token_budget``."""
    n = len(candidates)
    if k <= 0 or n == 0:
        return np.empty(0, dtype=np.int64)
    total = scores.total
    if k < n:
        # every row scoring at least the k-th best (ties included) is sorted exactly
        kth = np.partition(total, n - k)[n - k]
        pool = np.flatnonzero(total >= kth)
    else:
        pool = np.arange(n)
    order = np.lexsort((-candidates.ids[pool], -candidates.created[pool], -total[pool]))
    ranked: I64 = pool[order][:k].astype(np.int64, copy=False)
    if token_budget is None:
        return ranked
    left = int(token_budget)
    keep: list[int] = []
    for row in ranked.tolist():
        t = int(candidates.tokens[row])
        if t <= left:
            keep.append(row)
            left -= t
    return np.asarray(keep, dtype=np.int64)
