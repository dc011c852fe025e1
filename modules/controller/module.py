"""The Cognitive Controller: the one module that decides, from the bottleneck view only,
and broadcasts a typed decision on MQTT (``agent/<name>/decision``).

Each step: build the bottleneck view -> ``policy.decide(view)`` (heuristic
:func:`modules.heuristics.controller.decide`, or the LLM prompt
``prompts/cognitive_controller.md``; same view, same typed output, a
:class:`~modules.controller.decisions.ControllerChoice` a constrained decoder can only fill with valid
values) -> validate the skill call -> commitment check (:mod:`modules.controller.commitment`: a running
skill, or one decided and on its way to the body, is replaced only for a perceived reason; an
urgent one preempts it (``skill_preempted``) and it is resumed with what remains when the
urgent work is done (``skill_resumed``), or abandoned after a while (``decision_cancelled``
reason ``abandoned``); an idle wait ends (``idle_ended``); a goal change waits for the step
to end) -> publish. Talking and skill execution subscribe to the decision,
so what the agent says and does come from the same typed decision. The controller holds no
experiment's rules.

**Never frozen.** With an LLM policy the step asks the model (priority ``high``) and, while
the call is in flight, checks the reflexes (:mod:`modules.controller.reflexes`: eat, move away,
answer; and a filler step when nothing has run for a while) on a fresh view every
:data:`REFLEX_POLL_S`, publishing them at once, labelled ``heuristic``. The running skill
goes on meanwhile (skill execution runs it). The model's decision, when it comes, goes
through the commitment check on a fresh view, without the parts a reflex already did; it
may replace a filler (``decision_cancelled`` reason ``model_decided``). At most one call per
agent is in flight: the next step starts when the endpoint has answered, the model is asked
only when no other controller call waits for the endpoint (controllers take turns instead
of queueing behind each other until shed; reflexes meanwhile), and after a call was shed the heuristic decides for
:data:`SHED_BACKOFF_S` before the model is asked again, so the agent's cadence is what the
endpoint can serve. While the model thinks and a skill runs, the controller says every
:data:`modules.controller.reflexes.KEEP_GOING_S` that it keeps going (a ``continue`` decision, labelled
heuristic); the model's own decision is broadcast even when it only keeps the agent on course.

**Asked only when something changed** (option ``ask_on_change``, on by default;
:mod:`modules.controller.asking`): the model is asked when the view changed in a way that can change
the decision (a skill ended or failed, a line to the agent, a new goal or plan step, a
discrepancy, danger, a player in view, someone to greet or to talk to once the agent may
start a conversation again) or ``max_interval_s`` passed since its last call;
otherwise the step keeps the course without a call (counted as ``held``, no decision
published; the reflexes still run). The prompt puts what changes least first
(:data:`PROMPT_ORDER`), so consecutive prompts of an agent share a long prefix.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from agent_runtime.bottleneck import BottleneckView, build_view
from agent_runtime.bus.messages import DECISION, HEARD, SKILL
from agent_runtime.config.models import BottleneckSettings
from agent_runtime.config.module_options import ControllerOptions
from agent_runtime.llm.turns import EndpointTurns
from agent_runtime.module import Module
from agent_runtime.module_context import ModuleContext
from agent_runtime.policy import LLMPolicy, Policy
from agent_runtime.state.sections import Decision, IntentKind
from agent_runtime.world import SkillCall
from modules.base import remember
from modules.controller.asking import FOLLOWABLE, AskGate, Situation
from modules.controller.commitment import Ledger
from modules.controller.decisions import ControllerChoice, ControllerOut, skill_list, to_decision
from modules.controller.plan_steps import next_plan_step, plan_ran_out
from modules.controller.prompt import heuristic_choice, prompt_view
from modules.controller.reflexes import KEEP_GOING_S, keep_busy, keep_going, reflex
from modules.controller.rounds import Round, without_done
from modules.heuristics.controller import decide as heuristic_decide
from modules.heuristics.gifts import bound
from modules.policies import HEURISTIC, decide, module_policy

__all__ = ["CognitiveController", "ControllerChoice", "ControllerOut", "skill_list", "to_decision"]

REFLEX_POLL_S = 0.5  # agent's seconds between reflex checks while the model thinks
#: agent's seconds a call may take before the controller says it keeps going meanwhile
THINK_GRACE_S = 3.0
PRIORITY = "high"  # an agent waits on its controller
#: after a call was shed (the endpoint is behind), the heuristic decides this long (agent's
#: seconds) before the model is asked again: no stream of calls doomed to be shed
SHED_BACKOFF_S = 5.0


class CognitiveController(Module):
    name: ClassVar[str] = "cognitive_controller"
    #: everything else comes through the bottleneck: the sections its settings name
    reads: ClassVar[frozenset[str]] = frozenset({"decision"})
    writes: ClassVar[frozenset[str]] = frozenset({"decision"})

    def __init__(
        self,
        schedule: Any,
        options: ControllerOptions | None = None,
        bottleneck: BottleneckSettings | None = None,
    ) -> None:
        super().__init__(schedule)
        o = options or ControllerOptions()
        #: which sections the controller sees through its bottleneck, and how much of each
        self.bottleneck = bottleneck or BottleneckSettings()
        #: with the gate on, plan steps a standing decision of the model starts without a
        #: call at most (0: the model is asked on every step's end)
        self.follow_plan_steps = o.follow_plan_steps
        #: the model's standing decision: (plan step it was made on, its brain, steps left)
        self._standing: tuple[tuple[int, str], str, int] | None = None
        #: a standing decision keeps the course at the ceiling for at most this long after
        #: the model's last call (agent's seconds; 0: the model answers every ceiling)
        self.standing_ask_s = o.standing_ask_s
        #: after a standing decision's skill succeeded with the plan's steps run out, wait
        #: this long (agent's seconds, within the ceiling) for planning's next steps
        self.plan_wait_s = o.plan_wait_s
        self._asked_at = 0.0  # clock time of the model's last call
        self.waited = 0  # steps held for the plan's next steps under a standing decision
        self.deadline_s = o.deadline_s
        #: None = the model is asked on every step (option ``ask_on_change`` off)
        self.gate = AskGate(o.max_interval_s) if o.ask_on_change else None
        self._decisions = 0
        self.reflexes = 0
        self.reflex_checks = 0  # reflex checks made while the model thought (observable)
        self.ledger = Ledger()  # preempted skills held for resuming; what became of replaced ones
        self._thinking = False  # a model call of this agent is in flight
        self._model_after = 0.0  # the model is not asked before this time (after a shed)
        self._view: tuple[int, BottleneckView] | None = None  # (state version, view)

    def get_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "decisions": self._decisions,
            "reflexes": self.reflexes,
            "commitment": self.ledger.state(),
        }
        if self.gate is not None:
            state["held"] = self.gate.held_total
            state["asked"] = dict(self.gate.asked)
        return state

    def set_state(self, state: Any) -> None:
        self._decisions = int(state.get("decisions", 0))
        self.reflexes = int(state.get("reflexes", 0))
        self.ledger.load(state.get("commitment"))
        if self.gate is not None:
            self.gate.held_total = int(state.get("held", 0))
            self.gate.asked = {str(k): int(v) for k, v in dict(state.get("asked", {})).items()}

    def sections_read(self) -> frozenset[str]:
        return type(self).reads | {s.section for s in self.bottleneck.sections}

    @property
    def cancelled(self) -> dict[str, int]:
        """Replaced skills that were cancelled (abandoned ones included), by reason."""
        return dict(self.ledger.counts.get("cancelled", {}))

    @property
    def thinking(self) -> bool:
        return self._thinking

    def view(self, ctx: ModuleContext) -> BottleneckView:
        now = ctx.clock.now()
        version = ctx.version  # counts every write of the agent's state
        cached = self._view
        if cached is not None and cached[0] == version:  # no section written since
            return cached[1].model_copy(update={"now": now})
        settings = self.bottleneck
        snapshot = ctx.snapshot([s.section for s in settings.sections])
        view = build_view(snapshot, settings, now=now, time_scale=ctx.clock.time_scale)
        self._view = (version, view)
        return view

    def policy(self, ctx: ModuleContext) -> Policy[BottleneckView, ControllerChoice]:
        return module_policy(
            ctx,
            ControllerChoice,
            heuristic_choice,
            prompt="cognitive_controller",
            variables=lambda v: {"view": prompt_view(v), "skills": skill_list()},
            max_tokens=200,
            temperature=0.4,
        )

    async def step(self, ctx: ModuleContext) -> None:
        # wake-ups only: what happened is read through the bottleneck
        skills, heard = ctx.pending(SKILL), ctx.pending(HEARD)
        if skills and not heard and all(ev.event == "started" for ev in skills):
            return  # a skill we just chose has started: nothing new to decide
        view = self.view(ctx)
        policy = self.policy(ctx)
        if not isinstance(policy, LLMPolicy) or view.now < self._model_after:
            # the heuristic's own ControllerOut, straight to the decision (with the policy's
            # rng: the agent's seeded one), not dressed as a model's choice first
            await self._apply(ctx, view, heuristic_decide(view, ctx.rng), HEURISTIC)
            return
        rnd = Round(view.now)
        await self._reflex(ctx, view, rnd, thinking=self._thinking)
        if self._thinking:  # never a second call of this agent while one is in flight
            return
        why_not: str | None = None
        if self.gate is not None:
            now, reasons = self.gate.reasons(view, self._last(ctx))
            if not reasons:
                self.gate.hold()  # nothing that could change the decision: keep the course
                return
            why_not = await self._follow(ctx, view, now, reasons)
            if why_not is None:
                return  # the plan's next step, or carry on, on the model's standing decision
        self._thinking = True
        poll = REFLEX_POLL_S * ctx.clock.time_scale
        gate = EndpointTurns.of(ctx.brain.limiter)
        asked = False
        try:
            # ask when no other controller call waits for the endpoint: controllers take turns
            # (reflexes and "keep going" meanwhile) instead of queueing until shed
            while gate is not None and not await gate.wait_free(poll):
                self.reflex_checks += 1
                await self._reflex(ctx, self.view(ctx), rnd)
            view = self.view(ctx)
            if self.gate is not None:
                now, reasons = self.gate.reasons(view, self._last(ctx))
                held = self.gate.ask(now, reasons or ["changed"])
                self._asked_at = view.now
                standing = self._standing
                ctx.emit(
                    "controller_asked",
                    reasons=reasons,
                    held=held,
                    standing=standing[2] if standing is not None else 0,
                    not_followed=why_not,
                )
            if gate is not None:
                gate.asking += 1
                asked = True
            async with asyncio.TaskGroup() as tg:
                call = tg.create_task(
                    decide(ctx, policy, view, priority=PRIORITY, deadline_s=self.deadline_s)
                )
                while not call.done():
                    await asyncio.wait({call}, timeout=poll)
                    if not call.done():
                        self.reflex_checks += 1
                        await self._reflex(ctx, self.view(ctx), rnd)
        finally:
            self._thinking = False
            if gate is not None and asked:
                gate.asking -= 1
        got = call.result()
        fresh = self.view(ctx)
        if self.gate is not None:
            self.gate.answered(fresh.now)
        if got.fallback_reason == "LLMShed":
            self._model_after = fresh.now + fresh.seconds(SHED_BACKOFF_S)
        out = without_done(got.value.to_out(fresh.social.opinions), rnd)
        # the model's decision is broadcast even when it keeps the agent on its course
        made = await self._apply(ctx, fresh, out, got.brain, replaceable=rnd.filler, keep=True)
        if got.brain != HEURISTIC and got.value.skill is None:
            # the model kept the course (saying something or not: a greeting while the step
            # runs changes no plan): a standing decision it made stands
            return
        self._standing = None
        if (
            got.value.follow_plan
            and got.brain != HEURISTIC
            and made is not None
            and made.skill is not None
            and self.follow_plan_steps > 0
        ):
            plan = fresh.plan
            self._standing = ((plan.current, plan.current_step), got.brain, self.follow_plan_steps)

    async def _follow(
        self, ctx: ModuleContext, view: BottleneckView, now: Situation, reasons: list[str]
    ) -> str | None:
        """Act on the model's standing decision without a call, when it covers the news:

        - the skill it started (or a step it followed) succeeded and nothing else is news:
          start the step of the plan the agent would do now (:func:`next_plan_step`; after a
          skill off the plan, such as a recovery, that is the plan's current step again),
          labelled ``<model's brain>+plan``;
        - the plan's steps ran out with that success: wait for the planning module's next
          steps (``plan_wait_s``, within the ceiling; no decision), then
          follow the first;
        - only the ceiling passed while a skill runs, within ``standing_ask_s`` of the
          model's last call: keep the course (a ``continue`` labelled the same way).

        None when it acted; otherwise why not (emitted with the call, ``not_followed``)."""
        standing = self._standing
        if standing is None or self.gate is None:
            return "no standing decision"
        made_on, brain, left = standing
        act = view.action
        if reasons == ["ceiling"]:
            if act.running is None:
                return "ceiling, nothing running"
            if view.now - self._asked_at >= view.seconds(self.standing_ask_s):
                return "ceiling, model not asked for long"
            keep = ControllerOut(
                kind=IntentKind.CONTINUE,
                intent=f"keep going: {act.running.describe()}",
                reason="nothing changed: my standing decision holds",
            )
            await self._apply(ctx, view, keep, f"{brain}+plan", keep=True)
            self.gate.keep(now)
            return None
        if not set(reasons) <= FOLLOWABLE:
            return "other news"
        out = act.last_outcome
        if "skill_ended" not in reasons or out is None:
            return "no skill ended"
        if not out.success:
            return "failed"
        if act.running is not None:
            return "a skill runs"
        target = next_plan_step(view.plan, act)
        if target is None:
            assert self.gate.last is not None  # the standing decision's call set it
            if (
                plan_ran_out(view.plan, act)
                and view.now - out.ended_at < view.seconds(self.plan_wait_s)
                and view.now - self.gate.last.at < view.seconds(self.gate.max_interval_s)
            ):
                self.gate.hold()  # the next steps are being written: follow the first
                self.waited += 1
                return None
            return "no plan step with a skill"
        index, text, step = target
        call = ControllerOut(
            kind=IntentKind.WORK,
            intent=step.describe(),
            skill=step.skill,
            args=dict(step.args),
            reason="my plan's next step (standing decision)",
        )
        self._standing = None
        decision = await self._apply(ctx, view, call, f"{brain}+plan")
        if decision is None or decision.skill is None:
            return "not started"
        self.gate.follow(now)
        ctx.emit(
            "controller_followed_plan",
            step=text,
            brain=brain,
            left=left - 1,
            again=(index, text) == made_on,
        )
        if left > 1:
            self._standing = ((index, text), brain, left - 1)
        return None

    @staticmethod
    def _last(ctx: ModuleContext) -> Decision:
        """The controller's own last decision (whether a skill is on its way to the body)."""
        return ctx.read("decision", Decision)

    async def _reflex(
        self, ctx: ModuleContext, view: BottleneckView, rnd: Round, *, thinking: bool = True
    ) -> None:
        out = reflex(view, ctx.rng)
        filler = out is None
        if out is None and (out := keep_busy(view, ctx.rng, rnd.since)) is None:
            if not thinking:
                return  # no call in flight: the model is asked by the ceiling at the latest
            # while the model thinks (or waits its turn): KEEP_GOING_S after the last decision
            # published, but not within THINK_GRACE_S of asking (an endpoint that answers in
            # time needs no filler). Counted from the call alone, a slow endpoint asked at the
            # ceiling left an agent 22 s without a decision (a real local model server); from
            # the last decision alone, every ceiling ask said "keep going" first (the model's
            # share of the decisions fell)
            decided = ctx.read("decision", Decision).updated_at
            last = max(decided, rnd.since - view.seconds(KEEP_GOING_S - THINK_GRACE_S))
            if (going := keep_going(view, last)) is not None:  # say it keeps going (or waits)
                await self._apply(ctx, view, going, HEURISTIC, reflex=True, keep=True)
            return
        decision = await self._apply(ctx, view, out, HEURISTIC, reflex=True)
        if decision is None:
            return
        self.reflexes += 1
        if filler:  # (a preempted skill resumed in its place is no filler)
            rnd.filler = decision.skill if decision.reason == out.reason else None
            return
        if decision.say is not None:
            rnd.said_to.add(decision.say.to)
        if decision.skill is not None:
            rnd.skill = True
            if decision.skill.skill == "give":
                rnd.gave_to.add(str(decision.skill.args.get("player")))

    async def _apply(
        self,
        ctx: ModuleContext,
        view: BottleneckView,
        out: ControllerOut,
        brain: str,
        *,
        reflex: bool = False,
        replaceable: SkillCall | None = None,
        keep: bool = False,
    ) -> Decision | None:
        """Validate, commit and publish ``out``; the published decision or None. With
        ``keep``, a decision to carry on (no new skill, nothing to say) is published too."""
        out = bound(view, out)  # every give, an LLM's too, within the agent's gift policy
        previous = ctx.read("decision", Decision)
        decision = to_decision(out, brain, previous, view.now)
        if decision is None and brain != HEURISTIC:  # the LLM proposed an invalid call
            ctx.stats.fallbacks += 1
            ctx.emit("llm_fallback", prompt="cognitive_controller", error="invalid skill call")
            fallback = bound(view, heuristic_decide(view, ctx.rng))
            decision = to_decision(fallback, HEURISTIC, previous, view.now)
        if decision is None:
            return None
        decision = self.ledger.commit(
            view, decision, previous, ctx.emit, replaceable=replaceable, keep=keep
        )
        if decision is not None:
            await self._publish(ctx, decision, reflex=reflex)
        return decision

    async def _publish(self, ctx: ModuleContext, decision: Decision, *, reflex: bool) -> None:
        self._decisions += 1
        ctx.write("decision", decision)
        await ctx.publish(DECISION, decision)
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
            reflex=reflex,
        )
        if decision.skill is not None or decision.say is not None:  # not every "keep going"
            # an intention: its outcome, perceived later, is what adds to the reflection trigger
            remember(ctx, f"I decided to {decision.intent.rstrip('.')}.", "action", counted=False)
