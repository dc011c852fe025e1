"""Agents never freeze: while the controller's model call is in flight (a scripted model
that blocks on an event nobody sets), the reflexes still answer a greeting and eat when
hungry, labelled heuristic; at most one call per agent is in flight; the model's late
decision does not repeat what a reflex already did."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from agent_runtime.app.testing import config, local_services, module_context
from agent_runtime.bus import topics
from agent_runtime.bus.messages import Heard
from agent_runtime.clock import wall_time
from agent_runtime.interfaces import LLMRequest
from agent_runtime.llm.brain import Brain
from agent_runtime.llm.errors import LLMShed
from agent_runtime.llm.scripted import ScriptedLanguageModel, ScriptedReply
from agent_runtime.module import Schedule
from agent_runtime.sched_stats import SchedulerMetrics
from agent_runtime.scheduling import ModuleRunner
from agent_runtime.state.sections import (
    Action,
    Conversation,
    Decision,
    Identity,
    IntentKind,
    Perception,
    Utterance,
    UtteranceKind,
)
from agent_runtime.state.store import AgentState
from agent_runtime.world import Observation, SkillCall
from modules.controller.decisions import ControllerChoice
from modules.controller.module import REFLEX_POLL_S, THINK_GRACE_S, CognitiveController
from modules.controller.reflexes import KEEP_GOING_S, keep_going, reflex
from tests.core.helpers import wait_until
from tests.modules.helpers import NOW, bview

WAIT_S = 5.0


def hungry(
    food: float = 4.0, inv: dict[str, int] | None = None, health: float = 20.0
) -> Perception:
    obs = Observation(food=food, health=health, inventory={"bread": 2} if inv is None else inv)
    return Perception(observation=obs)


def greeted(at: float) -> Conversation:
    return Conversation(lines=(Utterance(speaker="Bob", text="Hello Ann!", to="Ann", at=at),))


# --- the reflex rules --------------------------------------------------------------------


def test_nothing_urgent_is_no_reflex() -> None:
    assert reflex(bview(perception=hungry(food=20)), random.Random(0)) is None


def test_hungry_with_food_eats() -> None:
    out = reflex(bview(perception=hungry()), random.Random(0))
    assert out is not None and out.kind is IntentKind.EAT
    assert out.skill == "eat" and out.args == {"item": "bread"}


def test_while_the_model_thinks_a_running_skill_is_kept_and_said_so() -> None:
    running = Action(running=SkillCall(skill="collect", args={"block": "log"}), started_at=NOW - 30)
    view = bview(perception=hungry(food=20), action=running)
    assert keep_going(view, NOW - KEEP_GOING_S / 2) is None  # decided recently: nothing to say
    out = keep_going(view, NOW - KEEP_GOING_S - 1)
    assert out is not None and out.kind is IntentKind.CONTINUE and out.skill is None
    assert "collect" in out.intent
    idle = keep_going(bview(perception=hungry(food=20)), 0.0)  # nothing runs: it waits
    assert idle is not None and idle.skill is None and idle.kind is IntentKind.CONTINUE


def test_badly_hurt_without_food_moves_away_once() -> None:
    hurt = hungry(food=20, inv={}, health=3)
    out = reflex(bview(perception=hurt), random.Random(0))
    assert out is not None and out.skill == "explore" and out.kind is IntentKind.RECOVER
    moving = Action(running=SkillCall(skill="explore", args={"distance": 24}), started_at=NOW - 1)
    assert reflex(bview(perception=hurt, action=moving), random.Random(0)) is None


def test_a_greeting_is_answered_and_a_hungry_agent_also_eats() -> None:
    out = reflex(bview(perception=hungry(), conversation=greeted(NOW - 1)), random.Random(0))
    assert out is not None and out.skill == "eat"
    assert out.say is not None and out.say.kind is UtteranceKind.GREET and out.say.to == "Bob"
    talk = reflex(
        bview(perception=hungry(food=20), conversation=greeted(NOW - 1)), random.Random(0)
    )
    assert talk is not None and talk.skill is None and talk.say is not None
    assert talk.say.to == "Bob"


# --- the controller while its model blocks -----------------------------------------------


@dataclass
class Rig:
    cc: CognitiveController
    ctx: Any
    state: AgentState
    model: ScriptedLanguageModel
    seen: list[dict[str, Any]]
    release: asyncio.Event

    def decisions(self) -> list[dict[str, Any]]:
        return [e for e in self.seen if e["type"] == "decision"]


@contextlib.asynccontextmanager
async def rig(
    schedule: Schedule | None = None, reply: ScriptedReply | None = None
) -> AsyncIterator[Rig]:
    release = asyncio.Event()  # never set unless the test says so: the model "thinks"

    async def slow(request: LLMRequest[Any]) -> ScriptedReply:
        await release.wait()
        return reply if reply is not None else ControllerChoice(kind=IntentKind.WAIT)

    model = ScriptedLanguageModel(responder=slow, name="slow")
    async with local_services(config(llm={"provider": "openai"})) as svc:
        st = svc.store.agent("Ann")
        st.set("identity", Identity(name="Ann"), writer="runtime")
        st.set("perception", hungry(food=20), writer="perception")
        seen: list[dict[str, Any]] = []
        svc.events.add_listener(seen.append)
        cc = CognitiveController(schedule or Schedule(cadence=3.0))
        ctx = module_context(svc, cc, agent="Ann")
        ctx.brain = Brain(model, module="cognitive_controller", agent="Ann")
        yield Rig(cc, ctx, st, model, seen, release)


async def test_reflexes_work_while_the_model_blocks() -> None:
    async with rig() as r:
        step = asyncio.create_task(r.cc.step(r.ctx))
        await wait_until(lambda: len(r.model.calls) == 1, WAIT_S, "the model call")
        assert r.cc.thinking and not r.decisions()
        # someone greets the agent: answered at once, by the heuristic, the model still busy
        r.state.set("conversation", greeted(wall_time()), writer="talking")
        await wait_until(lambda: len(r.decisions()) == 1, WAIT_S, "an answer")
        d = r.state.get("decision", Decision)
        assert d.say is not None and d.say.kind is UtteranceKind.GREET and d.say.to == "Bob"
        assert d.brain == "heuristic" and r.decisions()[0]["reflex"] is True
        # it gets hungry and holds bread: it eats, still without the model
        r.state.set("perception", hungry(), writer="perception")
        await wait_until(lambda: len(r.decisions()) == 2, WAIT_S, "eating")
        d = r.state.get("decision", Decision)
        assert d.kind is IntentKind.EAT and d.skill == SkillCall(
            skill="eat", args={"item": "bread"}
        )
        assert d.brain == "heuristic"
        assert not step.done() and r.cc.thinking and len(r.model.calls) == 1
        step.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await step
        assert not r.cc.thinking and r.cc.reflexes == 2


async def test_the_late_model_decision_does_not_repeat_a_reflex() -> None:
    reply = ControllerChoice(
        kind=IntentKind.WORK,
        skill="collect",
        item="oak_log",
        count=3,
        say=UtteranceKind.GREET,
        say_to="Bob",
        reason="wood",
    )
    async with rig(reply=reply) as r:
        step = asyncio.create_task(r.cc.step(r.ctx))
        await wait_until(lambda: len(r.model.calls) == 1, WAIT_S, "the model call")
        r.state.set("conversation", greeted(wall_time()), writer="talking")
        await wait_until(lambda: len(r.decisions()) == 1, WAIT_S, "the reflex answer")
        r.release.set()
        await asyncio.wait_for(step, WAIT_S)
        first, second = r.decisions()
        assert first["brain"] == "heuristic" and first["say"]["to"] == "Bob"
        assert second["brain"] == "llm:slow" and second["reflex"] is False
        assert second["say"] is None  # Bob was answered by the reflex
        assert second["skill"] == {
            "skill": "collect",
            "args": {"block": "oak_log", "count": 3},
            "timeout": None,
        }


async def test_one_call_in_flight_per_agent() -> None:
    """The runner wakes the controller on every heard line and every cadence tick; the
    agent still has one model call in flight, never a queue of them."""
    sched = Schedule(cadence=0.1, triggers=frozenset({"topic:heard"}), min_interval=0.0)
    async with rig(sched) as r:
        runner = ModuleRunner(
            r.cc, r.ctx, time_scale=1.0, metrics=SchedulerMetrics(), rng=random.Random(0)
        )
        runner.install_triggers()
        async with asyncio.TaskGroup() as tg:
            task = tg.create_task(runner.run())
            await wait_until(lambda: len(r.model.calls) == 1, WAIT_S, "the model call")
            heard = topics.agent(r.ctx.run_id, "Ann", "heard")
            for i in range(5):
                await r.ctx.bus.publish(heard, Heard(sender="Bob", message=f"line {i}"))
            r.state.set("perception", hungry(), writer="perception")
            await wait_until(lambda: len(r.decisions()) >= 1, WAIT_S, "a reflex decision")
            assert len(r.model.calls) == 1
            runner.stop()
            task.cancel()


async def test_an_idle_agent_takes_a_filler_step_the_model_may_replace() -> None:
    reply = ControllerChoice(kind=IntentKind.WORK, skill="explore", reason="look around")
    async with rig(reply=reply) as r:
        r.ctx.clock.time_scale = 0.05  # patience 0.5 s
        step = asyncio.create_task(r.cc.step(r.ctx))
        await wait_until(lambda: len(r.decisions()) == 1, WAIT_S, "a filler step")
        filler = r.state.get("decision", Decision)
        assert filler.brain == "heuristic" and filler.skill is not None
        # skill execution starts it; the model's decision comes and replaces it
        running = Action(running=filler.skill, started_at=wall_time())
        r.state.set("action", running, writer="skill_execution")
        r.release.set()
        await asyncio.wait_for(step, WAIT_S)
        d = r.state.get("decision", Decision)
        assert d.brain == "llm:slow" and d.skill is not None and d.skill.skill == "explore"
        cancelled = [e for e in r.seen if e["type"] == "decision_cancelled"]
        assert [e["reason"] for e in cancelled] == ["model_decided"]


async def test_after_a_shed_call_the_heuristic_decides_for_a_while() -> None:
    async with rig() as r:
        r.model.push(LLMShed("behind", reason="backlog", priority="high", waited_s=0.0))
        await r.cc.step(r.ctx)
        await r.cc.step(r.ctx)  # within the backoff: no second call doomed to be shed
        assert len(r.model.calls) == 1 and r.ctx.stats.llm_calls == 1
        assert r.ctx.stats.fallbacks == 1


async def test_the_running_skill_goes_on_while_the_model_thinks() -> None:
    async with rig() as r:
        r.ctx.clock.time_scale = 0.05  # polls every 25 ms, patience 0.5 s
        collecting = SkillCall(skill="collect", args={"block": "oak_log", "count": 4})
        r.state.set(
            "action", Action(running=collecting, started_at=wall_time()), writer="skill_execution"
        )
        step = asyncio.create_task(r.cc.step(r.ctx))
        await wait_until(lambda: len(r.model.calls) == 1, WAIT_S, "the model call")
        r.state.set("conversation", greeted(wall_time()), writer="talking")
        await wait_until(lambda: any(d["say"] for d in r.decisions()), WAIT_S, "an answer")
        said = greeted(wall_time()).model_copy(update={"spoke_to": {"Bob": wall_time()}})
        r.state.set("conversation", said, writer="talking")  # as talking records it
        checks = r.cc.reflex_checks  # 40 more checks: twice the patience, the model still busy
        await wait_until(lambda: r.cc.reflex_checks >= checks + 40, WAIT_S, "40 reflex checks")
        # the answer carries no skill (skill execution keeps the running one); no filler
        # step over a running skill, nothing cancelled; every 10 s (scaled) without a
        # decision, the controller says it keeps going with the running skill
        (answer,) = [d for d in r.decisions() if d["say"] is not None]
        going = [d for d in r.decisions() if d["say"] is None]
        assert answer["skill"] is None and answer["say"]["to"] == "Bob"
        assert going and all(
            d["kind"] == "continue" and d["skill"] is None and d["say"] is None for d in going
        ), going
        assert not any(e["type"] == "decision_cancelled" for e in r.seen)
        step.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await step


async def test_keep_going_counts_from_the_last_decision_not_from_the_call() -> None:
    """Asked at its ceiling, a slow model leaves the agent without a decision for as long as
    the call takes; 'keep going' comes KEEP_GOING_S after the last decision, but not within
    THINK_GRACE_S of asking. Counted from the call's start, an 11.5 s endpoint left an agent
    22 s without a decision (the real-server test, CI of 43555d1); counted from the last
    decision alone, every ceiling ask said 'keep going' first (the model's share fell to 82%
    in the cost bench). A held step (nothing changed, no call) says nothing."""
    async with rig() as r:
        collecting = SkillCall(skill="collect", args={"block": "oak_log", "count": 4})
        r.state.set(
            "action", Action(running=collecting, started_at=wall_time()), writer="skill_execution"
        )
        long_ago = wall_time() - KEEP_GOING_S - 1
        r.state.set("decision", Decision(updated_at=long_ago), writer="cognitive_controller")
        step = asyncio.create_task(r.cc.step(r.ctx))
        await wait_until(lambda: len(r.model.calls) == 1, WAIT_S, "the model call")
        await wait_until(lambda: bool(r.decisions()), THINK_GRACE_S + WAIT_S, "keep going")
        (going,) = r.decisions()
        assert going["brain"] == "heuristic" and going["kind"] == "continue"
        assert going["intent"].startswith("keep going")
        assert not step.done() and len(r.model.calls) == 1
        # not within the grace after asking (a lower bound: a busy machine only adds), and
        # long before KEEP_GOING_S after it: fewer reflex polls than those 10 s take (a busy
        # machine only makes each poll longer, so fewer)
        (asked,) = [e for e in r.seen if e["type"] == "controller_asked"]
        assert going["t"] - asked["t"] >= THINK_GRACE_S - 0.05
        assert r.cc.reflex_checks < KEEP_GOING_S / REFLEX_POLL_S, r.cc.reflex_checks
        r.release.set()
        await asyncio.wait_for(step, WAIT_S)
        n = len(r.decisions())
        r.state.set("decision", Decision(updated_at=long_ago), writer="cognitive_controller")
        await r.cc.step(r.ctx)  # nothing changed since the answer: held, and nothing said
        assert r.cc.gate is not None and r.cc.gate.held == 1 and len(r.decisions()) == n
