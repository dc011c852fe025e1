"""``piano bench cost``: the controller's decisions and gaps, the Markdown table, and one
short village against the simulated endpoint with the heuristic's content (issue 30)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from agent_runtime.app.cli import bench_cost
from agent_runtime.app.cli.bench_cost import ControllerDecisions
from agent_runtime.app.cost_tables import render_markdown
from agent_runtime.llm.simulated import HEURISTIC_CONTENT


def test_controller_decisions_share_and_longest_gap() -> None:
    d = ControllerDecisions()
    d({"type": "decision", "t": 5.0, "agent": "Ann", "brain": HEURISTIC_CONTENT})  # before
    d.since = 10.0
    for t, agent, brain, reflex, kind in [
        (11.0, "Ann", HEURISTIC_CONTENT, False, "work"),
        (12.0, "Ann", "heuristic", True, "eat"),
        (25.0, "Ann", HEURISTIC_CONTENT, False, "continue"),
        (14.0, "Bob", HEURISTIC_CONTENT, False, "continue"),
    ]:
        d(
            {
                "type": "decision",
                "t": t,
                "agent": agent,
                "brain": brain,
                "reflex": reflex,
                "kind": kind,
            }
        )
    d({"type": "speech", "t": 13.0, "agent": "Bob"})
    out = d.summary(["Ann", "Bob", "Cleo"], end=30.0)
    assert out["decisions"] == 4 and out["model_decisions"] == 3
    assert out["model_share"] == 0.75
    assert out["model_decisions_by_kind"] == {"continue": 2, "work": 1}
    assert out["longest_gap_s_by_agent"] == {"Ann": 13.0, "Bob": 16.0, "Cleo": 20.0}
    assert out["longest_gap_s"] == 20.0  # an agent that never decided: the whole window
    assert out["longest_model_gap_s_by_agent"]["Ann"] == 14.0


@pytest.mark.services
def test_bench_cost_runs_a_village_on_the_simulated_endpoint(tmp_path: Path) -> None:
    args = argparse.Namespace(
        config=str(bench_cost.DEFAULT_CONFIG),
        agents=2,
        world="none",
        duration=6.0,
        llm_latency=0.05,
        seed=3,
        run_dir=str(tmp_path / "run"),
        json_out=str(tmp_path / "cost.json"),
        render=None,
    )
    assert bench_cost.run(args) == 0
    out = json.loads((tmp_path / "cost.json").read_text())
    assert out["agents"] == 2
    controller = out["modules"]["cognitive_controller"]
    assert controller["calls"] > 0 and controller["ok"] == controller["calls"]
    # priced as OpenAI serves its cache: the controller's prompts are under 1,024 tokens
    assert controller["prompt_tokens"] / controller["calls"] < 1024
    assert controller["cached_tokens"] == 0
    asked = sum(out["controller"]["asked_by_reason"].values())  # each call counted by reason
    assert asked > 0 and abs(asked - controller["calls"]) <= out["agents"]  # (calls in flight)
    assert out["controller"]["by_brain"].get(HEURISTIC_CONTENT, 0) > 0
    assert "llm:simulated" not in out["controller"]["by_brain"]  # heuristic content only
    everything = out["modules"]["all"]
    assert everything["usd_per_agent_hour"]["local"] == 0.0
    assert (
        0
        < everything["usd_per_agent_hour"]["gpt-4o"]
        <= everything["usd_per_agent_hour_uncached"]["gpt-4o"]
    )
    # 50 agents at the rate these agents' modules called: the modules' own call counts over
    # the measured minutes, per agent, times 50 (not the bench's rate per agent-hour)
    calls = sum(m["calls"] for name, m in out["modules"].items() if name != "all")
    per_agent_minute = calls / (out["agents"] * out["measured_s"] / 60)
    assert calls > 0 and everything["calls"] == calls
    assert out["village_50"]["requests_per_minute"] == pytest.approx(
        50 * per_agent_minute, rel=0.03
    )
    table = render_markdown(out, "cost.json")
    assert "| **all** |" in table and "cognitive_controller" in table
