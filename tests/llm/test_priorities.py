"""Priorities, deadlines, shedding and adaptive concurrency of the LLM limiter."""

from __future__ import annotations

import asyncio
import time

import pytest

from agent_runtime.config.llm import LLMSettings
from agent_runtime.llm import (
    FakeOpenAIServer,
    FakeReply,
    Limiter,
    LLMService,
    LLMShed,
    RecordedRequest,
    SimulatedLanguageModel,
)
from agent_runtime.llm.adaptive import AdaptiveConcurrency
from agent_runtime.llm.priority import Priority, SchedulingPolicy, priority_for

from .conftest import PLAN, ModelFactory, Plan, one_at_a_time, plan_request


def test_priority_from_module_name() -> None:
    assert priority_for("cognitive_controller") is Priority.HIGH
    assert priority_for("talking") is Priority.HIGH
    assert priority_for("goal_generation") is Priority.NORMAL
    assert priority_for("planning") is Priority.NORMAL
    assert priority_for("social_awareness") is Priority.NORMAL
    assert priority_for("reflection") is Priority.LOW
    assert priority_for("memory") is Priority.LOW
    policy = SchedulingPolicy(overrides={"planning": Priority.HIGH})
    assert policy.priority("planning") is Priority.HIGH


async def _hold(limiter: Limiter) -> tuple[asyncio.Task[None], asyncio.Event]:
    release, entered = asyncio.Event(), asyncio.Event()

    async def holder() -> None:
        async with limiter.slot(module="x"):
            entered.set()
            await release.wait()

    task = asyncio.create_task(holder())
    await entered.wait()
    return task, release


async def _queued(limiter: Limiter, n: int) -> None:
    async with asyncio.timeout(5):
        await limiter.wait_for(lambda lim: lim.queued >= n)


async def test_higher_priority_is_served_first() -> None:
    limiter = Limiter(concurrency=1)
    task, release = await _hold(limiter)
    order: list[str] = []

    async def ask(module: str) -> None:
        async with limiter.slot(module=module):
            order.append(module)

    waiters = []
    for module in ("memory", "planning", "memory", "cognitive_controller", "talking"):
        waiters.append(asyncio.create_task(ask(module)))
        await _queued(limiter, len(waiters))
    release.set()
    async with asyncio.timeout(5):
        await asyncio.gather(task, *waiters)
    assert order == ["cognitive_controller", "talking", "planning", "memory", "memory"]


async def test_low_priority_is_shed_at_its_deadline() -> None:
    policy = SchedulingPolicy(
        deadlines_s={Priority.HIGH: 5.0, Priority.NORMAL: 5.0, Priority.LOW: 0.05}
    )
    limiter = Limiter(concurrency=1, policy=policy)
    task, release = await _hold(limiter)
    high = asyncio.create_task(_enter(limiter, "cognitive_controller"))
    t0 = time.monotonic()
    with pytest.raises(LLMShed) as info:
        async with limiter.slot(module="reflection"):
            pass
    # shed at its own deadline, not at the others' (5 s)
    assert 0.04 <= time.monotonic() - t0 < 5.0
    assert (info.value.reason, info.value.priority) == ("deadline", "low")
    assert limiter.snapshot()["shed"] == {"low:deadline": 1}
    assert not high.done()  # the controller still waits within its own deadline
    release.set()
    async with asyncio.timeout(5):
        await asyncio.gather(task, high)
    assert limiter.in_flight == 0 and limiter.queued == 0


async def _enter(limiter: Limiter, module: str) -> None:
    async with limiter.slot(module=module):
        pass


async def test_backlog_is_shed_at_once() -> None:
    policy = SchedulingPolicy(
        deadlines_s={Priority.HIGH: 30.0, Priority.NORMAL: 30.0, Priority.LOW: 10.0}
    )
    limiter = Limiter(concurrency=1, policy=policy)
    limiter.concurrency_control.observe("memory", 20.0, saturated=False)  # calls take ~20 s
    task, release = await _hold(limiter)
    first = asyncio.create_task(_enter(limiter, "memory"))  # first in line: waits
    await _queued(limiter, 1)
    t0 = time.monotonic()
    with pytest.raises(LLMShed) as info:
        async with limiter.slot(module="memory"):
            pass
    # no waiting for its 10 s deadline: the queue (~20 s a call) could not make it anyway
    assert time.monotonic() - t0 < 5.0
    assert info.value.reason == "backlog"
    assert limiter.behind(Priority.LOW) and not limiter.behind(Priority.HIGH)
    release.set()
    async with asyncio.timeout(5):
        await asyncio.gather(task, first)  # the first in line got the freed slot


