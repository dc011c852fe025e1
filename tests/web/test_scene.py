"""The page's scene, fed as the live page and the replay feed it (no browser, no services)."""

from __future__ import annotations

import json
from typing import Any

from agent_runtime.app.web.scene import Scene
from agent_runtime.app.web.world_map import world_layer

RUN = "r1"


def topic(agent: str, kind: str) -> str:
    return f"piano/{RUN}/agent/{agent}/{kind}"


def test_messages_make_agents_decisions_and_chat_heard_once() -> None:
    s = Scene(RUN)
    decision = {"id": "d1", "kind": "work", "intent": "collect logs", "brain": "heuristic"}
    s.on_message(topic("Ann", "decision"), decision, 100.0)
    s.on_message(topic("Ann", "decision"), decision, 100.5)  # the same decision again (Redis)
    s.on_message(topic("Ann", "speech"), {"speaker": "Ann", "text": "Hi Bob!", "to": "Bob"}, 101)
    heard = {"sender": "Ann", "message": "Hi Bob!", "whisper": False}
    s.on_message(topic("Bob", "heard"), heard, 101.2)
    s.on_message(topic("Cleo", "heard"), heard, 101.3)
    out = s.summary(102.0)
    assert [a["name"] for a in out["agents"]] == ["Ann", "Bob", "Cleo"]
    assert out["figures"]["decisions"] == 1 and out["figures"]["decisions_per_min"] == 1
    assert len(out["chat"]) == 1
    assert out["chat"][0]["heard_by"] == ["Bob", "Cleo"] and out["chat"][0]["to"] == "Bob"
    ann = next(a for a in out["agents"] if a["name"] == "Ann")
    assert ann["speech"] == "Hi Bob!" and ann["intent"] == "collect logs"
    assert s.summary(120.0)["agents"][0]["speech"] is None  # the bubble fades
    detail = s.detail("Ann")
    assert detail is not None and detail["decision"]["intent"] == "collect logs"


def test_redis_state_fills_the_panel_and_players() -> None:
    s = Scene(RUN)
    obs = {
        "position": {"x": 3.5, "y": 65, "z": -2},
        "inventory": {"oak_log": 4, "stone": 0},
        "players": [{"name": "Hugo", "position": {"x": 5, "y": 65, "z": 0}, "distance": 2}],
    }
    sections: dict[str, dict[str, Any]] = {
        "perception": {"observation": obs, "updated_at": 50.0},
        "goals": {"current": "gather wood", "updated_at": 40.0},
        "plan": {"steps": [{"text": "go to forest"}, {"text": "collect logs"}], "current": 1},
        "decision": {"id": "d9", "intent": "collect 4 oak log", "updated_at": 49.0},
        "awareness": {"discrepancies": [{"skill": "collect", "note": "got 2 of 4", "at": 48}]},
        "working_memory": {"items": [{"text": "I saw Hugo", "kind": "observation", "at": 47}]},
        "reflection": {"insights": ["Hugo is friendly"]},
        "social": {"people": {"Hugo": {"name": "Hugo", "sentiment": 8.0}}},
    }
    s.on_state("Ann", sections)
    d = s.detail("Ann")
    assert d is not None
    assert d["pos"] == [3.5, 65.0, -2.0] and d["inventory"] == {"oak_log": 4}
    assert d["goal"] == "gather wood" and d["plan_text"] == "collect logs"
    assert d["decision"]["intent"] == "collect 4 oak log"
    assert d["discrepancies"][0]["note"] == "got 2 of 4"
    assert d["memories"][0]["text"] == "I saw Hugo" and d["reflections"] == ["Hugo is friendly"]
    assert d["sentiments"] == {"Hugo": 8.0}
    out = s.summary(55.0)
    assert out["players"] == [{"name": "Hugo", "pos": [5.0, 65.0, 0.0], "t": 50.0}]
    assert out["edges"] == [{"from": "Ann", "to": "Hugo", "sentiment": 8.0}]
    assert s.summary(200.0)["figures"]["unresponsive"] == 1  # no news for over a minute


def test_progress_records_of_workers_add_up() -> None:
    s = Scene(RUN)
    base = {"decisions": 3, "llm_calls": 10, "lag_ms_p95": 4.0, "positions": {"Ann": [1, 2, 3]}}
    s.on_message(f"piano/{RUN}/run/progress", {**base, "shard": [0, 2]})
    s.on_message(f"piano/{RUN}/run/progress", {**base, "shard": [1, 2], "lag_ms_p95": 9.0})
    figures = s.summary()["figures"]
    assert figures["llm_calls"] == 20 and figures["lag_ms_p95"] == 9.0
    assert s.agents["Ann"].pos == [1.0, 2.0, 3.0]


def test_events_records_replay_a_run() -> None:
    s = Scene(RUN)
    records = [
        {"t": 1.0, "type": "run_started", "run_id": RUN},
        {"t": 2.0, "type": "world_started", "places": {"farm": [12, 65, -6]}},
        {"t": 3.0, "type": "goal", "agent": "Bob", "goal": "farm"},
        {"t": 3.5, "type": "plan", "agent": "Bob", "steps": ["go to farm", "harvest"]},
        {
            "t": 4.0,
            "type": "skill_outcome",
            "agent": "Bob",
            "call": {"skill": "go_to"},
            "success": True,
            "delta": {"wheat": 2},
        },
        {"t": 5.0, "type": "discrepancy", "agent": "Bob", "skill": "collect", "note": "none"},
        {"t": 6.0, "type": "module_error", "agent": "Bob", "module": "x"},
    ]
    for r in json.loads(json.dumps(records)):
        s.on_event(r)
    d = s.detail("Bob")
    assert d is not None and d["inventory"] == {"wheat": 2} and d["plan_text"] == "harvest"
    assert s.summary()["figures"]["errors"] == 1
    assert s.world["places"] == [{"name": "farm", "x": 12.0, "y": 65.0, "z": -6.0}]


def test_world_layer_from_the_servers_layout() -> None:
    layer = world_layer(
        {
            "places": [{"name": "town_hall", "x": 0, "y": 65, "z": -18}],
            "chests": [{"x": 1, "y": 65, "z": -21}],
            "layout": {
                "centre_x": 0,
                "centre_z": 0,
                "farm": {"dx": 12, "dz": -6, "width": 13, "depth": 13},
                "lake": {"dx": -32, "dz": 30, "radius": 9},
                "hills": None,
            },
        }
    )
    kinds = {a["kind"]: a for a in layer["areas"]}
    assert set(kinds) == {"plaza", "farm", "lake"}
    assert kinds["farm"] == {"kind": "farm", "shape": "rect", "x0": 12, "z0": -6, "x1": 25, "z1": 7}
    assert kinds["lake"]["r"] == 9 and layer["chests"] == [[1.0, 65.0, -21.0]]


async def test_a_busy_port_is_reported_not_probed(tmp_path: Any) -> None:
    import socket

    from agent_runtime.app.web import WebView

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        web = WebView(
            run_id=RUN,
            redis_url="redis://127.0.0.1:1",
            mqtt_url="mqtt://127.0.0.1:1",
            run_dir=tmp_path,
            port=port,
        )
        async with web:
            assert web.url is None and web.pid is None
            assert web.error is not None and "in use" in web.error
