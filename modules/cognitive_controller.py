"""The Cognitive Controller: the one module that decides, from the bottleneck view only,
and broadcasts a typed decision on MQTT (``agent/<name>/decision``).

Each step: build the bottleneck view -> ``policy.decide(view)`` (heuristic
:func:`modules.heuristics.controller.decide`, or the LLM prompt
``prompts/cognitive_controller.md``; same view, same typed output) -> validate the skill
call -> commitment check (:mod:`modules.commitment`: a running skill is replaced only for
a perceived reason, and every replacement is logged as ``decision_cancelled``) -> publish.
Talking and skill execution subscribe to the decision, so what the agent says and does
come from the same typed decision. The controller holds no experiment's rules.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agent_runtime.bottleneck import BottleneckView, build_view
from agent_runtime.interfaces import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.state.sections import Decision, IntentKind
from modules.base import remember
from modules.commitment import replacement_reason
from modules.decisions import skill_list, to_decision
from modules.heuristics.controller import ControllerOut
from modules.heuristics.controller import decide as heuristic_decide
from modules.policies import HEURISTIC, decide, module_policy

__all__ = ["CognitiveController", "ControllerOut", "skill_list", "to_decision"]

REPEAT_SPEECH_S = 10.0  # the same utterance goal is not sent again within this time


class CognitiveController(Module):
    name: ClassVar[str] = "cognitive_controller"
    reads: ClassVar[frozenset[str]] = frozenset()  # everything comes through the bottleneck
    writes: ClassVar[frozenset[str]] = frozenset({"decision"})

    def __init__(self, schedule: Any) -> None:
        super().__init__(schedule)
        self._decisions = 0
        self.cancelled: dict[str, int] = {}

    def get_state(self) -> dict[str, Any]:
        return {"decisions": self._decisions, "cancelled": dict(self.cancelled)}

    def set_state(self, state: Any) -> None:
        self._decisions = int(state.get("decisions", 0))
        self.cancelled = dict(state.get("cancelled", {}))

    def view(self, ctx: ModuleContext) -> BottleneckView:
        settings = ctx.services.config.bottleneck
        snapshot = ctx.state.snapshot([s.section for s in settings.sections])
        return build_view(snapshot, settings, now=ctx.clock.now(), time_scale=ctx.clock.time_scale)

    async def step(self, ctx: ModuleContext) -> None:
        # wake-ups only: what happened is read through the bottleneck
        skills, heard = ctx.pending("topic:skill"), ctx.pending("topic:heard")
        if skills and not heard and all(m.payload.get("event") == "started" for m in skills):
            return  # a skill we just chose has started: nothing new to decide
        view = self.view(ctx)
        previous = ctx.state.get("decision", Decision)
        policy = module_policy(
            ctx,
            ControllerOut,
            heuristic_decide,
            prompt="cognitive_controller",
            variables=lambda v: {**v.prompt_variables(), "skills": skill_list()},
        )
        got = await decide(ctx, policy, view)
        decision = to_decision(got.value, got.brain, previous, view.now)
        if decision is None and got.brain != HEURISTIC:  # the LLM proposed an invalid call
            ctx.stats.fallbacks += 1
            ctx.emit("llm_fallback", prompt="cognitive_controller", error="invalid skill call")
            decision = to_decision(heuristic_decide(view, ctx.rng), HEURISTIC, previous, view.now)
        if decision is None:
            return
        decision = self._commit(ctx, view, decision, previous)
        if decision is not None:
            await self._publish(ctx, decision)

    def _commit(
        self, ctx: ModuleContext, view: BottleneckView, new: Decision, old: Decision
    ) -> Decision | None:
        """Keep the running skill unless a perceived reason warrants replacing it; drop
        what would only repeat the previous decision. None = nothing to publish."""
        running, call = view.action.running, new.skill
        recent = view.now - old.updated_at < view.seconds(REPEAT_SPEECH_S)
        on_its_way = view.action.started_at < old.updated_at  # the last call has not started
        if call is not None and call == old.skill and call != running and recent and on_its_way:
            new, call = new.model_copy(update={"skill": None}), None  # already sent
        keep = {"skill": None, "kind": IntentKind.CONTINUE}
        if call is not None and running is not None:
            reason = replacement_reason(view, call)
            if call == running or reason is None:
                new = new.model_copy(update=keep)
            else:
                self.cancelled[reason] = self.cancelled.get(reason, 0) + 1
                ctx.emit(
                    "decision_cancelled",
                    reason=reason,
                    running=running.model_dump(mode="json"),
                    by=call.model_dump(mode="json"),
                    decision=new.id,
                )
        if new.say is not None and old.say == new.say and recent:
            new = new.model_copy(update={"say": None})
        if new.skill is None and new.say is None:
            return None
        return new

    async def _publish(self, ctx: ModuleContext, decision: Decision) -> None:
        self._decisions += 1
        ctx.write("decision", decision)
        await ctx.publish("decision", decision)
        ctx.emit(
            "decision",
            id=decision.id,
            kind=decision.kind.value,
            intent=decision.intent,
            skill=decision.skill.model_dump() if decision.skill else None,
            say=decision.say.model_dump(mode="json") if decision.say else None,
            speak_to=decision.speak_to,
            reason=decision.reason,
            brain=decision.brain,
        )
        remember(ctx, f"I decided to {decision.intent.rstrip('.')}.", "action")
