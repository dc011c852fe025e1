"""The LLM layer against a real local model server: llama-cpp-python serving Gemma 3 270M.

The server and the GGUF are installed by ``make test`` (``make llm-server``); the
``llama_server`` fixture (``tests/llm/conftest.py``, :mod:`tests.llm.llama`) runs it on a
free loopback port with one thread, as a researcher's laptop would give it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from agent_runtime.app.cli.main import main as piano
from agent_runtime.config.llm import LLMSettings
from agent_runtime.interfaces import LLMRequest, Message
from agent_runtime.llm import LLMService
from tests.llm.llama import MODEL

pytestmark = [pytest.mark.slow, pytest.mark.cpu_bound, pytest.mark.timeout(1200)]


def test_llm_check_finds_json_object_with_schema(
    llama_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = piano(["llm", "check", "--base-url", llama_server, "--model", MODEL, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["reachable"] and report["model_listed"]
    modes = {m["mode"]: m["status"] for m in report["modes"]}
    assert modes["json_schema"] == "rejected"  # HTTP 500 "Input should be 'text' or ..."
    assert modes["json_object_schema"] == "works"
    assert report["working_mode"] == "json_object_schema"
    assert report["prompt_tokens_per_s"] > 0 and report["generation_tokens_per_s"] > 0
    assert report["recommendation"]["concurrency"] >= 1
    print(json.dumps(report), file=sys.stderr)  # the measured figures, for the record


class Decision(BaseModel):
    """Shaped like the cognitive controller's output."""

    skill: Literal["gather_wood", "mine_stone", "craft_tools", "eat", "explore", "talk", "rest"]
    target: str = Field(max_length=40)
    say: str = Field(max_length=100)
    reason: str = Field(max_length=120)


SYSTEM = (
    "You are the decision maker of a villager in Minecraft. Choose the next skill from: "
    "gather_wood, mine_stone, craft_tools, eat, explore, talk, rest. Keep every text short."
)
SITUATIONS = (
    "You are hungry (food 4/20) and have 3 bread.",
    "Night is falling and a zombie is 10 blocks away.",
    "Bob says: 'Hi! Can you bring me some wood?'",
    "You have 12 oak logs and no pickaxe.",
    "You stand next to a stone outcrop holding a wooden pickaxe.",
)


async def test_controller_calls_parse_through_the_layer(llama_server: str) -> None:
    settings = LLMSettings(
        provider="openai",
        base_url=llama_server,
        api_key_env=None,
        model=MODEL,
        timeout_s=120,  # one thread on a shared 2-core machine
        deadlines_s={"high": 600, "normal": 600, "low": 600},
        queue_timeout_s=600,
        log_prompts=False,
    )

    async def agent(name: str, svc: LLMService) -> list[str]:
        brain = svc.brain("cognitive_controller", name)
        labels = []
        for situation in SITUATIONS:
            thought = await brain.think(
                LLMRequest(
                    module="cognitive_controller",
                    agent=name,
                    messages=(Message("system", SYSTEM), Message("user", situation)),
                    response_model=Decision,
                    temperature=0.2,
                    max_tokens=200,
                ),
                lambda: Decision(skill="rest", target="", say="", reason="heuristic"),
            )
            labels.append(thought.brain)
        return labels

    async with LLMService(settings) as svc:
        runs = await asyncio.gather(agent("ann", svc), agent("bob", svc))
        snap = svc.snapshot()
    labels = [label for run in runs for label in run]
    stats = snap["accounting"]["by_module"]["cognitive_controller"]
    print(json.dumps({"controller": stats, "limiter": snap["limiter"]}), file=sys.stderr)
    assert stats["calls"] == 10
    assert stats["parsed"] + stats["repaired"] >= 9, stats  # >= 90% from the model's reply
    assert labels.count(f"llm:{MODEL}") >= 9
    assert 1 <= stats["format_rejections"] <= 2  # once per request in flight, then remembered
    assert snap["endpoints"][0]["working_mode"] == "json_object_schema"