async def test_brain_priority_argument_jumps_the_queue() -> None:
    limiter = Limiter(concurrency=1)
    order: list[str] = []
    gate = asyncio.Event()

    async def respond(req: RecordedRequest) -> FakeReply:
        order.append(req.messages[-1]["content"])
        await gate.wait()
        return FakeReply.json(PLAN)

    async with FakeOpenAIServer(default=respond) as srv:
        settings = LLMSettings(
            provider="openai", base_url=srv.base_url, api_key_env=None, log_prompts=False
        )
        async with LLMService(settings) as svc:
            svc.limiter = limiter
            svc._models.clear()
            brain = svc.brain("reflection", "a")
            first = asyncio.create_task(brain.think(plan_request(user="first"), _heuristic))
            async with asyncio.timeout(5):
                await srv.wait_for_in_flight(1)
            low = asyncio.create_task(brain.think(plan_request(user="low"), _heuristic))
            await _queued(limiter, 1)
            urgent = asyncio.create_task(
                brain.think(plan_request(user="urgent"), _heuristic, priority="high")
            )
            await _queued(limiter, 2)
            gate.set()
            async with asyncio.timeout(5):
                await asyncio.gather(first, low, urgent)
    assert order == ["first", "urgent", "low"]


def _heuristic() -> Plan:
    return Plan(goal="heuristic", steps=["wait"])


async def test_shedding_falls_back_and_is_accounted() -> None:
    """A slow one-at-a-time model: the controller is served; importance ratings are shed."""
    async with LLMService(one_at_a_time(200, normal_s=2)) as svc:
        controller = svc.brain("cognitive_controller", "a")
        memory = svc.brain("memory", "a")
        busy = asyncio.create_task(controller.think(plan_request(), _heuristic))
        async with asyncio.timeout(5):
            await svc.limiter.wait_for(lambda lim: lim.in_flight > 0)
        rated = await asyncio.gather(*(memory.think(plan_request(), _heuristic) for _ in range(4)))
        decided = await busy
        report = svc.report()
        snap = svc.snapshot()
        line = svc.progress_text()
    assert decided.brain == "llm:simulated"
    assert {t.brain for t in rated} == {"heuristic"}
    assert {t.fallback_reason for t in rated} == {"LLMShed"}
    mem = snap["accounting"]["by_module"]["memory"]
    assert (mem["calls"], mem["shed"], mem["failed"], mem["fallbacks"]) == (4, 4, 0, 4)
    assert sum(mem["shed_reasons"].values()) == 4
    assert any(line.startswith("warning: memory: 4 of 4 LLM calls (100%)") for line in report)
    assert not any("cognitive_controller" in line for line in report if "warning" in line)
    assert snap["accounting"]["total"]["model_share"] == pytest.approx(0.2)
    assert line.startswith("model 20% of 5 decisions  fallbacks 4 (shed 4, failed 0)")
    header, controller_row, memory_row = report[:3]
    assert header.split()[:6] == ["module", "calls", "parsed", "repaired", "shed", "failed"]
    assert controller_row.split()[:6] == ["cognitive_controller", "1", "1", "0", "0", "0"]
    assert memory_row.split()[:6] == ["memory", "4", "0", "0", "4", "0"]


