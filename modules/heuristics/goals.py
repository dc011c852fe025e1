"""Goal generation's heuristic policy: a goal from the agent's own traits, skills and
belongings, what it sees, and the needs it perceives in the village.

Each activity kind the agent may choose gets a weight, from its own state only:

- fit with its own traits and community goal (``KEYWORDS`` words in its own text), and
  its vocation: the activity whose role its own traits name ("You are an explorer") weighs
  :data:`VOCATION` times more, so what it happens to hold does not outweigh who it is;
- what it can already do: tools and materials in its inventory (``SUPPLIES``);
- what it sees: blocks in sight that the activity works on (``WORKS_ON``);
- needs it heard: lines of others asking for something the activity provides
  (``PROVIDES``; e.g. "does anyone have bread?" favours farming);
- division of labour: when its social awareness knows what others are doing, kinds few
  others do are favoured (with social awareness off it knows nothing of that, so the
  choice can differ);
- one whose own traits say it works alone and who perceives nobody has nobody to guard,
  talk or trade with: those activities get no weight.

A current goal is kept until it is reached (its inventory criterion, or, for an open-ended
activity, ``GOAL_SPAN_S`` of pursuit), or until others are heard asking for what another
activity provides (:func:`revise_reason`).
"""

from __future__ import annotations

import random
import re
from collections import Counter

from pydantic import BaseModel, Field

from modules.knowledge import ACTIVITIES, KEYWORDS, LOGS, count_of, counts_as
from modules.views import GoalView

__all__ = ["GoalOut", "choose_goal", "classify_activity", "goal_done", "goal_text", "weights"]

GOAL_SPAN_S = 180.0  # an open-ended goal is reconsidered after this long (agent's time)
VOCATION = 3.0  # weight factor of the activity whose role its own traits name
MEASURED = frozenset({"gather_wood", "mine", "farm", "craft_tools", "smelt"})  # see goal_done

#: activity -> items in the inventory that show the agent can do it
SUPPLIES: dict[str, tuple[str, ...]] = {
    "gather_wood": ("wooden_axe", "stone_axe"),
    "mine": ("wooden_pickaxe", "stone_pickaxe", "iron_pickaxe"),
    "farm": ("wheat_seeds", "wheat", "bread"),
    "craft_tools": ("crafting_table", "stick", "oak_planks", "birch_planks", "spruce_planks"),
    "smelt": ("furnace", *counts_as("iron_ore"), "coal"),
    "build": ("cobblestone", "oak_planks"),
    "guard": ("wooden_sword", "stone_sword", "iron_sword"),
    "trade": ("bread", "iron_ingot"),
}
#: activity -> blocks in sight it works on
WORKS_ON: dict[str, tuple[str, ...]] = {
    "gather_wood": LOGS,
    "mine": ("stone", "coal_ore", "iron_ore"),
    "farm": ("wheat", "farmland", "carrots", "potatoes"),
    "smelt": ("furnace", "iron_ore"),
    "craft_tools": ("crafting_table",),
}
#: words of a heard request -> activities that provide it
PROVIDES: dict[str, tuple[str, ...]] = {
    "wood": ("gather_wood",),
    "log": ("gather_wood",),
    "planks": ("gather_wood",),
    "stone": ("mine",),
    "cobblestone": ("mine",),
    "coal": ("mine",),
    "iron": ("smelt", "mine"),
    "bread": ("farm",),
    "food": ("farm",),
    "wheat": ("farm",),
    "hungry": ("farm",),
    "pickaxe": ("craft_tools",),
    "tool": ("craft_tools",),
    "tools": ("craft_tools",),
    "axe": ("craft_tools",),
    "sword": ("craft_tools", "guard"),
    "help": ("trade",),
    "danger": ("guard",),
    "zombie": ("guard",),
}
#: activities that work on something that must be in sight (or in hand) first
NEEDS_SIGHT = frozenset({"farm", "smelt"})
#: activities done with or for other people
WITH_OTHERS = frozenset({"guard", "socialize", "trade"})
#: words of one's own traits that say one works alone
SOLITARY = frozenset({"alone", "solitary", "loner", "independent"})
_ASKING = re.compile(
    r"\b(need|needs|want|give|bring|share|spare|lend|anyone|does anyone|who has|short of|"
    r"out of|looking for|hungry)\b",
    re.I,
)
_WORD = re.compile(r"[a-z]+")


class GoalOut(BaseModel):
    goal: str = Field(max_length=200, description="your social goal, one sentence")
    kind: str = Field(description="closest activity: " + ", ".join(ACTIVITIES))
    keep_current: bool = False
    reason: str = Field(default="", max_length=200)


def classify_activity(text: str) -> str:
    """Map free text (a goal or someone's activity) to an activity kind."""
    low = text.lower()
    best, score = "socialize", 0
    for kind, words in KEYWORDS.items():
        s = sum(1 for w in words if w in low)
        if kind.replace("_", " ") in low:
            s += 3
        if s > score:
            best, score = kind, s
    for kind, (desc, role) in ACTIVITIES.items():
        if desc in low or role in low:
            return kind
    return best


def _wood(inv: dict[str, int]) -> int:
    """Logs held, counting those made into planks (4 planks a log)."""
    return count_of(inv, "log") + count_of(inv, "planks") // 4


