"""Metric functions on hand-made data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments import metrics as M


def test_entropy_uniform_and_single() -> None:
    assert M.shannon_entropy({"a": 5, "b": 5, "c": 5, "d": 5}) == pytest.approx(2.0)
    assert M.shannon_entropy({"farmer": 7}) == 0.0
    assert M.shannon_entropy([1, 1], base=math.e) == pytest.approx(math.log(2))
    assert M.shannon_entropy({"a": 3, "b": 1}) == pytest.approx(0.811278, abs=1e-6)
    assert math.isnan(M.shannon_entropy({}))
    assert M.shannon_entropy({"a": 2, "b": 0}) == 0.0  # empty categories do not count


def test_pearson_and_slope() -> None:
    fit = M.pearson([1, 2, 3, 4], [2, 4, 6, 8])
    assert fit.r == pytest.approx(1.0) and fit.slope == pytest.approx(2.0)
    assert fit.intercept == pytest.approx(0.0) and fit.n == 4
    neg = M.pearson([1, 2, 3], [3, 2, 1])
    assert neg.r == pytest.approx(-1.0) and neg.slope == pytest.approx(-1.0)
    # hand-computed: x=[1,2,3,4,5], y=[2,1,4,3,5] -> sxy=8, sxx=10, syy=10
    fit2 = M.pearson([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    assert fit2.r == pytest.approx(0.8) and fit2.slope == pytest.approx(0.8)
    assert fit2.intercept == pytest.approx(0.6)
    assert math.isnan(M.pearson([1], [2]).r)
    assert math.isnan(M.pearson([1, 1, 1], [1, 2, 3]).r)  # no variance in x
    assert M.pearson([1, 2, float("nan"), 3], [1, 2, 9, 3]).n == 3
    with pytest.raises(ValueError):
        M.pearson([1, 2], [1])


def test_count_and_normalised_matrices() -> None:
    pairs = [("farmer", "collect")] * 3 + [("farmer", "craft")] + [("miner", "collect")] * 2
    rows, cols, m = M.count_matrix(pairs)
    assert rows == ["farmer", "miner"] and cols == ["collect", "craft"]
    assert m.tolist() == [[3, 1], [2, 0]]
    r = M.normalise_rows(m)
    assert r.tolist() == [[0.75, 0.25], [1.0, 0.0]]
    c = M.normalise_cols(m)
    assert c.tolist() == [[0.6, 1.0], [0.4, 0.0]]
    z = M.normalise_rows(np.zeros((2, 2)))
    assert z.tolist() == [[0, 0], [0, 0]]  # rows of zeros stay zero
    _, _, m2 = M.count_matrix(pairs, rows=["miner", "guard"], cols=["collect"])
    assert m2.tolist() == [[2], [0]]


def test_persistence() -> None:
    assert M.persistence(["a", "a", "a", "b"]) == pytest.approx(2 / 3)
    assert M.persistence(["a", None, "a", ""]) == 1.0
    assert math.isnan(M.persistence(["a"]))


def test_deposit_share() -> None:
    assert M.deposit_share(10, 50) == pytest.approx(0.2)
    assert M.deposit_share(0, 50) == 0.0
    assert M.deposit_share(60, 50) == 1.0  # clipped
    assert math.isnan(M.deposit_share(3, 0))


def test_mean_ci() -> None:
    ci = M.mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    # t(0.975, 4) = 2.776; sem = 1.5811 / sqrt(5) = 0.7071
    assert ci.mean == 3.0 and ci.n == 5
    assert ci.hi - ci.mean == pytest.approx(2.7764 * 0.70711, rel=1e-3)
    assert M.t_quantile(0.975, 10) == pytest.approx(2.2281, abs=1e-3)
    one = M.mean_ci([4.0])
    assert one.mean == 4.0 and math.isnan(one.lo)
    assert M.mean_ci([]).n == 0
    assert M.mean_ci([1.0, float("nan"), 3.0]).n == 2


def test_mean_ci_clipped_to_the_range() -> None:
    ci = M.mean_ci([0.0, 0.0, 0.9], clip=(0.0, 1.0))
    assert ci.lo == 0.0 and ci.hi == 1.0 and ci.mean == pytest.approx(0.3)


def test_spearman_ranks_with_ties_and_undefined_cases() -> None:
    assert M.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert M.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ties share their average rank: x ranks 1, 2.5, 2.5, 4; y ranks 1, 3, 2, 4
    assert M.spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(
        M.pearson([1, 2.5, 2.5, 4], [1, 3, 2, 4]).r
    )
    assert math.isnan(M.spearman([1, 2, 3], [5, 5, 5]))  # a constant side
    assert math.isnan(M.spearman([1, float("nan")], [1, 2]))  # one finite pair
    fit = M.pearson([1, 2, 3], [5, 5, 5])
    assert math.isnan(fit.r) and fit.slope == 0 and fit.intercept == 5
