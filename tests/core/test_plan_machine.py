"""``piano plan --cores C``: what a plan's village does on the cores it gets (CPU-bound or
not, the pace its agents decide at), and ``--check RUN``: that beside a measured bench."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_runtime.app.cli.main import main
from agent_runtime.app.plan import (
    ROOT,
    Cost,
    Costs,
    PlanError,
    check,
    load_costs,
    on_machine,
    plan,
    render_check,
)

RESULTS = ROOT / "agent_runtime/app/results"
CHECKED = "agent_runtime/app/results/cluster-2026-11-27/village-100-workers2-c5.json"


def _costs() -> Costs:
    """0.04 cores and 20 MB an agent, 0.1 cores and 500 MB once, 10 decisions a minute."""
    values = {
        "cores_per_agent": 0.001, "mb_per_agent": 1.0, "embodied_cores_per_agent": 0.04,
        "embodied_mb_per_agent": 20.0, "embodied_fixed_cores": 0.1, "embodied_fixed_mb": 500.0,
        "agents_per_shard": 50.0, "decisions_per_agent_minute": 9.0,
        "embodied_decisions_per_agent_minute": 10.0, "llm_calls_per_agent_hour": 0.0,
        "llm_tokens_per_agent_hour": 0.0, "ray_fixed_cores": 0.05, "ray_fixed_mb": 900.0,
    }  # fmt: skip
    return Costs(**{k: Cost(v, f"runs.json: {k}") for k, v in values.items()})


def test_on_fewer_cores_than_it_needs_a_village_uses_them_all_and_decides_slower() -> None:
    p = plan(100, _costs(), embodied=True, cores_per_node=2, memory_gb_per_node=24, llm=False)
    assert p.cpus == 4.1 and p.decisions_per_agent_minute == 10  # the demand
    m = on_machine(p, cores=2, memory_gb=3)
    assert m.cpus_used == 2 and m.cpu_load == 2.05 and m.cpu_bound and not m.near_saturation
    assert m.decisions_per_agent_minute == round(10 * 2 / 4.1, 2)  # 4.88: the cores it gets
    assert m.memory_fits is False  # 2.44 GB planned, 80% of 3 GB is 2.4
    assert m.sources["decisions_per_agent_minute"].startswith(
        "runs.json: embodied_decisions_per_agent_minute, x min(1, --cores / the CPUs planned)"
    )
    assert m.sources["cpus_used"].endswith("the CPUs planned: runs.json: embodied_cores_per_agent")
    # enough cores: the demand, at the measured pace; near saturation above 70% of them
    roomy = on_machine(p, cores=8, memory_gb=4)
    assert (roomy.cpus_used, roomy.cpu_bound, roomy.near_saturation) == (4.1, False, False)
    assert roomy.decisions_per_agent_minute == 10 and roomy.memory_fits
    near = on_machine(p, cores=5)
    assert near.near_saturation and not near.cpu_bound and near.decisions_per_agent_minute == 10
    assert near.memory_fits is None and "memory_fits" not in near.sources
    with pytest.raises(ValueError, match="positive --cores"):
        on_machine(p, cores=0)


def _run(root: Path, *, cpu: float, rss_mb: float, pace: float, launcher: str = "process") -> str:
    rel = "results/run.json"
    (root / "results").mkdir(exist_ok=True)
    (root / rel).write_text(json.dumps({
        "agents": 100, "shards": 2, "kicks": 0, "launcher": launcher,
        "decisions_per_agent_minute": pace, "machine_cpu_percent": 199.9,
        "provenance": {"cpus": 2, "date": "2026-11-27T18:07:53Z", "commit": "abc"},
        "all_processes": {"cpu_percent": cpu, "rss_mb": rss_mb},
    }))  # fmt: skip
    return rel


def test_the_check_of_a_saturated_run_compares_what_it_could_use(tmp_path: Path) -> None:
    p = plan(100, _costs(), embodied=True, cores_per_node=2, memory_gb_per_node=24, llm=False)
    m = on_machine(p, cores=2)
    rel = _run(tmp_path, cpu=194.0, rss_mb=2800.0, pace=4.3)
    c = check(p, m, rel, tmp_path)
    got = {r["what"]: (r["planned"], r["measured"], r["ratio"], r["within"]) for r in c["rows"]}
    assert got == {
        "CPUs used (cores)": (2, 1.94, 1.03, True),  # not the 4.1 wanted: 2.11 times
        "memory (GB)": (2.44, 2.73, 0.89, True),
        "decisions per agent-minute": (4.88, 4.3, 1.13, True),
    }
    assert c["all_within"] and c["measured_run"]["saturated"]
    rows = c["rows"]
    assert rows[0]["measured_from"] == f"{rel}: all_processes.cpu_percent / 100"
    assert rows[2]["measured_from"] == f"{rel}: decisions_per_agent_minute"
    # a run whose agents decided at half the modelled pace: outside the band
    slow = check(p, m, _run(tmp_path, cpu=194.0, rss_mb=2800.0, pace=2.4), tmp_path)
    assert slow["rows"][2]["ratio"] == 2.03 and not slow["rows"][2]["within"]
    assert not slow["all_within"]
    # the rendered check says where each figure comes from
    out = tmp_path / "check.json"
    out.write_text(json.dumps(c))
    text = render_check(out, {})
    assert "| CPUs used (cores) | 2.00 | 1.94 | 1.03 | yes |" in text
    assert (
        "| CPU-bound | yes (the demand is 2.05 x the cores) | yes (machine CPU 199.9% of 200%)"
        in text
    )
    assert "- decisions per agent-minute: planned from runs.json: embodied_decisions" in text
    # a plan for other agents, or without Ray for a Ray run, checks nothing
    with pytest.raises(PlanError, match="a bench of 100 agents"):
        check(
            plan(50, _costs(), embodied=True, cores_per_node=2, memory_gb_per_node=24),
            m,
            rel,
            tmp_path,
        )
    ray_run = _run(tmp_path, cpu=194.0, rss_mb=2800.0, pace=4.3, launcher="ray")
    with pytest.raises(PlanError, match="plan it with --cluster ray"):
        check(p, m, ray_run, tmp_path)


def test_the_cli_prints_the_machine_and_writes_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", "--agents", "100", "--embodied", "--no-llm", "--cores", "2", "--json",
                 "--cores-per-node", "2", "--memory-per-node", "24"]) == 0  # fmt: skip
    on = json.loads(capsys.readouterr().out)["on_machine"]
    assert on["cores"] == 2 and on["cpus_used"] == 2 and on["cpu_bound"]
    assert (
        0
        < on["decisions_per_agent_minute"]
        < load_costs().embodied_decisions_per_agent_minute.value
    )
    out = tmp_path / "check.json"
    assert main(["plan", "--agents", "100", "--embodied", "--no-llm", "--check", CHECKED,
                 "--json-out", str(out)]) == 0  # fmt: skip
    written = json.loads(out.read_text())
    assert written["on_machine"]["cores"] == 2  # the run's machine
    assert written["measured_file"] == CHECKED and "provenance" in written
    capsys.readouterr()
    assert main(["plan", "--agents", "60", "--embodied", "--check", CHECKED]) == 2
    assert "a bench of 100 agents" in capsys.readouterr().err


@pytest.mark.parametrize("path", sorted((RESULTS / "plan").glob("check-*.json")), ids=str)
def test_a_committed_check_is_what_the_plan_says_now(path: Path) -> None:
    """The check files are the plan's, not typed in: made again from the committed runs,
    they come out the same (a new calibration needs them made again)."""
    kept = json.loads(path.read_text())
    run = kept["measured_file"]
    p = plan(
        kept["plan"]["agents"], load_costs(), embodied=True, llm=False,
        cores_per_node=kept["on_machine"]["cores"], memory_gb_per_node=1.0,
        ray=kept["plan"]["ray"],
    )  # fmt: skip
    m = on_machine(p, cores=kept["on_machine"]["cores"], memory_gb=kept["on_machine"]["memory_gb"])
    again = check(p, m, run)
    for key in ("rows", "all_within", "measured_run", "on_machine"):
        assert again[key] == kept[key], key
    assert again["plan"]["cpus"] == kept["plan"]["cpus"]
    assert again["plan"]["memory_gb"] == kept["plan"]["memory_gb"]


def test_the_fit_table_marks_what_the_model_misses() -> None:
    first = RESULTS / "plan/village-40-1shard.json"
    rows = render_check(
        first, {"table": "fit", "with": "../cluster-2026-11-27/village-100-workers2-c5.json"}
    ).splitlines()
    assert len(rows) == 4 and rows[2].startswith("| 2026-11-27 00:11 ")  # by date
    forty, hundred = rows[2].split(" | "), rows[3].split(" | ")
    assert forty[3] == "40 / 1" and forty[-4].endswith("(outside)")  # 10.87 against 6.92
    assert hundred[3] == "100 / 2" and hundred[5] == "2 / 1.94" and hundred[6] == "1.03"
