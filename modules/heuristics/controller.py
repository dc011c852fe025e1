"""The Cognitive Controller's heuristic policy: ``decide(view, rng) -> ControllerOut``.

It reads exactly the bottleneck view (:class:`~agent_runtime.bottleneck.BottleneckView`) and
answers in types: an intent kind, a skill call, and an utterance goal for talking. In order:

1. disconnected (the body's last observation failed) -> wait, without a skill;
2. someone addressed the agent and waits for an answer -> give / refuse / answer;
3. a perceived open deposit request -> deposit its own share (:mod:`.deposit`);
4. hungry or hurt and holding food -> eat;
   its own traits say it needs an item it holds none of -> ask someone it perceives
   (:mod:`.needs`);
5. action awareness says recent actions failed or did not deliver -> recover: what the
   body said was missing (:mod:`.recovery`), elsewhere when it was not found, and after
   four failures in a row somewhere else (a pause only when it cannot even walk away);
6. a skill is running -> keep it (commitment), maybe telling someone what it does;
7. otherwise the next step of its plan (not the step its last action just did, before
   planning has moved past it) or of its goal (tech tree).

How often it starts a conversation comes from its own traits (:func:`talkativeness`).
"""

from __future__ import annotations

import random
from typing import Any

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.bottleneck_data import ActionRecord
from agent_runtime.state.sections import IntentKind, Utterance, UtteranceGoal, UtteranceKind
from agent_runtime.world import SkillCall
from modules.controller.decisions import ControllerOut
from modules.heuristics import asked
from modules.heuristics.deposit import deposit_due
from modules.heuristics.needs import ask
from modules.heuristics.recovery import missing_station, missing_step
from modules.heuristics.traits import talkativeness
from modules.knowledge import FOODS
from modules.techtree import adapt, next_step, same_step

__all__ = ["ControllerOut", "decide", "failures"]

TALK_GAP_S = 45.0  # never start a conversation more often than this (agent's time)
SMALL_TALK_GAP_S = 60.0  # do not answer small talk from someone spoken to this recently
OPINION_MIN = 0.25  # an opinion this strong may be voiced
HUNGRY, HURT = 8.0, 6.0


def failures(view: BottleneckView) -> list[ActionRecord]:
    """Trailing actions that failed or, by action awareness, did not deliver."""
    notes = view.awareness.discrepancies
    out: list[ActionRecord] = []
    for r in reversed(view.action.recent):
        undelivered = any(d.skill == r.call.skill and abs(d.at - r.ended_at) < 5.0 for d in notes)
        if r.success is None or (r.success and not undelivered):
            break
        out.append(r)
    return out


def _answer(view: BottleneckView, u: Utterance, goal: str) -> ControllerOut | None:
    who, text = u.speaker, u.text
    if asked.is_request(text):
        item, word, ok = asked.gift_for(view, who, text)  # bounded by the gift policy
        if item is not None and ok.count > 0:
            n = ok.count
            return ControllerOut(
                kind=IntentKind.GIVE,
                intent=f"give {n} {item.replace('_', ' ')} to {who}",
                skill="give",
                args={"player": who, "item": item, "count": n},
                target=who,
                item=item,
                count=n,
                say=UtteranceGoal(kind=UtteranceKind.AGREE_GIVE, to=who, item=item, count=n),
                reason=f"{who} asked for {word or item}: {ok.reason}",
            )
        refuse = item is not None or asked.is_greedy(text)
        kind = UtteranceKind.REFUSE if refuse else UtteranceKind.HAVE_NONE
        return ControllerOut(
            kind=IntentKind.TALK,
            intent=f"keep working on {goal}",
            target=who,
            item=word or None,
            say=UtteranceGoal(kind=kind, to=who, item=word or "such thing"),
            reason=f"{who} asked for {word}: {ok.reason}",
        )
    if view.now - view.conversation.spoke_to.get(who, 0.0) < view.seconds(SMALL_TALK_GAP_S):
        return None  # small talk with someone I just spoke to: let the exchange end
    if asked.is_greeting(text):
        say = UtteranceGoal(kind=UtteranceKind.GREET, to=who, topic=goal.lower())
    elif asked.is_question_doing(text):
        say = UtteranceGoal(kind=UtteranceKind.INFORM_ACTIVITY, to=who, topic=goal.lower())
    else:
        say = UtteranceGoal(kind=UtteranceKind.ANSWER, to=who)
    return ControllerOut(
        kind=IntentKind.TALK, intent=f"answer {who}", target=who, say=say, reason="spoken to"
    )


