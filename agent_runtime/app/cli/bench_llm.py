"""``piano bench llm``: how many decisions agents get from a slow, narrow model server.

For every (latency, capacity) pair — by default 0.3, 1, 3 and 10 s a call and
1, 2 and 8 calls served at once — N agents run the LLM call mix of a village
against the simulated provider (``SimulatedLanguageModel``: a server that
answers ``capacity`` requests at a time after ``latency`` seconds each, the
rest waiting inside it), through the real ``LLMService``: priorities,
deadlines, shedding, adaptive concurrency, batched importance ratings. The
``llm:`` settings are the defaults (nothing tuned).

Each agent, in simulated seconds:

* the controller decides every ``--cadence`` s (2), waiting for the model or
  shedding to the heuristic; a talking reply every 10 s;
* goals every 30 s, a plan every 15 s, a social summary every 20 s;
* one memory every 2 s, rated in a batch every 5 s; a reflection every 60 s.

Time runs ``--time-scale`` times faster than the figures say (latencies,
periods and deadlines all divided), so the 12 runs take about
``12 * duration / time_scale`` wall seconds. Prints JSON: per pair, controller
decisions per agent-minute, the model's share of them, the model's share of
all module calls, shed and failed calls, and the longest wait for a slot.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from agent_runtime.app.bench_output import Measurement, add_json_out, emit
from agent_runtime.app.cli.bench_flags import add_llm_latency
from agent_runtime.config.llm import LLMDeadlines, LLMSettings
from agent_runtime.interfaces import LLMRequest, Message
from agent_runtime.llm import Brain, LLMService
from modules.memory.llm_policies import ImportanceBrain

LATENCIES_S = (0.3, 1.0, 3.0, 10.0)
CAPACITIES = (1, 2, 8)

#: (module, period in simulated seconds) of the non-controller calls of one agent.
PERIODIC: tuple[tuple[str, float], ...] = (
    ("talking", 10.0),
    ("goal_generation", 30.0),
    ("planning", 15.0),
    ("social_awareness", 20.0),
    ("reflection", 60.0),
)
MEMORY_EVERY_S = 2.0
RATE_EVERY_S = 5.0


class _Reply(BaseModel):
    text: str


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("llm", help="decisions per agent-minute against a slow simulated model")
    p.add_argument("--agents", type=int, default=5)
    p.add_argument("--duration", type=float, default=180.0, help="simulated seconds per run")
    p.add_argument("--time-scale", type=float, default=10.0, help="simulated s per wall s")
    p.add_argument("--cadence", type=float, default=2.0, help="controller period, simulated s")
    add_llm_latency(p, list(LATENCIES_S), "the simulated model's answer time", many=True)
    p.add_argument("--capacity", type=int, nargs="+", default=list(CAPACITIES))
    p.add_argument("--seed", type=int, default=1)
    add_json_out(p)


def _request(module: str, agent: str) -> LLMRequest[_Reply]:
    return LLMRequest(
        module=module,
        agent=agent,
        messages=(Message("system", f"You are {agent}'s {module}."), Message("user", "Decide.")),
        response_model=_Reply,
        max_tokens=80,
    )


def _heuristic() -> _Reply:
    return _Reply(text="heuristic")


async def _every(
    period: float, end: float, rng: random.Random, job: Callable[[], Awaitable[None]]
) -> None:
    await asyncio.sleep(rng.uniform(0, period))
    while time.monotonic() < end:
        t0 = time.monotonic()
        await job()
        await asyncio.sleep(max(0.0, period - (time.monotonic() - t0)))


async def _agent(
    svc: LLMService, name: str, end: float, scale: float, cadence: float, rng: random.Random
) -> dict[str, int]:
    decisions = {"model": 0, "heuristic": 0}
    controller = svc.brain("cognitive_controller", name)

    async def decide() -> None:
        thought = await controller.think(lambda: _request("cognitive_controller", name), _heuristic)
        decisions["heuristic" if thought.is_heuristic else "model"] += 1

    def call(brain: Brain) -> Callable[[], Awaitable[None]]:
        async def job() -> None:
            await brain.think(lambda: _request(brain.module, name), _heuristic)

        return job

    rater = ImportanceBrain(svc.brain("memory", name))
    pending: list[str] = []

    async def observe() -> None:
        pending.append(f"{name} saw something at {time.monotonic():.1f}")

    async def rate() -> None:
        batch = pending[:]
        pending.clear()
        if batch:
            await rater.rate_many([(t, "observation") for t in batch])

    async with asyncio.TaskGroup() as tg:
        tg.create_task(_every(cadence / scale, end, rng, decide))
        tg.create_task(_every(MEMORY_EVERY_S / scale, end, rng, observe))
        tg.create_task(_every(RATE_EVERY_S / scale, end, rng, rate))
        for module, period in PERIODIC:
            tg.create_task(_every(period / scale, end, rng, call(svc.brain(module, name))))
    return decisions


async def bench_one(
    latency_s: float,
    capacity: int,
    *,
    agents: int,
    duration_s: float,
    scale: float,
    cadence_s: float,
    seed: int,
) -> dict[str, Any]:
    """One (latency, capacity) pair; figures in simulated time."""
    defaults = LLMSettings()
    d = defaults.deadlines_s
    settings = LLMSettings(
        provider="simulated",
        simulated_latency_ms=latency_s * 1000.0 / scale,
        simulated_capacity=capacity,
        deadlines_s=LLMDeadlines(high=d.high / scale, normal=d.normal / scale, low=d.low / scale),
        queue_timeout_s=defaults.queue_timeout_s / scale,
        log_prompts=False,
    )
    rng = random.Random(seed)
    async with LLMService(settings, seed=seed) as svc:
        end = time.monotonic() + duration_s / scale
        async with asyncio.TaskGroup() as tg:
            tasks = [
                tg.create_task(_agent(svc, f"a{i}", end, scale, cadence_s, rng))
                for i in range(agents)
            ]
        snap = svc.snapshot()
    model = sum(t.result()["model"] for t in tasks)
    heuristic = sum(t.result()["heuristic"] for t in tasks)
    total = snap["accounting"]["total"]
    by_module = snap["accounting"]["by_module"]
    limiter = snap["limiter"]
    minutes = agents * duration_s / 60.0
    return {
        "latency_s": latency_s,
        "capacity": capacity,
        "decisions_per_agent_minute": round((model + heuristic) / minutes, 2),
        "model_decisions_per_agent_minute": round(model / minutes, 2),
        "controller_model_share": round(model / (model + heuristic), 3)
        if model + heuristic
        else 0.0,
        "all_calls_model_share": total["model_share"],
        "model_share_by_module": {m: s["model_share"] for m, s in by_module.items()},
        "llm_calls": total["calls"],
        "shed": total["shed"],
        "failed": total["failed"],
        "wait_s_max": round(limiter["wait_s_max"] * scale, 2),
        "wait_s_max_by_priority": {
            k: round(v * scale, 2) for k, v in limiter["wait_s_max_by_priority"].items()
        },
        "concurrency_limit_final": limiter["limit"],
    }


async def _bench(args: argparse.Namespace) -> dict[str, Any]:
    results = []
    for latency in args.llm_latency:
        for capacity in args.capacity:
            results.append(
                await bench_one(
                    latency,
                    capacity,
                    agents=args.agents,
                    duration_s=args.duration,
                    scale=args.time_scale,
                    cadence_s=args.cadence,
                    seed=args.seed,
                )
            )
    return {
        "agents": args.agents,
        "duration_s": args.duration,
        "time_scale": args.time_scale,
        "controller_cadence_s": args.cadence,
        "results": results,
    }


def run(args: argparse.Namespace) -> int:
    since = Measurement()
    emit(asyncio.run(_bench(args)), args, since)
    return 0