def test_adaptive_concurrency_follows_latency_and_429() -> None:
    now = [0.0]
    ac = AdaptiveConcurrency(8, clock=lambda: now[0], initial=1)
    assert ac.effective == 1
    ac.observe("m", 1.0, saturated=True, in_flight=1)  # alone and saturated: slow start
    assert ac.limit == 2  # a first baseline sample: two more alone before anything is judged
    assert ac.probing and ac.effective == 1
    for _ in range(2):
        ac.observe("m", 1.0, saturated=True, in_flight=1)
    assert not ac.probing and ac.effective == 2  # a probe's replies do not raise the limit
    ac.observe("m", 1.0, saturated=True, in_flight=1)
    assert ac.effective == 3
    for _ in range(3):  # three at a time, no slower: concurrency helps
        ac.observe("m", 1.0, saturated=True, in_flight=3)
    assert ac.effective == 4
    now[0] = 10.0
    for _ in range(3):  # 3x the baseline with 4 in flight: they queue in the server
        ac.observe("m", 3.0, saturated=True, in_flight=4)
    assert ac.effective == 3
    assert ac.decreases == 1
    ac.overloaded()  # HTTP 429
    assert ac.effective == 1
    before = ac.limit
    ac.observe("m", 1.0, saturated=False, in_flight=1)  # not saturated: no evidence for more
    assert ac.limit == before
    ac.observe("m", 1.0, saturated=True, in_flight=1)  # after congestion: additive increase
    assert before < ac.limit < before + 1
    ac.observe("other", 9.0, saturated=True, in_flight=2)  # no baseline of its own yet
    fixed = AdaptiveConcurrency(8, enabled=False)
    fixed.observe("m", 5.0, saturated=True, in_flight=8)
    fixed.overloaded()
    assert fixed.effective == 8


def test_probe_for_a_baseline_when_requests_never_come_alone() -> None:
    ac = AdaptiveConcurrency(8, initial=4)
    ac.probe_after = 8
    for _ in range(7):
        ac.observe("m", 2.0, saturated=True, in_flight=2)
    assert ac.effective == 4 and not ac.probing  # no baseline, no judgement
    ac.observe("m", 2.0, saturated=True, in_flight=2)
    assert ac.probing and ac.effective == 1  # one request alone, to measure a baseline
    for _ in range(2):
        ac.observe("m", 1.0, saturated=True, in_flight=1)
        assert ac.probing  # until the baseline has three replies alone
    ac.observe("m", 1.0, saturated=True, in_flight=1)
    assert not ac.probing and ac.effective == 4  # the level before the probe, not raised
    assert ac.snapshot()["probes"] == 1


def test_one_slow_reply_alone_is_not_a_baseline() -> None:
    now = [0.0]
    ac = AdaptiveConcurrency(8, clock=lambda: now[0])
    ac.observe("m", 5.0, saturated=False, in_flight=1)  # the first reply: a cold server
    assert ac.probing and ac.effective == 1  # replies alone until the baseline is trusted
    for _ in range(3):  # granted before the probe, two at a time: not judged
        ac.observe("m", 2.0, saturated=True, in_flight=2)
    assert ac.probing and ac.limit == 2 and ac.decreases == 0
    ac.observe("m", 1.0, saturated=True, in_flight=1)
    assert ac.probing
    ac.observe("m", 1.0, saturated=True, in_flight=1)
    assert not ac.probing  # median(5, 1, 1): the slow reply is outvoted
    before = ac.effective
    now[0] = 10.0
    for _ in range(3):  # twice the baseline with `before` in flight: they queue
        ac.observe("m", 2.0 * before, saturated=True, in_flight=before)
    assert ac.effective < before and ac.decreases == 1


async def test_adaptive_limit_settles_at_the_server_capacity() -> None:
    model = SimulatedLanguageModel(latency_ms=20, capacity=1)
    limiter = Limiter(concurrency=8, adaptive=True, queue_timeout_s=30)
    policy_free = SchedulingPolicy(
        deadlines_s={Priority.HIGH: 30.0, Priority.NORMAL: 30.0, Priority.LOW: 30.0}
    )
    limiter.policy = policy_free

    first = asyncio.Event()

    async def one() -> None:
        async with limiter.slot(module="planning") as slot:
            if not first.is_set():  # the first reply comes late (a cold server, a stall)
                first.set()
                await asyncio.sleep(0.15)
            await model.complete(plan_request())
            slot.succeeded()

    async with asyncio.timeout(20):
        await asyncio.gather(*(one() for _ in range(40)))
    assert limiter.limit <= 2
    assert limiter.concurrency_control.decreases >= 1


async def test_429_lowers_the_limit(server: FakeOpenAIServer, make_model: ModelFactory) -> None:
    limiter = Limiter(concurrency=8, adaptive=True, initial_concurrency=8)
    server.push(FakeReply.error(429, retry_after=0), FakeReply.json(PLAN))
    await make_model(limiter=limiter).complete(plan_request())
    assert limiter.concurrency_control.limit == 4  # (a probe for a first baseline follows)
    assert limiter.concurrency_control.overloads == 1


