"""Commitment: a skill the body is carrying out is replaced only when something the agent
perceives warrants it, as plans are revised in Generative Agents; an urgent replacement
*preempts* the running skill, which resumes afterwards with what remains of it.

:func:`replacement_reason` says why a proposed skill may replace the running one, from the
bottleneck view only, or None (keep the running skill). Reasons:

- ``danger``: health or food is low and the new skill answers it (eat, or move away: one
  of :data:`DANGER_SKILLS`); the only reason to interrupt a running deposit;
- ``deposit_request``: an open deposit request is perceived and the new skill fulfils it;
- ``request``: the new skill gives to someone whose request to the agent it has not
  answered yet (:func:`modules.heuristics.asked.unanswered`), or who asked after the skill
  started. Not "heard after the skill started" alone: under load a line reaches the agent's
  record seconds after its body heard it, and a skill decided meanwhile, without it, would
  otherwise hold the answer back until it ended (a 90 s collect outlasts the answer window);
- ``stale``: the skill has run far past its expected time;
- ``model_decided``: the model's answer replaced a filler step taken while it thought.

A goal change is not a reason: the new goal applies when the current step ends.

:func:`verdict` says what the replacement does to the running skill:

- ``preempt`` (reasons in :data:`URGENT`): the running skill is set aside as a
  :class:`Preempted` and resumed once the urgent work is done (:func:`resume_call`: what
  remains of it, e.g. the remaining count); one not resumed within :data:`ABANDON_AFTER_S`
  (or pushed out of a full stack) is *abandoned*, which counts as cancelled;
- ``end_wait``: the running skill is ``idle``, which means "wait until something warrants
  action, at most N seconds": ending it for a perceived reason keeps the agent's word and is
  reported as ``idle_ended``, never resumed;
- ``cancel``: the running skill is dropped (``stale``, ``model_decided``): a cancellation.

A failed skill is not running any more, so it needs no reason to be followed by another.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.state.sections import Decision, IntentKind, UtteranceKind
from agent_runtime.world import SKILL_TIMEOUTS, SkillCall
from modules.action_awareness import observed_of
from modules.heuristics.asked import unanswered
from modules.heuristics.deposit import open_request
from modules.knowledge import expected_gain

__all__ = [
    "ABANDON_AFTER_S",
    "DANGER_SKILLS",
    "MAX_PREEMPTED",
    "REASONS",
    "URGENT",
    "Ledger",
    "Preempted",
    "Verdict",
    "progress",
    "replacement_reason",
    "resume_call",
    "verdict",
]

URGENT = ("danger", "deposit_request", "request")  # may preempt; the preempted skill resumes
REASONS = (*URGENT, "stale", "model_decided", "abandoned")
LOW_HEALTH, LOW_FOOD = 6.0, 6.0
DANGER_SKILLS = ("eat", "explore", "go_to")  # skills that answer low health or food
ABANDON_AFTER_S = 180.0  # agent's seconds: a preempted skill not resumed by then is abandoned
MAX_PREEMPTED = 3  # preempted skills held at once; the oldest beyond this is abandoned
REPEAT_SPEECH_S = 10.0  # the same utterance goal is not sent again within this time

Verdict = Literal["preempt", "end_wait", "cancel"]


class Preempted(BaseModel):
    """A skill set aside for an urgent one; resumed when the urgent work is done."""

    model_config = ConfigDict(frozen=True)
    call: SkillCall
    started_at: float  # when it started (or was decided, if it had not started yet)
    at: float  # when it was preempted
    reason: str
    by: str  # the id of the decision that preempted it


def replacement_reason(
    view: BottleneckView,
    new: SkillCall,
    running: SkillCall | None = None,
    started: float | None = None,
) -> str | None:
    """Why ``new`` may replace the running skill; None when the agent should keep its word.

    ``running``/``started`` default to the view's running skill; the controller passes a
    skill it decided that has not started yet, or a preempted one it holds."""
    if running is None:
        running, started = view.action.running, view.action.started_at
    started = view.action.started_at if started is None else started
    if running is None or new == running:
        return None
    per = view.perception
    if (per.health < LOW_HEALTH or per.food < LOW_FOOD) and new.skill in DANGER_SKILLS:
        return "danger"
    if running.skill == "deposit":
        return None  # fulfilling a request: finished before anything but danger
    if new.skill == "deposit" and open_request(view) is not None:
        return "deposit_request"
    me, asker = view.identity.name, new.args.get("player")
    if (
        new.skill == "give"
        and isinstance(asker, str)
        and (
            unanswered(view, asker) is not None
            or any(
                u.speaker == asker and u.to == me and u.at > started
                for u in view.conversation.lines
            )
        )
    ):
        return "request"
    limit = view.seconds(SKILL_TIMEOUTS.get(running.skill, 60.0)) * 2.0
    if started and view.now - started > limit:
        return "stale"
    return None


def verdict(running: SkillCall, reason: str) -> Verdict:
    """What replacing ``running`` for ``reason`` does to it."""
    if running.skill == "idle":
        return "end_wait"
    return "preempt" if reason in URGENT else "cancel"


def progress(view: BottleneckView, p: Preempted) -> dict[str, int]:
    """The inventory change the preempted skill made before it was stopped (its record in
    the agent's own action log), or {} when it never ran or the record is gone."""
    for r in reversed(view.action.recent):
        if r.call == p.call and abs(r.started_at - p.started_at) < 1e-6 and r.success is not None:
            return dict(r.delta)
    return {}


def resume_call(call: SkillCall, delta: dict[str, int]) -> SkillCall | None:
    """What remains of ``call`` after it changed the inventory by ``delta``: the remaining
    count when the skill has one and its expected gain says how far it got, else the call
    itself; None when nothing remains."""
    count = call.args.get("count")
    gain = {k: v for k, v in expected_gain(call.skill, call.args).items() if v}
    if not isinstance(count, int) or count < 1 or not gain:
        return call
    done = min(
        math.floor(math.copysign(1, v) * observed_of(item, delta) / (abs(v) / count))
        for item, v in gain.items()
    )
    left = count - max(0, done)
    if left < 1:
        return None
    return call.model_copy(update={"args": {**call.args, "count": left}})


Emit = Callable[..., None]


class Ledger:
    """The controller's word: the skills it preempted (held for resuming) and counts of what
    became of replaced skills, by outcome (``cancelled``, ``preempted``, ``resumed``,
    ``abandoned``, ``idle_ended``) and reason. Every outcome is also an event (``emit``)."""

    def __init__(self) -> None:
        self.held: list[Preempted] = []
        self.counts: dict[str, dict[str, int]] = {}

    def _count(self, what: str, reason: str) -> None:
        by = self.counts.setdefault(what, {})
        by[reason] = by.get(reason, 0) + 1

    def state(self) -> dict[str, Any]:
        return {"held": [p.model_dump(mode="json") for p in self.held], "counts": self.counts}

    def load(self, state: Any) -> None:
        state = state or {}
        self.held = [Preempted.model_validate(p) for p in state.get("held", [])]
        self.counts = {k: dict(v) for k, v in dict(state.get("counts", {})).items()}

    def replace(
        self,
        view: BottleneckView,
        running: SkillCall,
        started: float,
        new: SkillCall,
        decision: str,
        emit: Emit,
        *,
        filler: bool = False,
    ) -> bool:
        """May ``new`` (decision ``decision``) replace ``running``? Records and reports what
        the replacement does to it (preempted, idle ended or cancelled)."""
        reason = "model_decided" if filler else replacement_reason(view, new, running, started)
        if reason is None:
            return False
        what = verdict(running, reason)
        fields = {
            "reason": reason,
            "running": running.model_dump(mode="json"),
            "by": new.model_dump(mode="json"),
            "decision": decision,
        }
        if what == "end_wait":
            self._count("idle_ended", reason)
            emit("idle_ended", **fields)
        elif what == "preempt":
            self.held.append(Preempted(call=running, started_at=started, at=view.now,
                                       reason=reason, by=decision))  # fmt: skip
            self._count("preempted", reason)
            emit("skill_preempted", **fields)
            while len(self.held) > MAX_PREEMPTED:
                self._abandon(self.held.pop(0), "too many preempted skills", emit)
        else:
            self._count("cancelled", reason)
            emit("decision_cancelled", **fields)
        return True

    def _abandon(self, p: Preempted, why: str, emit: Emit) -> None:
        self._count("abandoned", p.reason)
        self._count("cancelled", "abandoned")
        emit("decision_cancelled", reason="abandoned", why=why,
             running=p.call.model_dump(mode="json"), preempted_by=p.by, preempted_for=p.reason)  # fmt: skip

    def resume(
        self, view: BottleneckView, proposed: SkillCall | None, emit: Emit
    ) -> tuple[SkillCall, Preempted] | None:
        """Nothing is running: the latest preempted skill to resume now, with what remains of
        it, unless ``proposed`` is urgent enough to preempt it again (it goes first). Held
        skills too old to resume are abandoned; one with nothing left is dropped as done."""
        while self.held:
            p = self.held[-1]
            if view.now - p.at > view.seconds(ABANDON_AFTER_S):
                self._abandon(self.held.pop(), "not resumed in time", emit)
                continue
            if (
                proposed is not None
                and replacement_reason(view, proposed, p.call, p.started_at) in URGENT
            ):
                return None
            self.held.pop()
            delta = progress(view, p)
            rest = resume_call(p.call, delta)
            if rest is None:
                self._count("done_before_resume", p.reason)
                emit("preempted_done", running=p.call.model_dump(mode="json"), delta=delta,
                     preempted_by=p.by, preempted_for=p.reason)  # fmt: skip
                continue
            self._count("resumed", p.reason)
            emit("skill_resumed", call=rest.model_dump(mode="json"),
                 running=p.call.model_dump(mode="json"), delta=delta, preempted_by=p.by,
                 preempted_for=p.reason)  # fmt: skip
            return rest, p
        return None

    def commit(
        self,
        view: BottleneckView,
        new: Decision,
        old: Decision,
        emit: Emit,
        *,
        replaceable: SkillCall | None = None,
        keep: bool = False,
    ) -> Decision | None:
        """The decision to publish when the controller decided ``new`` after ``old``: keep
        the running skill (or the one decided and on its way to the body) unless a perceived
        reason warrants replacing it (or it is the ``replaceable`` filler); with nothing
        running, resume a preempted skill unless the new one is urgent; drop what would only
        repeat the previous decision. None = nothing to publish (with ``keep``, a decision to
        carry on is published too)."""
        recent = view.now - old.updated_at < view.seconds(REPEAT_SPEECH_S)
        running: SkillCall | None
        if recent and old.skill is not None and view.action.started_at < old.updated_at:
            running, started = old.skill, old.updated_at  # decided, not started yet
        else:
            running, started = view.action.running, view.action.started_at
        call = new.skill
        if running is None:
            got = self.resume(view, call, emit)
            if got is not None:
                rest, held = got
                new = new.model_copy(
                    update={
                        "skill": rest,
                        "kind": IntentKind.WORK,
                        "intent": f"go back to {rest.describe()}",
                        "reason": f"resuming what {held.reason.replace('_', ' ')} interrupted",
                        "target": None,
                        "item": None,
                        "count": None,
                        "say": None
                        if new.say is not None and new.say.kind is UtteranceKind.AGREE_GIVE
                        else new.say,
                    }
                )
        elif call is not None:
            filler = replaceable is not None and running == replaceable
            if call == running or not self.replace(
                view, running, started, call, new.id, emit, filler=filler
            ):
                promise = new.say is not None and new.say.kind is UtteranceKind.AGREE_GIVE
                say = None if promise else new.say  # no promise of a gift it does not give
                new = new.model_copy(
                    update={"skill": None, "kind": IntentKind.CONTINUE, "say": say}
                )
        if new.say is not None and old.say == new.say and recent:
            new = new.model_copy(update={"say": None})
        if new.skill is None and new.say is None and not keep:
            return None
        return new
