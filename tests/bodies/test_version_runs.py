"""``bots.version_runs``: the figures of a run folder (issue 34's village and experiment runs by
Minecraft version)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from bots.version_runs import summarise


def _run(tmp_path: Path, agents: list[dict[str, str]]) -> Path:
    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    cfg = {"world": {"version": "1.21.4"}, "run": {"seed": 1}, "agents": agents,
           "agent_templates": [{"count": 2}]}  # fmt: skip
    (run / "config.resolved.yaml").write_text(yaml.safe_dump(cfg))
    ok = {"type": "skill_outcome", "call": {"skill": "collect"}, "success": True}
    events = [
        {"t": 0.0, "type": "decision", "agent": "Ann"},
        {"t": 30.0, "type": "decision", "agent": "Bob"},
        {"t": 60.0, "agent": "Bob", **ok},
        {"t": 60.0, "type": "body_event", "agent": "Ann", "kind": "disconnected"},
    ]
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (run / "logs" / "server.log").write_text("[ERROR]: Client 127.0.0.1 : TypeError\nok\n")
    return run


def test_a_village_of_templates_counts_the_agents_its_events_name(tmp_path: Path) -> None:
    """An experiment's village lists templates, not agents: its agents are those the events
    name (before, 0 agents and every rate 0)."""
    s = summarise(_run(tmp_path, []))
    assert s["agents"] == 2 and set(s["per_agent"]) == {"Ann", "Bob"}
    assert s["decisions_per_agent_minute"] == 1.0  # 2 decisions, 2 agents, 60 s
    assert s["skills"] == {"collect": {"succeeded": 1}}
    assert (s["disconnects"], s["server_log_error_lines"]) == (1, 1)


def test_a_village_file_lists_its_agents(tmp_path: Path) -> None:
    s = summarise(_run(tmp_path, [{"name": "Ann"}, {"name": "Cleo"}]))
    assert set(s["per_agent"]) == {"Ann", "Cleo"}
