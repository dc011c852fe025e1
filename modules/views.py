"""What each module's policy may know: one typed view per policy, built from its own agent's state.

A view is a frozen :class:`~agent_runtime.policy.View` (``extra="forbid"``): the list of its
fields is the list of what the policy may know. Every builder here takes sections of the
agent's OWN Agent State (and its own clock time); none takes another agent's config, an
experiment's variables, or world truth the agent did not perceive. The heuristic and the
LLM policy of a module get the same view; the LLM sees it through ``prompt_variables``,
where every word of others is quoted with :func:`agent_runtime.prompts.untrusted`.

| policy                      | view             | built from (own state)                        |
|-----------------------------|------------------|-----------------------------------------------|
| cognitive controller        | `BottleneckView` | the bottleneck (``agent_runtime.bottleneck``) |
| talking                     | `TalkView`       | identity, decision, conversation              |
| social awareness (a person) | `PersonUpdateView` | identity, its record of the person, the line  |
| social awareness (opinions) | `OpinionView`    | identity traits, heard lines on each topic    |
| goal generation             | `GoalView`       | identity, goals, perception, social, conversation |
| planning                    | `PlanView`       | identity, goals, perception, plan, action, awareness, conversation |
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.config.topics import Topic
from agent_runtime.policy import View
from agent_runtime.prompts import fenced, untrusted
from agent_runtime.state.sections import (
    Action,
    Awareness,
    Conversation,
    Decision,
    Goals,
    Identity,
    Perception,
    PersonView,
    Plan,
    Social,
    Utterance,
    UtteranceGoal,
)
from agent_runtime.world import SkillCall

__all__ = [
    "BottleneckView",
    "GoalView",
    "OpinionView",
    "PersonUpdateView",
    "PlanView",
    "TalkView",
    "clock_text",
    "goal_view",
    "opinion_view",
    "person_view",
    "plan_view",
    "talk_view",
]

HISTORY_LINES = 8


def _traits(traits: tuple[str, ...]) -> str:
    return " ".join(traits) or "(none)"


def _inventory(inv: dict[str, int]) -> str:
    return ", ".join(f"{k} x{v}" for k, v in sorted(inv.items())) or "empty"


def _line(u: Utterance, me: str) -> str:
    words = u.text if u.speaker == me else untrusted(u.text)
    who = u.speaker if u.speaker == me else untrusted(u.speaker, 40)
    return f"{who}{' (to ' + u.to + ')' if u.to else ''}: {words}"


# --- talking --------------------------------------------------------------------------
class TalkView(View):
    name: str
    traits: tuple[str, ...] = ()
    say: UtteranceGoal
    intent: str = ""
    action: SkillCall | None = None
    history: tuple[Utterance, ...] = ()
    # the speaker's own memories about the person it talks to (retrieved from its own
    # memory stream with the person as the focal point, as in Generative Agents)
    memories: tuple[str, ...] = ()
    topics: tuple[Topic, ...] = ()  # what its village talks about (its Identity)

    def prompt_variables(self) -> dict[str, str]:
        goal = self.say.model_dump(exclude_defaults=True, mode="json")
        if self.say.text:
            goal["text"] = untrusted(self.say.text)
        return {
            "name": self.name,
            "traits": _traits(self.traits),
            "decision": self.intent or "keep going",
            "action": self.action.describe() if self.action else "none",
            "goal": str(goal),
            "addressee": untrusted(self.say.to, 40) if self.say.to else "everyone nearby",
            "history": fenced(_line(u, self.name) for u in self.history),
            "memories": fenced(untrusted(m) for m in self.memories),
        }


def talk_view(
    ident: Identity, decision: Decision, conv: Conversation, memories: tuple[str, ...] = ()
) -> TalkView | None:
    if decision.say is None:
        return None
    return TalkView(
        # who speaks, what it heard and remembers, then what its controller decided to say
        name=ident.name,
        traits=ident.traits,
        topics=ident.topics,
        history=conv.lines[-HISTORY_LINES:],
        memories=memories,
        say=decision.say,
        intent=decision.intent,
        action=decision.skill,
    )


# --- social awareness -----------------------------------------------------------------
class PersonUpdateView(View):
    """One heard line, and what the agent already thought of its speaker."""

    me: str
    person: PersonView
    heard: str
    at: float = 0.0
    topics: tuple[Topic, ...] = ()  # what its village talks about (its Identity)

    def prompt_variables(self) -> dict[str, str]:
        p = self.person
        return {
            "name": self.me,
            "person": untrusted(p.name, 40),
            "summary": untrusted(p.summary) if p.summary else "(nothing yet)",
            "sentiment": f"{p.sentiment:.1f}",
            "activity": untrusted(p.activity) if p.activity else "(unknown)",
            "heard": untrusted(self.heard),
        }


def person_view(
    ident: Identity, social: Social, speaker: str, text: str, at: float
) -> PersonUpdateView:
    person = social.people.get(speaker) or PersonView(name=speaker)
    return PersonUpdateView(me=ident.name, person=person, heard=text, at=at, topics=ident.topics)


class OpinionView(View):
    """The agent's own convictions (traits) and the lines it heard on each topic (no speakers)."""

    traits: tuple[str, ...] = ()
    heard: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    topics: tuple[Topic, ...] = ()  # what its village talks about (its Identity)


