"""The gift policy: how many of an item the agent may give a player now, and the bound on
every give decision (heuristic or LLM).

A pure function of the controller's view (:class:`~agent_runtime.bottleneck.BottleneckView`)
and the agent's own gift settings (``view.identity.gifts``, the village's ``gifts:`` section,
see ``configs/README.md``). It reads only what the agent knows:

- **relationship**: its own sentiment about the player (Social section, 0..10); a player it
  has no memory of is a stranger at ``stranger_sentiment`` (neutral, not friendly), and so is
  one it heard fewer than ``trust_after`` lines from (unless it dislikes them). The
  highest tier whose ``min_sentiment`` is reached gives at most ``max_per_gift`` items;
  below every tier, nothing;
- **its own gift log** (``view.action.gifts``, plus a give still running): at least
  ``min_gap_s`` between two gifts to one player, at most ``gifts_per_player_per_hour``
  gifts and ``items_per_player_per_hour`` items per player per hour, ``items_per_hour`` for
  all players together;
- **its inventory**: never more than ``max_share`` of what it holds of the item (so never
  all of it, nor the whole inventory);
- **its current goal**: an item its current step uses (:func:`goal_items`) is given only
  above ``goal_reserve``.

Hours and gaps are in the agent's time (``view.seconds``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.config.models import GiftSettings
from agent_runtime.state.sections import IntentKind, UtteranceGoal, UtteranceKind
from agent_runtime.world import SkillCall
from modules.controller.decisions import ControllerOut
from modules.knowledge import LOGS, PLANKS, RECIPES
from modules.techtree import next_step

__all__ = [
    "HOUR_S",
    "Allowance",
    "allowance",
    "bound",
    "gifts_to",
    "goal_items",
    "is_command",
    "relationship",
    "tier_cap",
]

HOUR_S = 3600.0
_FAMILIES: dict[str, tuple[str, ...]] = {
    "log": LOGS,
    "planks": PLANKS,
    "stone": ("cobblestone",),
}


@dataclass(frozen=True, slots=True)
class Allowance:
    """How many the agent may give now (0 = none), and why (for the decision's reason)."""

    count: int
    reason: str


def settings(view: BottleneckView) -> GiftSettings:
    return view.identity.gifts


def relationship(view: BottleneckView, player: str) -> float:
    """Its own sentiment about ``player`` (0..10). A stranger is ``stranger_sentiment``, and
    stays at most that until it heard ``trust_after`` lines from them (one flattering line
    does not make a friend); dislike counts at once."""
    g = settings(view)
    person = next((p for p in view.social.people if p.name == player), None)
    if person is None:
        return g.stranger_sentiment
    if person.interactions < g.trust_after:
        return min(person.sentiment, g.stranger_sentiment)
    return person.sentiment


def tier_cap(gifts: GiftSettings, sentiment: float) -> int:
    """Items per gift for this sentiment: the highest tier reached, 0 below every tier."""
    reached = [t for t in gifts.tiers if sentiment >= t.min_sentiment]
    return max((t.max_per_gift for t in reached), default=0) if reached else 0


def _count(call: SkillCall) -> int:
    n = call.args.get("count", 1)
    return max(1, int(n)) if isinstance(n, int | float) else 1


def _given(view: BottleneckView) -> list[tuple[float, str, int]]:
    """(when, player, count) of its own gifts: the log, and a give still running."""
    out = [
        (r.started_at, str(r.call.args.get("player", "")), _count(r.call))
        for r in view.action.gifts
        if r.call.skill == "give"
    ]
    run = view.action.running
    if run is not None and run.skill == "give":
        out.append((view.action.started_at, str(run.args.get("player", "")), _count(run)))
    return out


def gifts_to(view: BottleneckView, player: str | None) -> list[tuple[float, int]]:
    """(when, count) of its gifts in the last hour, to ``player`` (None = to anyone)."""
    since = view.now - view.seconds(HOUR_S)
    return [(at, n) for at, who, n in _given(view) if at > since and player in (None, who)]


def _names(call: SkillCall | None) -> set[str]:
    if call is None:
        return set()
    names: set[str] = set()
    for key in ("item", "block"):
        v = call.args.get(key)
        if isinstance(v, str):
            names |= {v, *_FAMILIES.get(v, ())}
    for v in list(names):
        recipe = RECIPES.get(v)
        if recipe is not None:
            for need in recipe.needs:
                names |= {need, *_FAMILIES.get(need, ())}
    return names


def goal_items(view: BottleneckView) -> frozenset[str]:
    """Items its current step uses: named by its plan's current skill call or the next
    step of its goal kind (what it collects or crafts, and that craft's ingredients)."""
    per = view.perception
    step = next_step(view.goals.kind or "gather_wood", per.inventory, per.blocks)
    return frozenset(_names(view.plan.current_skill) | _names(step.call))


def allowance(view: BottleneckView, player: str, item: str, asked: int = 1) -> Allowance:
    """How many ``item`` the agent may give ``player`` now (at most ``asked``)."""
    g = settings(view)
    held = view.perception.inventory.get(item, 0)
    if held <= 0:
        return Allowance(0, f"I have no {item}")
    liking = relationship(view, player)
    per_gift = tier_cap(g, liking)
    if per_gift <= 0:
        return Allowance(0, f"I do not trust {player} enough ({liking:.0f}/10)")
    mine = gifts_to(view, player)
    if mine and view.now - max(at for at, _ in mine) < view.seconds(g.min_gap_s):
        return Allowance(0, f"I gave {player} something a moment ago")
    if len(mine) >= g.gifts_per_player_per_hour:
        return Allowance(0, f"I already helped {player} {len(mine)} times this hour")
    left_player = g.items_per_player_per_hour - sum(n for _, n in mine)
    left_all = g.items_per_hour - sum(n for _, n in gifts_to(view, None))
    share = math.floor(held * g.max_share)
    spare = held - g.goal_reserve if item in goal_items(view) else held
    n = min(max(asked, 1), per_gift, left_player, left_all, share, spare)
    if n > 0:
        return Allowance(n, f"{player} is {liking:.0f}/10 to me; I can spare {n}")
    if left_player <= 0 or left_all <= 0:
        return Allowance(0, "I have given enough this hour")
    if spare < share:
        return Allowance(0, f"I need my {item.replace('_', ' ')} for my goal")
    return Allowance(0, f"I have too few {item.replace('_', ' ')} to spare")


def is_command(text: object) -> bool:
    """A text a server would run as a command (a chat line starting with ``/``)."""
    return isinstance(text, str) and text.lstrip().startswith("/")


def _refuse(out: ControllerOut, player: str | None, item: str | None, why: str) -> ControllerOut:
    say = UtteranceGoal(kind=UtteranceKind.REFUSE, to=player, item=item or "that")
    return out.model_copy(
        update={
            "kind": IntentKind.TALK,
            "intent": "keep working",
            "skill": None,
            "args": {},
            "count": None,
            "say": say if player else None,
            "reason": why,
        }
    )


def bound(view: BottleneckView, out: ControllerOut) -> ControllerOut:
    """``out`` within the gift policy: a give is clamped to :func:`allowance` or refused; a
    promise of a gift without the give is dropped; an utterance that a server would run as a
    command (``/...``) is dropped, a skill argument that would be one refuses the decision.
    Idempotent; the heuristic's output is unchanged."""
    if any(is_command(v) for v in out.args.values()):
        return _refuse(out, out.target, out.item, "that would be a server command")
    said = (out.say.text, out.say.topic, out.say.item, out.say.to) if out.say else ()
    if any(is_command(v) for v in said):
        out = out.model_copy(update={"say": None})  # never say a server command
    if out.skill != "give":
        if out.say is not None and out.say.kind is UtteranceKind.AGREE_GIVE:
            return out.model_copy(update={"say": None})
        return out
    player, item = out.args.get("player"), out.args.get("item")
    raw = out.args.get("count", 1)
    asked = int(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else 1
    if not isinstance(player, str) or not isinstance(item, str) or asked < 1:
        return _refuse(out, out.target, None, "an unclear gift")
    ok = allowance(view, player, item, asked)
    if ok.count <= 0:
        return _refuse(out, player, item, ok.reason)
    if ok.count == asked and out.count == asked:
        return out
    say = out.say
    if say is not None and say.kind is UtteranceKind.AGREE_GIVE:
        say = say.model_copy(update={"count": ok.count, "item": item, "to": player})
    return out.model_copy(
        update={
            "kind": IntentKind.GIVE,
            "intent": f"give {ok.count} {item.replace('_', ' ')} to {player}",
            "args": {**out.args, "count": ok.count},
            "count": ok.count,
            "item": item,
            "target": player,
            "say": say,
            "reason": f"{out.reason} (gift policy: {ok.reason})".strip(),
        }
    )
