"""``piano run`` says before it starts when a village asks this machine for more cores than
it has (the plan's demand from the committed results), and goes on; it says nothing when the
village fits or runs on a cluster."""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.cli import cmd_run
from agent_runtime.app.cli.main import build_parser
from agent_runtime.app.plan import load_costs, on_machine, plan
from agent_runtime.app.plan.overload import overload_warning

REPO = Path(__file__).resolve().parents[2]


def test_a_village_past_the_cores_is_warned_about_with_the_plans_figures() -> None:
    text = overload_warning(200, embodied=True, cores=2)
    assert text is not None
    demand = plan(200, load_costs(), embodied=True, cores_per_node=2, memory_gb_per_node=1e6)
    assert f"about {demand.cpus:g} cores" in text, text
    assert f"({on_machine(demand, cores=2).cpu_load:.1f} x its cores)" in text, text
    assert "piano plan --agents 200 --embodied --cores 2" in text and "kicks" in text, text


def test_a_village_within_the_cores_is_not_warned_about() -> None:
    assert overload_warning(5, embodied=True, cores=2) is None
    # a village with no world costs a fraction of one with bodies
    assert overload_warning(200, embodied=False, cores=2) is None


def test_no_warning_without_the_measured_costs(tmp_path: Path) -> None:
    assert overload_warning(200, embodied=True, cores=2, root=tmp_path) is None


def _no_village(coro: Coroutine[Any, Any, int]) -> int:
    coro.close()  # the village is not started: only what is said before it
    return 0


@pytest.mark.parametrize(
    ("extra", "warned"),
    [([], True), (["--agents", "3"], False), (["--cluster", "ray:2"], False)],
)
def test_piano_run_says_it_before_starting(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    extra: list[str],
    warned: bool,
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.setattr("agent_runtime.event_loop.run", _no_village)
    config = str(REPO / "configs" / "village_small.yaml")
    args = build_parser().parse_args(
        ["run", config, "--agents", "200", "--out", str(tmp_path), *extra]
    )
    assert cmd_run.run(args) == 0
    err = capsys.readouterr().err
    assert ("warning: " in err) is warned, err
