"""Retrieval scoring against hand-computed cases (pure functions)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from modules.memory.retrieval import (
    EQUAL_SPREAD_VALUE,
    Candidates,
    min_max,
    score,
    select,
)


def cands(
    emb: list[list[float]],
    last_accessed: list[float],
    importance: list[float],
    created: list[float] | None = None,
    tokens: list[int] | None = None,
) -> Candidates:
    n = len(emb)
    return Candidates(
        ids=np.arange(1, n + 1, dtype=np.int64),
        embeddings=np.asarray(emb, dtype=np.float32),
        last_accessed=np.asarray(last_accessed, dtype=np.float64),
        importance=np.asarray(importance, dtype=np.float64),
        created=np.asarray(created if created is not None else [0.0] * n, dtype=np.float64),
        tokens=np.asarray(tokens if tokens is not None else [1] * n, dtype=np.int64),
    )


# Three memories, query (1, 0), now = 10 h, decay 0.5 for round numbers:
#   A: emb (1, 0)     cos 1.0   importance 2  accessed at 10 (0 h ago)  recency 1
#   B: emb (0, 1)     cos 0.0   importance 8  accessed at 0 (10 h ago)  recency 1/1024
#   C: emb (0.6, 0.8) cos 0.6   importance 5  accessed at 5 (5 h ago)   recency 1/32
# normalised:  recency A 1, B 0, C (1/32 - 1/1024) / (1 - 1/1024) = 31/1023
#              importance A 0, B 1, C 0.5;  relevance A 1, B 0, C 0.6
ABC = cands([[1, 0], [0, 1], [0.6, 0.8]], [10, 0, 5], [2, 8, 5])
Q = np.array([1.0, 0.0])
C_REC = 31 / 1023


def test_components_are_min_max_normalised() -> None:
    s = score(ABC, Q, now=10, decay=0.5)
    assert s.raw_recency == pytest.approx([1.0, 1 / 1024, 1 / 32])
    assert s.recency == pytest.approx([1.0, 0.0, C_REC])
    assert s.importance == pytest.approx([0.0, 1.0, 0.5])
    assert s.raw_relevance == pytest.approx([1.0, 0.0, 0.6], abs=1e-7)
    assert s.relevance == pytest.approx([1.0, 0.0, 0.6], abs=1e-7)


def test_paper_weights_sum_components() -> None:
    s = score(ABC, Q, now=10, weights=(1, 1, 1), decay=0.5)
    assert s.total == pytest.approx([2.0, 1.0, C_REC + 0.5 + 0.6], abs=1e-7)
    assert select(s, ABC, k=3).tolist() == [0, 2, 1]  # A, C, B


@pytest.mark.parametrize(
    ("weights", "expected_total", "order"),
    [
        ((0, 1, 0), [0.0, 1.0, 0.5], [1, 2, 0]),  # importance only: B, C, A
        ((1, 0, 0), [1.0, 0.0, C_REC], [0, 2, 1]),  # recency only
        ((0, 0, 1), [1.0, 0.0, 0.6], [0, 2, 1]),  # relevance only
        # the public Smallville weights (rec 0.5, imp 2, rel 3)
        ((0.5, 2, 3), [3.5, 2.0, 0.5 * C_REC + 1.0 + 1.8], [0, 2, 1]),
        ((0, 3, 1), [1.0, 3.0, 1.5 + 0.6], [1, 2, 0]),
    ],
)
def test_weights(
    weights: tuple[float, float, float], expected_total: list[float], order: list[int]
) -> None:
    s = score(ABC, Q, now=10, weights=weights, decay=0.5)
    assert s.total == pytest.approx(expected_total, abs=1e-7)
    assert select(s, ABC, k=3).tolist() == order


def test_recency_is_decay_power_hours_since_last_access() -> None:
    c = cands([[1, 0]] * 3, [100, 76, 0], [5, 5, 5])
    s = score(c, Q, now=100, decay=0.995)
    assert s.raw_recency == pytest.approx([1.0, 0.995**24, 0.995**100])
    lo, hi = 0.995**100, 1.0
    assert s.recency == pytest.approx([1.0, (0.995**24 - lo) / (hi - lo), 0.0])


def test_future_last_access_counts_as_now() -> None:
    c = cands([[1, 0], [1, 0]], [12, 8], [1, 2])
    s = score(c, Q, now=10, decay=0.5)
    assert s.raw_recency == pytest.approx([1.0, 0.25])


def test_constant_component_is_one_half() -> None:
    # same importance and same embedding: only recency separates them
    c = cands([[0, 1], [0, 1]], [10, 9], [4, 4])
    s = score(c, Q, now=10, decay=0.5)
    assert s.importance.tolist() == [EQUAL_SPREAD_VALUE] * 2
    assert s.relevance.tolist() == [EQUAL_SPREAD_VALUE] * 2
    assert s.recency.tolist() == [1.0, 0.0]
    assert s.total == pytest.approx([2.0, 1.0])


def test_single_candidate_scores_half_of_the_weights() -> None:
    c = cands([[0.3, 0.4]], [3], [9])
    s = score(c, Q, now=10, weights=(1, 2, 3), decay=0.9)
    assert s.total == pytest.approx([0.5 * (1 + 2 + 3)])


def test_min_max_edges() -> None:
    assert min_max(np.array([], dtype=np.float64)).size == 0
    assert min_max(np.array([2.0, 4.0, 3.0])) == pytest.approx([0.0, 1.0, 0.5])
    assert min_max(np.array([7.0, 7.0])).tolist() == [0.5, 0.5]


def test_relevance_is_cosine_not_dot_and_zero_vector_is_zero() -> None:
    c = cands([[2, 0], [0, 0], [1, 1]], [0, 0, 0], [1, 2, 3])
    s = score(c, np.array([3.0, 0.0]), now=0)
    assert s.raw_relevance == pytest.approx([1.0, 0.0, math.sqrt(0.5)], abs=1e-7)


def test_ties_prefer_recently_created_then_higher_id() -> None:
    c = cands([[1, 0]] * 4, [0] * 4, [5] * 4, created=[1, 3, 3, 2])
    s = score(c, Q, now=0)
    assert select(s, c, k=4).tolist() == [2, 1, 3, 0]
    assert select(s, c, k=2).tolist() == [2, 1]


def test_top_k_then_token_budget_skips_what_does_not_fit() -> None:
    # ranking by importance only: rows 0 (20 tokens), 1 (10), 2 (3), 3 (1)
    c = cands([[1, 0]] * 4, [0] * 4, [9, 8, 7, 6], tokens=[20, 10, 3, 1])
    s = score(c, Q, now=0, weights=(0, 1, 0))
    assert select(s, c, k=4).tolist() == [0, 1, 2, 3]
    # budget 25: take 0 (left 5), skip 1 (10 > 5), take 2 (left 2), take 3 (left 1)
    assert select(s, c, k=4, token_budget=25).tolist() == [0, 2, 3]
    # top-k first, budget second: row 3 is not considered with k=3
    assert select(s, c, k=3, token_budget=25).tolist() == [0, 2]
    assert select(s, c, k=4, token_budget=0).tolist() == []
    assert select(s, c, k=0).tolist() == []


def test_shape_errors() -> None:
    with pytest.raises(ValueError):
        score(ABC, np.array([1.0, 0.0, 0.0]), now=0)
    with pytest.raises(ValueError):
        score(ABC, Q, now=0, decay=1.5)


def test_ten_thousand_candidates_select_correctly() -> None:
    """Scoring at scale picks the query's own record first and respects k and the budget.

    Speed is measured by ``tests/memory/bench_memory.py`` (a benchmark), not asserted here."""
    rng = np.random.default_rng(0)
    n, dim = 10_000, 384
    emb = rng.standard_normal((n, dim)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    c = Candidates(
        ids=np.arange(1, n + 1, dtype=np.int64),
        embeddings=emb,
        last_accessed=np.full(n, 100.0),
        importance=np.full(n, 5.0),
        created=rng.uniform(0, 100, n),
        tokens=rng.integers(5, 40, n),
        norms=np.linalg.norm(emb, axis=1).astype(np.float32),
    )
    q = emb[123]
    picked = select(score(c, q, now=100), c, k=30, token_budget=600)
    assert 0 < len(picked) <= 30
    assert int(c.ids[picked[0]]) == 124  # equal recency/importance: relevance decides
    assert int(c.tokens[picked].sum()) <= 600