def _talk_target(view: BottleneckView, rng: random.Random) -> str | None:
    """Someone to speak to now: a person not spoken to yet (likely), else now and then
    someone nearby, more often the more talkative the agent's own traits say it is."""
    conv = view.conversation
    if view.now - conv.last_said_at <= view.seconds(TALK_GAP_S):
        return None
    talk = talkativeness(view.identity.traits)
    near = list(view.perception.players)
    fresh = [p for p in near if p not in conv.spoke_to]
    if fresh and rng.random() < 0.6 + 0.3 * talk:
        return fresh[0]
    if near and rng.random() < max(0.03, 0.15 * (1.0 + 2.0 * talk)):
        return near[0]
    return None


def _say_to(
    view: BottleneckView, to: str | None, doing: str, rng: random.Random
) -> UtteranceGoal | None:
    if to is None:
        return None
    for topic, stance in sorted(view.social.opinions.items()):
        if abs(stance) >= OPINION_MIN and rng.random() < 0.5:
            return UtteranceGoal(kind=UtteranceKind.OPINION, to=to, topic=topic, stance=stance)
    if to not in view.conversation.spoke_to:
        return UtteranceGoal(kind=UtteranceKind.GREET, to=to, topic=doing)
    return UtteranceGoal(kind=UtteranceKind.INFORM_ACTIVITY, to=to, topic=doing)


def _recover(view: BottleneckView, failed: list[ActionRecord]) -> ControllerOut | None:
    """The step that answers why the last actions failed (None: the usual next step)."""
    last = failed[0]
    reason = last.reason.lower()
    if len(failed) >= 4:
        if any(r.call.skill == "explore" for r in failed):  # stuck where it stands: pause
            return ControllerOut(
                kind=IntentKind.RECOVER,
                intent="pause and rethink after several failed attempts",
                skill="idle",
                args={"seconds": min(30.0, view.seconds(5.0) + 5.0)},
                reason=last.reason or "repeated failures",
            )
        return ControllerOut(  # several things failed here: try elsewhere
            kind=IntentKind.RECOVER,
            intent="look elsewhere after several failed attempts",
            skill="explore",
            args={"distance": 48},
            reason=last.reason or "repeated failures",
        )
    if "no path" in reason or "not found" in reason or ("no " in reason and "within" in reason):
        st = missing_station(reason, inventory(view), view.perception.blocks)
        return ControllerOut(
            kind=IntentKind.RECOVER,
            intent=st.text if st is not None else "explore to find what I need",
            skill=st.call.skill if st is not None else "explore",
            args=dict(st.call.args) if st is not None else {"distance": 48},
            reason=f"last action failed: {last.reason}",
        )
    st = missing_step(reason, inventory(view), view.perception.blocks)
    if st is None:
        return None
    return ControllerOut(
        kind=IntentKind.RECOVER,
        intent=st.text,
        skill=st.call.skill,
        args=dict(st.call.args),
        item=st.call.args.get("item") or st.call.args.get("block"),
        reason=f"last action failed: {last.reason}",
    )


def _done(view: BottleneckView, step: SkillCall, inv: dict[str, int]) -> bool:
    """The plan's step is what the agent's last action just did successfully."""
    recent = view.action.recent
    last = recent[-1] if recent else None
    return bool(last and last.success and same_step(adapt(step, inv), last.call))


