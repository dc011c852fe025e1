"""Role inference from rolling windows of an agent's latest social goals.

The paper asks an LLM to name the role behind the last 5 social goals. The
heuristic classifier (no LLM) maps each goal to the runtime's activity kinds
(:func:`modules.goal_generation.classify_activity`) and takes the role of the most
frequent kind in the window (ties go to the most recent goal).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from agent_runtime.llm.brain import brain_of
from agent_runtime.policy import View, make_policy
from agent_runtime.prompts import fenced, prompt_path, untrusted
from modules.goal_generation import classify_activity
from modules.knowledge import ACTIVITIES

PROMPT = prompt_path("experiments.specialization", "role")


class RoleView(View):
    """What the (post hoc, experiment-side) role labeller sees: one window of goals."""

    name: str
    community_goal: str
    goals: tuple[str, ...]

    def prompt_variables(self) -> dict[str, str]:
        return {
            "name": self.name,
            "community_goal": self.community_goal,
            "goals": fenced(untrusted(f"{i + 1}. {g}") for i, g in enumerate(self.goals)),
        }


class RoleOut(BaseModel):
    role: str = Field(max_length=40, description="one or two lower-case words")
    reason: str = Field(default="", max_length=200)


def role_of_goal(goal: str) -> str:
    return ACTIVITIES[classify_activity(goal)][1]


def heuristic_role(goals: Sequence[str]) -> str:
    """The role of the most frequent activity in the window; ties -> the most recent goal."""
    if not goals:
        return ""
    roles = [role_of_goal(g) for g in goals]
    counts = Counter(roles)
    top = max(counts.values())
    for r in reversed(roles):
        if counts[r] == top:
            return r
    return roles[-1]  # pragma: no cover - unreachable


def _heuristic_role_out(view: RoleView, rng: random.Random) -> RoleOut:
    return RoleOut(role=heuristic_role(view.goals), reason="most frequent activity")


ARTICLES = frozenset({"a", "an", "the"})


def normalise_role(text: str) -> str:
    """The merge rule for role labels (README): lower case; anything but letters is a space;
    articles dropped; a plural word made singular (a final ``s`` after a consonant other than
    ``s``, for words of 4+ letters: ``farmers`` -> ``farmer``); the first two words kept. So
    "The Farmers!" and "farmer" are one role; "head miner" and "miner" stay two."""
    words = "".join(ch if ch.isalpha() or ch == " " else " " for ch in text.lower()).split()
    words = [_singular(w) for w in words if w not in ARTICLES]
    return " ".join(words[:2]) or "unknown"


def _singular(word: str) -> str:
    if len(word) >= 4 and word.endswith("s") and word[-2] not in "aeiouys":
        return word[:-1]
    return word


class RoleClassifier:
    """Cached window -> role; ``llm`` is the run's LLMService (or None for the heuristic)."""

    def __init__(self, llm: Any, community_goal: str, *, use_llm: bool = True) -> None:
        self.llm = llm if use_llm else None
        self.community_goal = community_goal
        self._cache: dict[tuple[str, ...], tuple[str, str]] = {}
        self.calls = 0

    async def classify(self, name: str, goals: Sequence[str]) -> tuple[str, str]:
        """(role, brain) for a window of goals (oldest first)."""
        key = tuple(goals)
        if not key:
            return "", ""
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        self.calls += 1
        policy = make_policy(
            "role_inference", RoleOut, _heuristic_role_out, random.Random(0),
            brain=brain_of(self.llm, "role_inference", name), prompt=PROMPT, max_tokens=80,
            temperature=0.0,
        )
        d = await policy.decide(RoleView(name=name, community_goal=self.community_goal, goals=key))
        out, brain = d.value, d.brain
        result = (normalise_role(out.role), brain)
        self._cache[key] = result
        return result
