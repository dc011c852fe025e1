"""When the Cognitive Controller asks its model: only when its view changed in a way that can
change the decision, and at least every ``max_interval_s`` of the agent's time.

Most controller steps see the same situation as the last model call (the same skill running,
nobody new talking to the agent): asked again, a model answers "continue". The
:class:`AskGate` reads a :class:`Situation` from the bottleneck view (and the controller's
own last decision) and says why the model should be asked now, or nothing:

- ``first``: the model has not been asked yet;
- ``skill_ended``: a skill ended or failed since the last call (a new outcome);
- ``idle``: nothing runs and nothing is on its way to the body (it was busy at the last call);
- ``addressed``: a line to the agent from someone else, or an announcement;
- ``discrepancy``: action awareness noted a new one;
- ``danger``: its health or food fell below the reflexes' thresholds, or it lost health;
- ``connected``: its body's observation came back (or failed);
- also while a skill runs, when the agent may start a conversation again (its own last line
  is ``TALK_GAP_S`` old, :data:`modules.heuristics.controller.TALK_GAP_S`): ``unmet``, a
  player in view it has not spoken to yet (by its own conversation record) who was not
  already such a chance at the last call (one it could not take then, its last line too
  recent, counts again); ``company``, its gap ended since the last call with a player in
  view. A line does not change the running skill (a ``continue`` that says something), so
  these are the occasions of greeting someone and of telling someone what it does: a model
  asked only at a skill's end and by a standing decision's step boundary never heard of
  them (with these occasions, greetings and "I'm going to" lines said while a skill ran fell
  from 48 to 4 in a 10-agent village);
- only while nothing runs (idle): ``goal``, ``plan_step`` (its goal or its plan's current
  step changed), ``heard`` (a line to everyone), ``player`` (a player came into view who was
  not in view at the last call). While a skill runs, these cannot change the decision: the
  commitment check (:mod:`modules.controller.commitment`) replaces a running skill only for danger, a
  request to the agent or an announced deposit request, and a new goal or plan step applies
  when the current step ends (which is ``skill_ended``);
- ``ceiling``: ``max_interval_s`` passed since the last call.

A model's decision may be *standing* (``follow_plan``): when the skill it started succeeds
and the only news is that (``skill_ended``, ``idle``, ``plan_step``), the controller starts
the step of the plan the agent would do now without a call (also after a skill off the plan,
such as a recovery: the plan's step again), at most ``follow_plan_steps`` times a decision
(:meth:`AskGate.follow`; the ceiling counts from there, so the agent still decides at least
every ``max_interval_s``); when the plan's steps ran out with that success, it waits briefly
for the planning module's next ones. While the skill runs and only the ceiling passed, the
standing decision keeps the course itself for a while (:meth:`AskGate.keep`). A later answer
that only keeps the course (no skill, nothing to say: asked at the ceiling while the step
runs) leaves the standing decision as it was (reset by such answers, a sixth of the controller's
calls came at the end of a step a standing decision covered).

Asked on plan-step changes, lines to everyone and players in view while a skill ran, the
model answered "continue" nearly every time: hence the idle-only occasions above.

Everything comes from the agent's own bottleneck view and its own last decision; the gate
changes only *when* the policy is asked, never what it sees.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.config.module_options import CONTROLLER_MAX_INTERVAL_S
from agent_runtime.state.sections import Decision
from modules.heuristics.controller import HUNGRY, HURT, TALK_GAP_S

__all__ = [
    "FOLLOWABLE",
    "HEALTH_DROP",
    "AskGate",
    "InputGate",
    "Situation",
    "situation",
    "why",
]

HEALTH_DROP = 2.0  # health lost since the last call that counts as a threat
#: the reasons a standing decision answers itself: its skill ended and the plan moved on
FOLLOWABLE = frozenset({"skill_ended", "idle", "plan_step"})
#: a skill decided this recently and not started yet is on its way to the body (not idle)
ON_ITS_WAY_S = 10.0


class Situation(BaseModel):
    """What the controller's decision depends on, read from its own view."""

    model_config = ConfigDict(frozen=True)
    at: float
    outcome: tuple[str, float] | None  # (skill, ended_at) of the last outcome
    idle: bool  # nothing runs and nothing decided is on its way to the body
    addressed_at: float  # newest line addressed to the agent, or announcement
    heard_at: float  # newest line to everyone
    goal: str
    step: tuple[int, str]
    discrepancy_at: float
    danger: bool
    health: float
    players: frozenset[str]
    connected: bool
    talk_from: float  # when it may start a conversation again: its own last line + the gap
    unmet: frozenset[str]  # players in view it has not spoken to


