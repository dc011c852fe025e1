"""Progress display: a bar on a terminal, plain lines elsewhere; the experiments' page port."""

from __future__ import annotations

import io
import re

import pytest

from agent_runtime.app.progress import ProgressBar, RunView, default_web_port, format_duration


def test_a_terminal_gets_one_redrawn_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    out = io.StringIO()
    bar = ProgressBar("run x", 100.0, stream=out, tty=True)
    bar.update({"elapsed_s": 25.0, "agents": 5, "decisions": 12, "errors": 0})
    bar.update({"elapsed_s": 50.0, "agents": 5, "decisions": 20, "errors": 1, "lag_ms_p95": 3.2})
    bar.close()
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out.getvalue())  # rich's colours and cursor
    frames = [f for f in text.split("\r") if f.strip()]
    assert text.endswith("\n") and text.count("\n") == 1  # redrawn in place, then ended
    last = frames[-1]
    assert last.startswith("run x ") and " 50% " in last
    assert " 0:00:50 0:00:50 " in last  # elapsed, then time left (from the records' clock)
    assert "agents 5  decisions 20  errors 1  lag p95 3 ms" in last
    assert "25%" in frames[-3] and "decisions 12" in frames[-3]


def test_a_pipe_gets_plain_lines_and_open_ended_runs_no_percentage() -> None:
    out = io.StringIO()
    bar = ProgressBar("bench", None, stream=out, tty=False)
    bar.update({"elapsed_s": 3725.0, "agents": 200, "decisions": 9})
    bar.close()
    assert out.getvalue() == "bench  1:02:05 elapsed  agents 200  decisions 9\n"
    assert format_duration(59.9) == "00:59"


def test_run_view_sends_lines_to_the_commands_printer() -> None:
    said: list[str] = []
    view = RunView("tax-r0", 60.0, said.append, web_port=None)
    view.bar.tty = False
    options = view.options()
    assert options["web_port"] is None and options["progress"] is not None
    options["progress"]({"elapsed_s": 30.0, "agents": 4, "decisions": 2, "errors": 0})
    options["progress"]({"elapsed_s": 31.0, "agents": 4, "decisions": 3, "errors": 0})  # too soon
    assert said == ["tax-r0   50%  00:30 elapsed  00:30 left  agents 4  decisions 2  errors 0"]
    assert RunView("quiet", 1.0, None).options()["progress"] is None


def test_experiments_page_port_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIANO_WEB_PORT", "off")
    assert default_web_port() is None
    monkeypatch.setenv("PIANO_WEB_PORT", "8790")
    assert default_web_port() == 8790
    monkeypatch.delenv("PIANO_WEB_PORT")
    assert default_web_port() is None  # pytest's stdout is not a terminal


def test_village_figures_read_counters_only() -> None:
    from types import SimpleNamespace

    from agent_runtime.app.progress import village_figures
    from agent_runtime.run.coherence import CoherenceTracker
    from agent_runtime.sched_stats import SchedulerMetrics

    metrics = SchedulerMetrics()
    for i in range(100):
        metrics.record_lag(i / 1000.0)  # 0..99 ms
    coherence = CoherenceTracker(window_s=30.0)
    coherence({"type": "skill_started", "agent": "Ann", "t": 1.0, "call": {"skill": "collect"}})
    coherence({"type": "speech", "agent": "Ann", "t": 1.5, "text": "I'll collect some wood"})
    village = SimpleNamespace(
        metrics=metrics, services=None, coherence=coherence, store=None, agents={}
    )
    out = village_figures(village)
    assert out["lag_ms_p50"] == 49.5 and 94 <= out["lag_ms_p95"] <= 95
    assert out["coherence"] == coherence.summary()["kept_share"]
    assert "positions" not in out and "llm_calls" not in out