def inventory(view: BottleneckView) -> dict[str, int]:
    """Its own inventory: what it last saw, changed by what its own actions reported since
    (the controller wakes on a skill's end, perception on its own second: after two quick
    crafts the inventory seen showed neither, and counting only the last one made an
    explorer craft a crafting table four times in a row). An action that was running when
    it looked may show in the inventory seen in part (a collect's pickups): its gains count
    as at least that much; gains of actions started after it looked add up; what an action
    used up is gone."""
    inv = dict(view.perception.inventory)
    looked = view.perception.observed_at
    for rec in view.action.recent:
        if not rec.success or rec.ended_at <= looked:
            continue  # failed, or already in what it saw
        overlapped = rec.started_at < looked
        for k, v in rec.delta.items():
            if v > 0 and overlapped:
                inv[k] = max(inv.get(k, 0), v)
            else:
                inv[k] = inv.get(k, 0) + v
    return {k: v for k, v in inv.items() if v > 0}


def decide(view: BottleneckView, rng: random.Random) -> ControllerOut:
    """The heuristic controller policy."""
    per = view.perception
    inv = inventory(view)
    goal = view.goals.current or "help out"
    kind = view.goals.kind or "gather_wood"
    running = view.action.running
    if not per.connected:  # it perceives nothing now: no skill to run (not even an idle
        # one, through the same body), it decides again once it perceives its world
        return ControllerOut(
            kind=IntentKind.WAIT, intent="wait until I perceive my surroundings again",
            reason="disconnected: nothing perceived",
        )  # fmt: skip
    u = asked.unanswered(view)
    if u is not None and (out := _answer(view, u, goal)) is not None:
        return out
    due = deposit_due(view)
    if due is not None:
        item, n, chest, why = due
        args: dict[str, Any] = {"item": item, "count": n}
        if chest is not None:
            args.update(zip("xyz", chest, strict=True))
        return ControllerOut(
            kind=IntentKind.DEPOSIT,
            intent=f"deposit {n} {item.replace('_', ' ')} in the community chest",
            skill="deposit", args=args, item=item, count=n, reason=why,
        )  # fmt: skip
    if per.food < HUNGRY or per.health < HURT:
        food = next((f for f in FOODS if inv.get(f, 0) > 0), None)
        if food is not None and per.food < 20:
            return ControllerOut(
                kind=IntentKind.EAT, intent=f"eat {food.replace('_', ' ')}", skill="eat",
                args={"item": food}, item=food, reason=f"food {per.food:.0f}/20, health {per.health:.0f}/20",
            )  # fmt: skip
    if (request := ask(view, rng)) is not None:
        who, word, say = request
        return ControllerOut(
            kind=IntentKind.TALK, intent=f"ask {who} for {word}", target=who, item=word,
            say=say, reason=f"my own traits say I need {word} and I have none",
        )  # fmt: skip
    to = _talk_target(view, rng)
    failed = failures(view)
    if failed and running is None and (out := _recover(view, failed)) is not None:
        return out.model_copy(update={"say": _say_to(view, to, out.intent.lower(), rng)})
    if running is not None:
        return ControllerOut(
            kind=IntentKind.CONTINUE, intent=f"keep going ({running.describe()})",
            say=_say_to(view, to, goal.lower(), rng), reason="the current action is still running",
        )  # fmt: skip
    plan = view.plan
    if plan.current_skill is not None and not failed and not _done(view, plan.current_skill, inv):
        use_plan = rng.random() < 0.7
    else:  # a failed plan step, or one just done that planning has not moved past yet
        use_plan = False
    if use_plan and plan.current_skill is not None:
        text, call = plan.current_step, adapt(plan.current_skill, inv)
    else:
        st = next_step(kind, inv, per.blocks)
        text, call = st.text, st.call
    return ControllerOut(
        kind=IntentKind.WORK,
        intent=f"{text} to {goal.lower()}",
        skill=call.skill,
        args=dict(call.args),
        say=_say_to(view, to, text, rng),
        reason=f"next step of my goal ({kind})",
    )