def goal_done(kind: str, inv: dict[str, int], started_inv: dict[str, int]) -> bool:
    gained = {k: inv.get(k, 0) - started_inv.get(k, 0) for k in inv}
    if kind == "gather_wood":
        return _wood(inv) - _wood(started_inv) >= 16
    if kind == "mine":
        # iron ore drops itself up to 1.16 and raw iron from 1.17
        iron = sum(gained.get(k, 0) for k in counts_as("iron_ore"))
        return gained.get("cobblestone", 0) >= 16 or iron >= 3
    if kind == "farm":
        return gained.get("wheat", 0) + gained.get("bread", 0) >= 6
    if kind == "craft_tools":
        return inv.get("stone_pickaxe", 0) > 0 and inv.get("furnace", 0) > 0
    if kind == "smelt":
        return gained.get("iron_ingot", 0) >= 3
    return False


def heard_needs(lines: tuple[str, ...]) -> Counter[str]:
    """Activities that would answer what others asked for in ``lines``."""
    needs: Counter[str] = Counter()
    for line in lines:
        if not _ASKING.search(line):
            continue
        for w in set(_WORD.findall(line.lower())):
            for kind in PROVIDES.get(w, ()):
                needs[kind] += 1
    return needs


def _fit(kind: str, own: set[str]) -> int:
    """How many of the activity's cue words the agent's own traits and goal contain."""
    return sum(1 for cue in KEYWORDS.get(kind, ()) if any(t.startswith(cue) for t in own))


def _solitary(view: GoalView) -> bool:
    """Its own traits say it works alone."""
    return bool(set(_WORD.findall(" ".join(view.traits).lower())) & SOLITARY)


def vocation(traits: tuple[str, ...]) -> str | None:
    """The activity whose role its own traits name ("You are an explorer"), if any."""
    words = set(_WORD.findall(" ".join(traits).lower()))
    return next((k for k, (_, role) in ACTIVITIES.items() if role in words), None)


def weights(view: GoalView, kinds: list[str]) -> dict[str, float]:
    own = set(_WORD.findall((view.community_goal + " " + " ".join(view.traits)).lower()))
    calling = vocation(view.traits)
    needs = heard_needs(view.heard)
    others = Counter(classify_activity(a) for a in view.others.values())
    total_others = sum(others.values())
    fits = {k: _fit(k, own) for k in kinds}
    has_fit = max(fits.values(), default=0) > 0
    alone = _solitary(view) and not view.others and not view.heard
    out: dict[str, float] = {}
    for k in kinds:
        supplies = sum(1 for item in SUPPLIES.get(k, ()) if view.inventory.get(item, 0) > 0)
        sights = sum(1 for block in WORKS_ON.get(k, ()) if block in view.seen)
        w = 1.0 + 2.0 * fits[k] + 1.0 * supplies + 0.5 * sights + 2.0 * min(3, needs.get(k, 0))
        if k in NEEDS_SIGHT and not sights and not supplies and not needs.get(k):
            w *= 0.2  # nothing to work on in sight (e.g. no farm anywhere it has been)
        if has_fit and not fits[k] and not supplies and not sights and not needs.get(k):
            w *= 0.15  # not who it is, and nothing it perceives calls for it
        if alone and k in WITH_OTHERS and len(set(kinds) - WITH_OTHERS) > 0:
            out[k] = 0.0  # one who works alone and perceives nobody: nobody to do it with
            continue
        if k == calling:
            w *= VOCATION  # what its own traits say it is, over what it happens to hold
        if total_others:
            w *= 1.5 - others.get(k, 0) / total_others  # favour what few others do
        if k == view.kind and k != calling and len(kinds) > 1:
            w *= 0.5  # a finished goal is less attractive right away (not its vocation)
        out[k] = max(0.05, w)
    return out


def goal_text(kind: str, has_community: bool) -> str:
    desc = ACTIVITIES[kind][0]
    if not has_community:  # a lone agent works for itself, not for a village it lacks
        desc = desc.replace(" for the village", "").replace(" the village", " my camp")
        desc = desc.replace("villagers", "anyone I meet")
    return desc[0].upper() + desc[1:]


def revise_reason(view: GoalView) -> str | None:
    """Why the current goal should be reconsidered now, from what the agent perceives."""
    if not view.current:
        return "no goal yet"
    if goal_done(view.kind, view.inventory, view.inventory_at_goal):
        return "goal reached"
    age = view.now - view.set_at
    span = GOAL_SPAN_S * view.time_scale
    if age > span * (3.0 if view.kind in MEASURED else 1.0):
        return "pursued long enough"
    needs = heard_needs(view.heard)
    if age > span / 3.0 and needs and view.kind not in needs and max(needs.values()) >= 2:
        return "others need something else"
    return None


def choose_goal(view: GoalView, rng: random.Random) -> GoalOut:
    """The heuristic goal-generation policy: ``(view, rng) -> GoalOut``."""
    revise = revise_reason(view)
    if revise is None:
        return GoalOut(goal=view.current, kind=view.kind, keep_current=True, reason="not done yet")
    kinds = list(view.kinds) or list(ACTIVITIES)
    w = weights(view, kinds)
    kind = rng.choices(kinds, weights=[w[k] for k in kinds], k=1)[0]
    why = [revise, "fits who I am and what I have"]
    if heard_needs(view.heard).get(kind):
        why.append("others asked for what it provides")
    if view.others:
        why.append("few others are doing it" if w[kind] > 1 else "it is needed")
    return GoalOut(
        goal=goal_text(kind, bool(view.community_goal) and not _solitary(view)),
        kind=kind,
        reason="; ".join(why),
    )
