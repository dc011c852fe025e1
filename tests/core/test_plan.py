"""``piano plan``: sizes from the committed measurements, each figure naming its source."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from agent_runtime.app.cli.main import main
from agent_runtime.app.plan import PlanError, Sources, load_costs, plan, render_check

SRC = Sources()
SMALL, MIDDLE, LARGE = SRC.villages


def _village(agents: int, cpu: float, mb: float, pace: float = 10.0) -> dict[str, object]:
    return {"agents": agents, "shards": 1, "kicks": 0, "measured_seconds": 120.0,
            "decisions": pace * agents * 2, "provenance": {"cpus": 2},
            "all_processes": {"cpu_percent": cpu, "rss_mb": mb}}  # fmt: skip


def _results(root: Path, over: Mapping[str, Mapping[str, object]] | None = None) -> None:
    over = over or {}
    files: dict[str, dict[str, object]] = {
        SRC.runtime: {"agents": 1000, "cpu_us_per_agent_s": 700.0, "services_cpu_pct": 3.0,
                      "rss_mb_per_agent": 0.7, "cc_decisions_per_s": 150.0},
        # on the line 20 % + 2 % an agent and 500 MB + 20 MB an agent, but the middle run
        # above it and the others below, as measurements are: the least-squares line
        SMALL: _village(10, 39.0, 699.0, pace=11.0),
        MIDDLE: _village(20, 62.0, 902.0, pace=10.0),
        LARGE: _village(30, 79.0, 1099.0, pace=9.0),
        SRC.density: {"agents": 100, "shards": 2, "kicks": 0},
        SRC.cost: {"modules": {"all": {"calls_per_agent_hour": 1200.0,
                                       "tokens_per_agent_hour": 700_000.0}}},
        SRC.ray: {"all_processes": {"by_kind": {
            "ray raylet": {"cpu_percent": 3.0, "rss_mb": 100.0},
            "ray gcs": {"cpu_percent": 2.0, "rss_mb": 412.0},
            "body host": {"cpu_percent": 90.0, "rss_mb": 2000.0}}}},
    }  # fmt: skip
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**data, **over.get(rel, {})}))


def test_a_plan_from_measured_costs(tmp_path: Path) -> None:
    _results(tmp_path)
    costs = load_costs(tmp_path)
    # the least-squares line through the three village runs: 0.02 cores and 20 MB an agent,
    # 0.2 cores and 500 MB for the rest (once); shards of 50 agents (the density run's)
    assert round(costs.embodied_cores_per_agent.value, 6) == 0.02
    assert round(costs.embodied_mb_per_agent.value, 6) == 20.0
    assert round(costs.embodied_fixed_cores.value, 6) == 0.2
    assert round(costs.embodied_fixed_mb.value, 6) == 500.0 and costs.agents_per_shard.value == 50
    # the pace that CPU buys: the runs' mean (11, 10, 9), and the runtime's 150 / s over 1000
    assert round(costs.embodied_decisions_per_agent_minute.value, 6) == 10.0
    assert round(costs.decisions_per_agent_minute.value, 6) == 9.0
    # Ray's own processes: the ray* kinds of its run, not the bodies
    assert round(costs.ray_fixed_cores.value, 6) == 0.05 and costs.ray_fixed_mb.value == 512
    p = plan(500, costs, embodied=True, cores_per_node=2, memory_gb_per_node=24, llm_latency_s=2)
    assert p.world_shards == 10 and p.agent_workers == 5
    assert p.cpus == round(500 * 0.02 + 0.2, 2)
    assert p.memory_gb == round((500 * 20 + 500) / 1024, 2)
    assert p.nodes == 8  # ceil(10.2 / (2 x 0.7)); memory needs 1
    assert p.llm_calls_per_s == round(500 * 1200 / 3600, 2) and p.llm_requests_in_flight == 333.3
    assert p.llm_tokens_per_minute == round(500 * 700_000 / 60)
    assert p.decisions_per_agent_minute == 10
    assert p.sources["cpus"].startswith(" and ".join(SRC.villages))
    on_ray = plan(500, costs, embodied=True, cores_per_node=2, memory_gb_per_node=24, ray=True)
    assert on_ray.cpus == round(p.cpus + 0.05, 2) and on_ray.memory_gb == round(
        p.memory_gb + 0.5, 2
    )
    assert on_ray.sources["memory_gb"].endswith(
        f"{SRC.ray}: all_processes.by_kind.ray*.rss_mb, summed"
    )
    assert p.sources["world_shards"].startswith(SRC.density)
    q = plan(1000, costs, embodied=False, cores_per_node=2, memory_gb_per_node=24, llm=False)
    assert q.cpus == round(1000 * (700e-6 + 0.03 / 1000), 2) and q.world_shards == 0
    assert q.nodes == 1 and q.llm_calls_per_s == 0 and "llm_calls_per_s" not in q.sources
    # a new measurement changes the plan: more CPU in the largest run
    _results(tmp_path, {LARGE: _village(30, 140.0, 1099.0)})
    more = plan(500, load_costs(tmp_path), embodied=True, cores_per_node=2, memory_gb_per_node=24)
    assert more.cpus > p.cpus
    # a run whose bodies were kicked calibrates nothing, nor sets the density
    for kicked in (MIDDLE, SRC.density):
        _results(tmp_path, {kicked: {"kicks": 3}})
        with pytest.raises(PlanError, match=f"{kicked}: bodies were kicked"):
            load_costs(tmp_path)
    # nor does a run whose machine was saturated (by it or by anything beside it)
    _results(tmp_path, {MIDDLE: {"machine_cpu_percent": 198.8, "provenance": {"cpus": 2}}})
    with pytest.raises(PlanError, match=f"{MIDDLE}: its machine was saturated"):
        load_costs(tmp_path)
    _results(tmp_path, {MIDDLE: {"machine_cpu_percent": 150.0, "provenance": {"cpus": 2}}})
    assert load_costs(tmp_path).embodied_cores_per_agent.value > 0
    # runs of one size give no line
    _results(tmp_path, {rel: {"agents": 20} for rel in SRC.villages})
    with pytest.raises(PlanError, match="at least two sizes"):
        load_costs(tmp_path)


def test_a_missing_file_or_field_is_named(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="no such result file"):
        load_costs(tmp_path)
    _results(tmp_path)
    (tmp_path / SRC.runtime).write_text(json.dumps({"agents": 1000}))
    with pytest.raises(PlanError, match=f"{SRC.runtime}: no field cpu_us_per_agent_s"):
        load_costs(tmp_path)


def test_the_cli_plans_from_the_committed_results(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--agents", "100", "--embodied", "--json", "--cores-per-node", "2",
                 "--memory-per-node", "24"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["agents"] == 100 and out["world_shards"] >= 1 and out["cpus"] > 0
    assert set(out["sources"]) == {"cpus", "memory_gb", "world_shards", "llm_calls_per_s",
                                   "llm_requests_per_minute", "llm_tokens_per_minute",
                                   "decisions_per_agent_minute"}  # fmt: skip
    assert out["on_machine"] is None  # no --cores: the demand only
    assert main(["plan", "--agents", "0"]) == 2


def test_the_calibration_table_lists_the_runs_and_their_line() -> None:
    costs = load_costs()
    rows = render_check(Path("unused"), {"table": "calibration"}).splitlines()
    assert len(rows) == 2 + len(Sources().villages) + 2
    agents = [int(r.split(" | ")[1]) for r in rows[2:-2]]
    assert agents == sorted(agents) and len(set(agents)) == len(agents)
    per = f"**{100 * costs.embodied_cores_per_agent.value:.2f}**"
    assert per in rows[-2] and f"**{costs.embodied_mb_per_agent.value:.1f}**" in rows[-2]
