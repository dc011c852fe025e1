"""Food moved in a chef run, from its events, and the world's check of it.

- the chef's delivered ``give`` skills: success means the server announced that the receiver
  picked the stack up (``bots/body/skills/give.js``), so a successful give is a hand-over
  the world confirmed; these are the food given;
- every agent's own change of food by its own skills (their outcomes' inventory deltas:
  bread crafted from harvested wheat, food eaten or given away; a gain during another skill,
  e.g. a stack handed over while it was collecting, is a pickup, not its own) - in the
  embedded world a hungry character or the chef may harvest wheat and bake bread, so
  inventories alone do not say what was given;
- the requests each character said to the chef (delivered ``speech``, addressed to it).

:func:`unexplained` is what the admin API's inventories at the start and the end leave
unexplained for one agent: ``(end - start) - own change - food received by delivered gives``
(0 when the world agrees with the ledger).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAKES", "Ledger", "read_ledger", "unexplained"]

#: skills whose gain of food is the agent's own making; a gain during any other skill is a
#: pickup (a stack handed over while it was busy: the giver's delivered give counts it)
MAKES = frozenset({"craft", "smelt"})


@dataclass
class Ledger:
    gives: Counter[tuple[str, str]] = field(default_factory=Counter)  # (giver, receiver) -> food
    own: Counter[str] = field(default_factory=Counter)  # agent -> food change by its own skills
    asked: Counter[str] = field(default_factory=Counter)  # character -> requests to the chef
    failed: Counter[str] = field(default_factory=Counter)  # giver -> failed give skills

    def received(self, agent: str, giver: str | None = None) -> int:
        return sum(n for (g, r), n in self.gives.items()
                   if r == agent and (giver is None or g == giver))

    def given(self, giver: str) -> int:
        return sum(n for (g, _), n in self.gives.items() if g == giver)


def read_ledger(events: Iterable[Mapping[str, Any]], chef: str, food: Iterable[str],
                names: Iterable[str]) -> Ledger:
    from modules.heuristics.asked import is_request

    food, names = set(food), set(names)
    led = Ledger()
    for e in events:
        agent, call = str(e.get("agent", "")), e.get("call") or {}
        if e.get("type") == "skill_outcome":
            delta = e.get("delta") or {}
            change = sum(int(v) for k, v in delta.items() if k in food)
            makes = call.get("skill") in MAKES
            led.own[agent] += sum(int(v) for k, v in delta.items()
                                  if k in food and (v < 0 or makes))
            if call.get("skill") == "give":
                args = call.get("args", {})
                if not e.get("success"):
                    led.failed[agent] += 1
                    continue
                n = -change if delta else int(args.get("count", 1)) * (args.get("item") in food)
                if not delta:  # a body that reports no delta: the give still left its hands
                    led.own[agent] -= n
                led.gives[(agent, str(args.get("player", "")))] += n
        elif (e.get("type") == "speech" and e.get("delivered") and agent in names
              and e.get("to") == chef and is_request(str(e.get("text", "")))):
            led.asked[agent] += 1
    return led


def unexplained(agent: str, start: Mapping[str, int], end: Mapping[str, int],
                led: Ledger) -> int:
    """Food the inventories show for ``agent`` that neither its own skills nor delivered
    gives explain (0 = the world agrees with the ledger)."""
    return (end.get(agent, 0) - start.get(agent, 0)) - led.own[agent] - led.received(agent)
