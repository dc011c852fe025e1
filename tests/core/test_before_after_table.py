"""The before-after renderer of ``piano docs``: runs grouped by commit, means, spreads and the
kept verdict follow the files (agent_runtime/app/before_after_table.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_runtime.app.before_after_table import render_before_after


def _run(folder: Path, name: str, commit: str, **figures: float | None) -> Path:
    path = folder / name
    data = {
        "figures": figures,
        "provenance": {
            "date": "2026-11-27T16:40:00Z",
            "commit": commit,
            "load_average_before": [0.5, 0.6, 0.7],
            "load_average_after": [1.5, 0.9, 0.8],
        },
    }
    path.write_text(json.dumps(data))
    return path


def _rows(table: str) -> dict[str, list[str]]:
    out = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and cells[0]:
            out[cells[0]] = cells[1:]
    return out


def _files(tmp_path: Path) -> Path:
    first = _run(tmp_path, "b1.json", "aaa", rate=10.0, lag=50.0, errors=0)
    _run(tmp_path, "a1.json", "bbb", rate=8.0, lag=20.0, errors=0)
    _run(tmp_path, "b2.json", "aaa", rate=12.0, lag=70.0, errors=0)
    _run(tmp_path, "a2.json", "bbb", rate=9.0, lag=30.0, errors=1)
    return first


def test_within_rule_counts_only_the_worse_direction(tmp_path: Path) -> None:
    opts = {
        "with": "a1.json,b2.json,a2.json",
        "keys": "figures.rate:higher,figures.lag:lower,figures.errors:lower",
        "labels": "rate,lag,errors",
        "rule": "within:10",
    }
    rows = _rows(render_before_after(_files(tmp_path), opts))
    # runs named by side in order, commit and load from the provenance
    assert rows["before 1"][:1] == ["aaa"] and rows["after 2"][0] == "bbb"
    assert rows["before 1"][2] == "0.5 -> 1.5"
    # rate: before 11 (spread 2), after 8.5 (spread 1): -22.7%, not kept
    rate = rows["rate (higher is better)"]
    assert rate[:4] == ["10", "8", "12", "9"]
    assert rate[4] == "11 (2, 18%)" and rate[5] == "8.50 (1, 12%)"
    assert rate[6] == "-22.7%" and rate[7] == "**no**"
    # lag fell by 58%: kept, as only a rise counts for a lower-is-better figure
    lag = rows["lag (lower is better)"]
    assert lag[6] == "-58.3%" and lag[7] == "yes"
    # errors 0 before, some after: not kept
    errors = rows["errors (lower is better)"]
    assert errors[6] == "new" and errors[7] == "**no**"


def test_no_lower_rule_and_a_figure_without_direction(tmp_path: Path) -> None:
    first = _run(tmp_path, "b.json", "aaa", share=0.5, n=100)
    _run(tmp_path, "a.json", "bbb", share=0.5, n=95)
    rows = _rows(
        render_before_after(
            first, {"with": "a.json", "keys": "figures.share:higher,figures.n", "rule": "no-lower"}
        )
    )
    assert rows["`figures.share` (higher is better)"][-1] == "yes"  # equal is no lower
    assert rows["`figures.n`"][-2:] == ["-5.0%", "**no**"]
    rows = _rows(
        render_before_after(first, {"with": "a.json", "keys": "figures.n", "rule": "within:10"})
    )
    assert rows["`figures.n`"][-1] == "yes"


def test_needs_exactly_two_commits_and_numeric_keys(tmp_path: Path) -> None:
    first = _run(tmp_path, "b.json", "aaa", x=1.0)
    _run(tmp_path, "a.json", "bbb", x=1.0)
    _run(tmp_path, "c.json", "ccc", x=1.0)
    with pytest.raises(ValueError, match="exactly 2 commits"):
        render_before_after(first, {"with": "a.json,c.json", "keys": "figures.x"})
    with pytest.raises(ValueError, match=r"no 'figures\.y'"):
        render_before_after(first, {"with": "a.json", "keys": "figures.y"})
    with pytest.raises(ValueError, match="labels"):
        render_before_after(first, {"with": "a.json", "keys": "figures.x", "labels": "a,b"})


def test_a_null_figure_is_left_out_of_its_sides_mean(tmp_path: Path) -> None:
    first = _run(tmp_path, "b1.json", "aaa", share=1.0)
    _run(tmp_path, "a1.json", "bbb", share=None)
    _run(tmp_path, "b2.json", "aaa", share=0.5)
    _run(tmp_path, "a2.json", "bbb", share=0.8)
    opts = {"with": "a1.json,b2.json,a2.json", "keys": "figures.share:higher"}
    row = _rows(render_before_after(first, opts))["`figures.share` (higher is better)"]
    assert row[:4] == ["1", "n/a", "0.500", "0.800"]
    assert row[4:] == ["0.750 (0.500, 67%)", "0.800 (-)", "+6.7%", "yes"]
    _run(tmp_path, "a2.json", "bbb", share=None)
    row = _rows(render_before_after(first, opts))["`figures.share` (higher is better)"]
    assert row[5:] == ["n/a", "n/a", "n/a (a side without the figure)"]