def opinion_view(ident: Identity, social: Social) -> OpinionView:
    return OpinionView(traits=ident.traits, heard=dict(social.topic_lines), topics=ident.topics)


# --- goal generation ------------------------------------------------------------------
class GoalView(View):
    name: str
    community_goal: str = ""
    traits: tuple[str, ...] = ()
    current: str = ""
    kind: str = ""
    inventory: dict[str, int] = Field(default_factory=dict)
    inventory_at_goal: dict[str, int] = Field(default_factory=dict)  # when the goal was set
    seen: tuple[str, ...] = ()  # block kinds in sight
    others: dict[str, str] = Field(default_factory=dict)  # person -> activity, as perceived
    heard: tuple[str, ...] = ()  # recent lines others said (needs, requests)
    kinds: tuple[str, ...] = ()  # activities this agent may choose from
    set_at: float = 0.0  # when the current goal was chosen
    now: float = 0.0  # the agent's clock
    time_scale: float = 1.0

    def prompt_variables(self) -> dict[str, str]:
        others = "; ".join(f"{untrusted(p, 40)}: {untrusted(a)}" for p, a in self.others.items())
        return {
            "name": self.name,
            "community_goal": self.community_goal or "(none)",
            "traits": _traits(self.traits),
            "others": others or "(you do not know what others are doing)",
            "heard": fenced(untrusted(h) for h in self.heard),
            "current_goal": self.current or "(none)",
            "inventory": _inventory(self.inventory),
            "seen": ", ".join(self.seen) or "nothing notable",
            "activities": ", ".join(self.kinds),
        }


def goal_view(
    ident: Identity,
    goals: Goals,
    per: Perception,
    social: Social,
    conv: Conversation,
    *,
    inventory_at_goal: dict[str, int],
    kinds: tuple[str, ...],
    now: float,
    time_scale: float = 1.0,
) -> GoalView:
    obs = per.observation
    return GoalView(
        name=ident.name,
        community_goal=ident.community_goal,
        traits=ident.traits,
        current=goals.current,
        kind=goals.kind,
        inventory=dict(obs.inventory),
        inventory_at_goal=inventory_at_goal,
        seen=tuple(sorted({b.name for b in obs.blocks})),
        others={p.name: p.activity for p in social.people.values() if p.activity},
        heard=tuple(u.text for u in conv.lines if u.speaker != ident.name)[-10:],
        kinds=kinds,
        set_at=goals.set_at,
        now=now,
        time_scale=time_scale,
    )


