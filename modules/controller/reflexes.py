"""Reflexes: the decisions an agent makes without waiting for its model.

While the Cognitive Controller's LLM call is in flight (seconds to a minute on a local
server), the agent must not freeze. The running skill goes on by itself (skill execution
runs it); these fast paths are checked on the same bottleneck view and published at once,
labelled ``heuristic``:

- **eat** when hungry or hurt and holding food (the heuristic policy's own rule);
- **move away** when badly hurt with nothing to eat (the danger the view shows is the
  agent's own health: it perceives no attacker);
- **answer** someone who addressed the agent and waits: a greeting, a question, a request
  (the heuristic policy's answer, which may be a give or a refusal).

:func:`reflex` returns None when nothing is urgent: the decision is then the policy's.
:func:`keep_busy` is the filler for a slow model: an agent with nothing running for
:data:`IDLE_PATIENCE_S` while its model thinks takes the heuristic's next step; the model's
decision, when it comes, may replace that filler.
"""

from __future__ import annotations

import random

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.state.sections import IntentKind, UtteranceKind
from modules.controller.decisions import ControllerOut
from modules.heuristics import asked
from modules.heuristics.controller import HUNGRY, HURT
from modules.heuristics.controller import decide as heuristic_decide
from modules.knowledge import FOODS

__all__ = ["FLEE_DISTANCE", "IDLE_PATIENCE_S", "KEEP_GOING_S", "keep_busy", "keep_going", "reflex"]

FLEE_DISTANCE = 24.0
# agent's seconds with nothing running before a filler step: a body idle while its model
# thinks (20 s a call on a small local server) is a frozen agent; at 10 s, 5 agents on one
# server started 2.5 skills a minute each with bodies idle half of the time
IDLE_PATIENCE_S = 3.0
_MOVING = frozenset({"explore", "go_to"})


def reflex(view: BottleneckView, rng: random.Random) -> ControllerOut | None:
    """The urgent part of a decision from ``view``, or None when nothing is urgent.

    A body reflex (eat, move away) and an answer may come together: the body's skill with
    the answer's words (a promised gift is not spoken unless the give is the skill)."""
    body = _body(view)
    talk = _answer(view, rng)
    if body is None:
        return talk
    if talk is None or talk.say is None or talk.say.kind is UtteranceKind.AGREE_GIVE:
        return body
    return body.model_copy(update={"say": talk.say})


def _body(view: BottleneckView) -> ControllerOut | None:
    per = view.perception
    if not per.connected or (per.food >= HUNGRY and per.health >= HURT):
        return None
    inv = per.inventory
    food = next((f for f in FOODS if inv.get(f, 0) > 0), None)
    vitals = f"food {per.food:.0f}/20, health {per.health:.0f}/20"
    if food is not None and per.food < 20:
        return ControllerOut(
            kind=IntentKind.EAT,
            intent=f"eat {food.replace('_', ' ')}",
            skill="eat",
            args={"item": food},
            item=food,
            reason=vitals,
        )
    running = view.action.running
    if per.health < HURT and (running is None or running.skill not in _MOVING):
        return ControllerOut(
            kind=IntentKind.RECOVER,
            intent="move away from danger",
            skill="explore",
            args={"distance": FLEE_DISTANCE},
            reason=f"danger: {vitals} and nothing to eat",
        )
    return None


def _answer(view: BottleneckView, rng: random.Random) -> ControllerOut | None:
    u = asked.unanswered(view)
    if u is None:
        return None
    out = heuristic_decide(view, rng)
    if out.say is not None and out.say.to == u.speaker:
        return out
    return None


def keep_busy(view: BottleneckView, rng: random.Random, since: float) -> ControllerOut | None:
    """The heuristic's next step when nothing has run for :data:`IDLE_PATIENCE_S` since
    ``since`` (when the model was asked) or the last action ended; else None."""
    act = view.action
    if act.running is not None or not view.perception.connected:
        return None
    ended = act.last_outcome.ended_at if act.last_outcome is not None else 0.0
    if view.now - max(since, ended) < view.seconds(IDLE_PATIENCE_S):
        return None
    out = heuristic_decide(view, rng)
    return out if out.skill is not None else None


#: while the model thinks and a skill runs, the controller says it keeps going this often
#: (agent's seconds): the agent is deciding, not frozen, and says what it is doing
KEEP_GOING_S = 10.0


def keep_going(view: BottleneckView, last_decided_at: float) -> ControllerOut | None:
    """A decision to carry on with the running skill (or to wait, when none runs and no
    filler step was found), when nothing was decided for :data:`KEEP_GOING_S`: the
    heuristic's answer while the model is still thinking."""
    if view.now - last_decided_at < view.seconds(KEEP_GOING_S):
        return None
    running = view.action.running
    return ControllerOut(
        kind=IntentKind.CONTINUE,
        intent=f"keep going: {running.describe()}" if running else "wait and look around",
        reason="nothing I perceive calls for a change while I think it over",
    )