async def test_last_slot_is_kept_for_the_controller_while_it_keeps_asking() -> None:
    limiter = Limiter(concurrency=1)
    limiter.concurrency_control.observe("cognitive_controller", 0.3, saturated=False)
    await _enter(limiter, "cognitive_controller")  # high-priority demand just now
    order: list[str] = []

    async def ask(module: str) -> None:
        async with limiter.slot(module=module):
            order.append(module)

    low = asyncio.create_task(ask("memory"))
    await _queued(limiter, 1)  # the slot is free, but kept for the controller
    assert limiter.in_flight == 0
    await ask("cognitive_controller")
    async with asyncio.timeout(5):
        await low  # granted once the controller's demand is older than a service time
    assert order == ["cognitive_controller", "memory"]


async def test_a_request_kept_from_the_free_slot_gets_it_when_the_demand_lapses() -> None:
    """Nothing in flight, so no release to dispatch the queue: the waiter must still be
    looked at again when the controller's reservation lapses, not shed at its deadline."""
    limiter = Limiter(concurrency=1)
    limiter.concurrency_control.observe("cognitive_controller", 0.3, saturated=False)
    await _enter(limiter, "cognitive_controller")  # high-priority demand just now
    async with asyncio.timeout(5), limiter.slot(module="memory"):  # LLMShed if left waiting
        assert limiter.in_flight == 1


async def test_the_slot_stays_kept_after_a_long_controller_call() -> None:
    """A controller call longer than a service time is still demand when it ends: a lower
    request queued meanwhile does not take the slot at once (ci11: the other agent's
    controller call then waited 30 s behind a lower call and was shed)."""
    limiter = Limiter(concurrency=1)
    limiter.concurrency_control.observe("cognitive_controller", 0.3, saturated=False)
    release, entered = asyncio.Event(), asyncio.Event()
    order: list[str] = []

    async def long_call() -> None:
        async with limiter.slot(module="cognitive_controller"):
            entered.set()
            await release.wait()

    async def ask(module: str) -> None:
        async with limiter.slot(module=module):
            order.append(module)

    held = asyncio.create_task(long_call())
    await entered.wait()
    limiter._high_demand_at -= 100.0  # asked for long ago: the call outlasted a service time
    low = asyncio.create_task(ask("goal_generation"))
    await _queued(limiter, 1)
    release.set()
    async with asyncio.timeout(5):
        await held
    assert limiter.in_flight == 0 and limiter.queued == 1  # kept for the next controller call
    await ask("cognitive_controller")
    async with asyncio.timeout(5):
        await low  # served once no controller call came within a service time
    assert order == ["cognitive_controller", "goal_generation"]


def test_a_level_where_requests_queued_is_not_probed_again_soon() -> None:
    now = [0.0]
    ac = AdaptiveConcurrency(2, clock=lambda: now[0])
    ac.refresh_after = 20
    for _ in range(3):  # alone: the baseline
        ac.observe("m", 10.0, saturated=True, in_flight=1)
    now[0] = 100.0
    for _ in range(3):  # two in flight take twice as long: a one-at-a-time server
        ac.observe("m", 20.0, saturated=True, in_flight=2)
    assert ac.effective == 1 and ac.snapshot()["ceiling"] >= 2
    for _ in range(15):  # alone and saturated: no evidence against more, but 2 was seen
        ac.observe("m", 10.0, saturated=True, in_flight=1)
    assert ac.effective == 1
    for _ in range(10):  # after refresh_after replies the level is probed again
        ac.observe("m", 10.0, saturated=True, in_flight=1)
    assert ac.effective == 2 and ac.snapshot()["ceiling"] is None


def test_a_level_where_a_request_timed_out_is_not_grown_back_to_soon() -> None:
    ac = AdaptiveConcurrency(8)
    for _ in range(3):  # alone: a baseline
        ac.observe("m", 10.0, saturated=False, in_flight=1)
    assert ac.effective == 2
    ac.overloaded()  # a timeout with two in flight
    assert ac.effective == 1
    for _ in range(50):  # alone and saturated: additive increase, below the ceiling
        ac.observe("m", 10.0, saturated=True, in_flight=1)
    assert ac.effective == 1 and ac.snapshot()["ceiling"] == 2