# --- planning -------------------------------------------------------------------------
class PlanView(View):
    """Planning's view: who the agent is, what it has and sees, the part of its day to plan
    (``level``, ``start``..``end`` in its own game hours), its current plan and what it
    perceived since that plan was last revised (its own failures, lines addressed to it)."""

    name: str
    goal: str
    kind: str = ""
    inventory: dict[str, int] = Field(default_factory=dict)
    seen: dict[str, float] = Field(default_factory=dict)  # block kind -> nearest distance
    skills: tuple[str, ...] = ()
    traits: tuple[str, ...] = ()
    community_goal: str = ""
    hour: float = 0.0  # now: game hours since the run started, from its own clock
    # what to plan: the day in broad strokes, a day chunk in hours, an hour chunk in steps
    level: Literal["day", "hour", "step"] = "day"
    start: float = 0.0
    end: float = 24.0
    chunk: str = ""
    chunk_kind: str = ""
    day_plan: tuple[str, ...] = ()
    done: tuple[str, ...] = ()
    reason: str = ""
    # the current plan and what the agent perceived since it was last revised
    plan_goal: str = ""
    step: str = ""
    step_skill: SkillCall | None = None
    step_expects: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    heard: tuple[Utterance, ...] = ()

    def prompt_variables(self) -> dict[str, str]:
        return {
            "name": self.name,
            "goal": self.goal,
            "traits": _traits(self.traits),
            "community_goal": self.community_goal or "(none)",
            "inventory": _inventory(self.inventory),
            "seen": ", ".join(sorted(self.seen)) or "nothing notable",
            "skills": ", ".join(self.skills),
            "now": clock_text(self.hour),
            "start": clock_text(self.start),
            "end": clock_text(self.end),
            "minutes": f"{max(0.0, self.end - self.start) * 60:.0f}",
            "chunk": self.chunk or "(none)",
            "day_plan": "\n".join(self.day_plan) or "(none yet)",
            "done": "; ".join(self.done) or "(nothing yet)",
            "reason": self.reason or "(none: a fresh plan)",
            "failures": "; ".join(self.failures) or "(none)",
            "heard": fenced(_line(u, self.name) for u in self.heard),
        }


def clock_text(hour: float) -> str:
    """Game hours since the run started as the agent's "day N, HH:MM" (a run starts at 06:00
    of day 1, as a Minecraft world does)."""
    day, rest = divmod(hour, 24.0)
    minutes = round(rest * 60)
    if minutes >= 24 * 60:
        day, minutes = day + 1, 0
    hh, mm = divmod(minutes, 60)
    return f"day {int(day) + 1}, {(hh + 6) % 24:02d}:{mm:02d}"


def plan_view(
    ident: Identity,
    goals: Goals,
    per: Perception,
    skills: tuple[str, ...],
    *,
    plan: Plan | None = None,
    action: Action | None = None,
    awareness: Awareness | None = None,
    conv: Conversation | None = None,
    hour: float = 0.0,
) -> PlanView:
    seen: dict[str, float] = {}
    for b in per.observation.blocks:
        seen[b.name] = min(seen.get(b.name, 1e9), b.distance)
    plan = plan or Plan()
    since = plan.revised_at
    cur = plan.steps[plan.current] if plan.current < len(plan.steps) else None
    failures = [
        f"{e.call.describe()} failed" + (f": {e.outcome.reason}" if e.outcome.reason else "")
        for e in (action.log if action else ())
        if e.outcome is not None
        and not e.outcome.success
        and not e.outcome.cancelled
        and e.outcome.ended_at > since
    ]
    failures += [
        f"{d.skill}: {d.note}"
        for d in (awareness.discrepancies if awareness else ())
        if d.at > since
    ]
    heard = tuple(
        u
        for u in (conv.lines if conv else ())
        if u.speaker != ident.name and u.at > since and (u.to == ident.name or u.to is None)
    )
    return PlanView(
        name=ident.name,
        goal=goals.current,
        kind=goals.kind,
        inventory=dict(per.observation.inventory),
        seen=seen,
        skills=skills,
        traits=ident.traits,
        community_goal=ident.community_goal,
        hour=hour,
        day_plan=tuple(
            f"{clock_text(c.start)} ({c.minutes / 60:.1f} h): {c.text}" for c in plan.day
        ),
        plan_goal=plan.goal,
        step=cur.text if cur else "",
        step_skill=cur.skill if cur else None,
        step_expects=cur.expects if cur else (),
        failures=tuple(failures[-5:]),
        heard=heard[-HISTORY_LINES:],
    )
