"""The live page's LLM figures per agent-hour: calls, tokens and dollars per module, added
up over workers (issue 30)."""

from __future__ import annotations

from agent_runtime.app.web.scene import Scene

RUN = "r1"


def test_page_shows_calls_tokens_and_dollars_per_agent_hour_per_module() -> None:
    s = Scene(RUN)
    s.on_message(f"piano/{RUN}/agent/Ann/decision", {"id": "d1", "kind": "work"}, 100.0)
    s.on_message(f"piano/{RUN}/agent/Bob/decision", {"id": "d2", "kind": "work"}, 100.0)
    modules = {
        "cognitive_controller": {"calls": 30, "tokens": 18_000, "cost_usd": 0.06},
        "planning": {"calls": 4, "tokens": 2_000, "cost_usd": 0.01},
    }
    base = {"elapsed_s": 1800.0, "llm_calls": 34, "llm_tokens": 20_000, "llm_cost_usd": 0.07}
    shard_b = {"cognitive_controller": {"calls": 10, "tokens": 6_000, "cost_usd": 0.02}}
    s.on_message(f"piano/{RUN}/run/progress", {**base, "llm_modules": modules, "shard": [0, 2]})
    s.on_message(
        f"piano/{RUN}/run/progress",
        {
            "elapsed_s": 1800.0,
            "llm_calls": 10,
            "llm_tokens": 6_000,
            "llm_cost_usd": 0.02,
            "llm_modules": shard_b,
            "shard": [1, 2],
        },
    )
    f = s.summary(100.0)["figures"]
    # two agents for half an hour: one agent-hour
    assert f["calls_per_agent_hour"] == 44
    assert f["tokens_per_agent_hour"] == 26_000
    per = f["llm_per_agent_hour"]
    assert per["cognitive_controller"] == {"calls": 40, "tokens": 24_000, "usd": 0.08}
    assert per["planning"] == {"calls": 4, "tokens": 2_000, "usd": 0.01}
