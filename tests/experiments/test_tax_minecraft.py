"""The tax experiment in the embedded Minecraft world: deposits measured from real chests
and inventories (admin API) agree with the ledger of deposit skills."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from experiments import ledger
from experiments.files import read_csv
from experiments.registry import run
from experiments.runner_base import verify
from experiments.spec import ExperimentOptions
from experiments.tax import recompute
from modules.memory.encoder import HashingEncoder

pytestmark = [pytest.mark.services, pytest.mark.minecraft]


async def test_tax_in_the_embedded_world(tmp_path: Path, small_config: Callable[..., Path]) -> None:
    cfg = small_config("tax", {"settle_min_wall_s": 1.5})
    opts = ExperimentOptions(out=tmp_path / "out", world="embedded", llm="heuristic", repeats=1,
                             agents=2, time_scale=0.03, conditions=("full-pro",),
                             embedder=HashingEncoder())
    out, metrics = await run("tax", cfg, opts)
    deposits = read_csv(out / "deposits.csv")
    assert len(deposits) == 10 * 2
    assert {d["measured_by"] for d in deposits} == {"chests+inventories"}
    first = [d for d in deposits if d["season"] == "0"]
    assert all(int(d["inventory_open"]) > 0 for d in first)  # starting inventories were given
    totals = read_csv(out / "season_totals.csv")
    assert len(totals) == 10
    for t in totals:
        # what the chests gained is what the deposit skills reported, unless a deposit failed
        # part-way (the body then may have moved items without saying so; see NEEDS.md)
        if t["uncertain_deposits"] == "0":
            assert t["match"] == "True", t
        else:
            assert int(t["ledger_total"]) <= int(t["chest_delta"]), t
        # the per-agent measurement never attributes more than the chests gained
        assert float(t["attributed"]) <= max(0, int(t["chest_delta"])) + 1e-6
        per_agent = sum(float(d["deposited"]) for d in deposits if d["season"] == t["season"])
        assert per_agent == pytest.approx(float(t["attributed"]), abs=0.01)
    assert metrics["ledger_checks"]["seasons_checked"] == 10
    one = metrics["conditions"]["full-pro"]["runs"][0]
    assert one["chests_as_told"]  # the chests are where every agent's location memory says
    assert one["commitment"]["deposits"]["started"] >= one["commitment"]["deposits"]["succeeded"]
    for d in deposits:
        # a share is measured exactly when the agent held something as the season opened
        for key in ("share", "share_ledger"):
            if int(d["inventory_open"]) > 0:
                assert 0.0 <= float(d[key]) <= 1.0, d
            else:
                assert d[key] == "", d
    timeline = [json.loads(x) for x in (out / "timeline.jsonl").read_text().splitlines()]
    assert [e["event"] for e in timeline if e["event"] == "distribute"] == ["distribute"]
    # the report's figures are what the raw files (real chests and inventories) give
    figs = recompute.figures(out)
    assert verify(out, figs, recompute.tables(out, figs)) == []
    # two voters: one influencer, one constituent, who held something at the first season
    # (above): the figure before the amendment is the mean of its shares in those seasons
    shares = [float(d["share"]) for d in deposits
              if d["share"] and d["role"] == "constituent" and d["phase"] == "before"]
    assert shares, deposits
    before = figs["shares"]["full-pro"]["before"]
    assert (before["repeats"], before["constituents"]) == (1, 1), before
    assert before["mean"] == pytest.approx(sum(shares) / len(shares), abs=1e-3), before


async def test_a_tax_season_reaches_the_chests_from_far_homes(
        tmp_path: Path, small_config: Callable[..., Path]) -> None:
    """Issue 29: constituents who live ~130 blocks east of the town hall (9 chunk columns from
    its chests: beyond the server's view distance of 6, so the chests' chunks are not loaded
    by their bodies) hear a season of 60 s open 2 s after the start, before they have walked
    anywhere, and go there. No deposit they start may fail as 'not loaded' (the bodies walk to
    a target they have not loaded), and some deposit must be started at all. (With the season
    at 15 s they had walked half the way to the forest first, and the old bodies passed.)"""
    cfg = small_config("tax", {
        "duration_s": 75, "first_season_at_s": 2, "season_window_s": 60, "seasons": 1,
        "settle_min_wall_s": 2, "homes": {"farmer": [130, -12], "miner": [130, -30]}})
    opts = ExperimentOptions(out=tmp_path / "out", world="embedded", llm="heuristic", repeats=1,
                             agents=3, time_scale=1.0, conditions=("full-pro",),
                             embedder=HashingEncoder())
    out, _ = await run("tax", cfg, opts)
    figs = recompute.figures(out)
    assert verify(out, figs, recompute.tables(out, figs)) == []
    season = next(w for w in figs["windows"] if w["name"] == "tax season")
    assert season["fits"], season  # ~135 blocks: ~32 s of walking in a 60 s window
    skills = ledger.read_skills(out)
    deposits = [s for s in skills if s["skill"] == "deposit"]
    far = {d["agent"] for d in read_csv(out / "deposits.csv") if d["role"] == "constituent"}
    tried = [d for d in deposits if d["agent"] in far]
    assert tried, "no constituent started a deposit"
    not_loaded = [d for d in deposits if d["kind"] == "not_loaded"]
    assert not not_loaded, [d["reason"] for d in not_loaded]
    accounted = figs["seasons"]["full-pro"]["before"]
    assert accounted["seasons"] == 2 and sum(accounted["classes"].values()) == 2