def situation(view: BottleneckView, decision: Decision) -> Situation:
    """The situation in ``view``; ``decision`` is the controller's own last decision."""
    me = view.identity.name
    act, per, conv = view.action, view.perception, view.conversation
    out = act.last_outcome
    on_its_way = (
        decision.skill is not None
        and decision.updated_at > act.started_at
        and view.now - decision.updated_at < view.seconds(ON_ITS_WAY_S)
    )
    others = [u for u in conv.lines if u.speaker != me]
    to_me = [u.at for u in others if u.to == me] + [a.at for a in conv.announcements]
    notes = view.awareness.discrepancies
    return Situation(
        at=view.now,
        outcome=(out.skill, out.ended_at) if out is not None else None,
        idle=act.running is None and not on_its_way,
        addressed_at=max(to_me, default=0.0),
        heard_at=max((u.at for u in others if u.to is None), default=0.0),
        goal=view.goals.current,
        step=(view.plan.current, view.plan.current_step),
        discrepancy_at=max((d.at for d in notes), default=0.0),
        danger=per.food < HUNGRY or per.health < HURT,
        health=per.health,
        players=frozenset(per.players),
        connected=per.connected,
        talk_from=conv.last_said_at + view.seconds(TALK_GAP_S),
        unmet=frozenset(p for p in per.players if p not in conv.spoke_to and p != me),
    )


def why(before: Situation | None, now: Situation, max_interval: float) -> list[str]:
    """The reasons to ask the model in ``now``, given the situation at the last call
    (``before``) and the ceiling ``max_interval`` (clock seconds); [] = keep the course."""
    if before is None:
        return ["first"]
    reasons = []
    if now.outcome != before.outcome:
        reasons.append("skill_ended")
    if now.idle and not before.idle:
        reasons.append("idle")
    if now.addressed_at > before.addressed_at:
        reasons.append("addressed")
    if now.discrepancy_at > before.discrepancy_at:
        reasons.append("discrepancy")
    if (now.danger and not before.danger) or now.health <= before.health - HEALTH_DROP:
        reasons.append("danger")
    if now.connected != before.connected:
        reasons.append("connected")
    if now.at >= now.talk_from:  # it may start a conversation: also while a skill runs
        chances = before.unmet if before.at >= before.talk_from else frozenset()
        if now.unmet - chances:
            reasons.append("unmet")
        if now.players and before.at < now.talk_from:
            reasons.append("company")
    if now.idle:  # what applies only when the running step ends
        if now.goal != before.goal:
            reasons.append("goal")
        if now.step != before.step:
            reasons.append("plan_step")
        if now.heard_at > before.heard_at:
            reasons.append("heard")
        if now.players - before.players:
            reasons.append("player")
    if not reasons and now.at - before.at >= max_interval:
        reasons.append("ceiling")
    return reasons


class AskGate:
    """The controller's record of its last model call: :meth:`reasons` to ask now."""

    def __init__(self, max_interval_s: float = CONTROLLER_MAX_INTERVAL_S) -> None:
        self.max_interval_s = max_interval_s
        self.last: Situation | None = None
        self.held = 0  # steps that kept the course without a call since the last one
        self.held_total = 0
        self.asked: dict[str, int] = {}  # model calls by their first reason
        self.followed = 0  # plan steps started on a standing decision, without a call
        self.kept = 0  # ceilings a standing decision answered (keep the course), no call

    def reasons(self, view: BottleneckView, decision: Decision) -> tuple[Situation, list[str]]:
        now = situation(view, decision)
        return now, why(self.last, now, view.seconds(self.max_interval_s))

    def hold(self) -> None:
        self.held += 1
        self.held_total += 1

    def ask(self, now: Situation, reasons: list[str]) -> int:
        """Record a call made in situation ``now``; the steps held before it."""
        self.last = now
        held, self.held = self.held, 0
        self.asked[reasons[0]] = self.asked.get(reasons[0], 0) + 1
        return held

    def follow(self, now: Situation) -> None:
        """A plan step was started in situation ``now`` on the model's standing decision:
        the next reasons (and the ceiling) count from here, as after a call."""
        self.last = now
        self.held = 0
        self.followed += 1

    def keep(self, now: Situation) -> None:
        """Only the ceiling passed and the model's standing decision kept the course in
        situation ``now``, without a call: the next ceiling counts from here."""
        self.last = now
        self.held = 0
        self.kept += 1

    def answered(self, at: float) -> None:
        """The model answered at ``at``: the ceiling counts from its answer; what changed
        while it thought, after the view it was asked with, is still news."""
        if self.last is not None:
            self.last = self.last.model_copy(update={"at": at})


class InputGate:
    """For a module other than the controller: ask the model when the inputs its answer
    depends on (``signature``, read from the module's own view) differ from those of the
    last call, or ``max_interval_s`` (clock seconds) passed since it; otherwise the module
    keeps what it has."""

    def __init__(self, max_interval_s: float) -> None:
        self.max_interval_s = max_interval_s
        self.last: tuple[object, float] | None = None
        self.held = 0

    def due(self, signature: object, now: float) -> bool:
        if self.last is None or self.last[0] != signature:
            return True
        return now - self.last[1] >= self.max_interval_s

    def asked(self, signature: object, now: float) -> None:
        self.last = (signature, now)
