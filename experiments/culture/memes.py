"""Memes: topics extracted from each agent's own goal history, counted per agent over time.

The paper has an LLM summarise an agent's goal history into topics. Here that is a policy
(``make_policy``: the LLM with ``prompts/memes.md`` when the run has a model, else the
keyword extractor of ``meme_keywords.txt``), on the experiment's (scoring) side, after the
run: its view is one agent's goals, oldest first, and nothing else.

An agent's memes at time t = the distinct topics of its goals set up to t. A group's figure
per capita = the mean of its members' meme counts (``per_capita``), beside the distinct
memes of the whole group divided by its size (``distinct_per_capita``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent_runtime.llm.brain import brain_of
from agent_runtime.policy import View, make_policy
from agent_runtime.prompts import fenced, prompt_path, untrusted

KEYWORDS_FILE = Path(__file__).resolve().parent / "meme_keywords.txt"
PROMPT = prompt_path("experiments.culture", "memes")
_WORD = re.compile(r"[a-z]+")


def parse_keywords(text: str) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        topic, sep, rest = line.partition(":")
        words = tuple(w.lower() for w in rest.split())
        if not sep or not topic.strip() or not words:
            raise ValueError(f"{KEYWORDS_FILE.name} line {n}: expected 'topic: words...'")
        out[topic.strip().lower()] = words
    return out


@cache
def keywords() -> dict[str, tuple[str, ...]]:
    return parse_keywords(KEYWORDS_FILE.read_text(encoding="utf-8"))


def topics_of(text: str, table: Mapping[str, Sequence[str]] | None = None) -> set[str]:
    """The topics one goal text mentions (keyword extractor)."""
    table = keywords() if table is None else table
    words = _WORD.findall(text.lower())
    return {t for t, kws in table.items() if any(w.startswith(k) for w in words for k in kws)}


class MemeView(View):
    """What the meme extractor sees: one agent's own goals, oldest first."""

    goals: tuple[str, ...]

    def prompt_variables(self) -> dict[str, str]:
        return {"goals": fenced(untrusted(f"{i + 1}. {g}") for i, g in enumerate(self.goals))}


class GoalTopics(BaseModel):
    topics: list[list[str]] = Field(
        description="for each goal, in order, its topics: 1-3 lower-case words each"
    )


def _heuristic(view: MemeView, rng: random.Random) -> GoalTopics:
    return GoalTopics(topics=[sorted(topics_of(g)) for g in view.goals])


def norm_topic(t: str) -> str:
    return " ".join(_WORD.findall(t.lower())[:3])


async def extract(llm: Any, agent: str, goals: Sequence[str]) -> tuple[list[set[str]], str]:
    """Topics per goal of one agent (LLM when the run has one, else keywords) and the brain."""
    if not goals:
        return [], ""
    policy = make_policy("memes", GoalTopics, _heuristic, random.Random(0),
                         brain=brain_of(llm, "memes", agent), prompt=PROMPT,
                         max_tokens=60 + 25 * len(goals), temperature=0.0)
    got = await policy.decide(MemeView(goals=tuple(goals)))
    per = [{norm_topic(t) for t in ts if norm_topic(t)} for ts in got.value.topics]
    if len(per) != len(goals):  # a malformed answer: the keyword extractor for every goal
        got = await make_policy("memes", GoalTopics, _heuristic, random.Random(0)).decide(
            MemeView(goals=tuple(goals)))
        per = [set(ts) for ts in got.value.topics]
    return per, got.brain


def memes_over_time(rows: Iterable[Mapping[str, Any]], agents: Sequence[str],
                    times: Sequence[float]) -> dict[str, list[int]]:
    """Per agent, the number of distinct memes of its goals set up to each time.
    ``rows``: meme rows (agent, t, topic) as in ``memes.csv``."""
    firsts: dict[tuple[str, str], float] = {}
    for r in rows:
        key = (str(r["agent"]), str(r["topic"]))
        t = float(r["t"])
        firsts[key] = min(t, firsts.get(key, t))
    out: dict[str, list[int]] = {}
    for a in agents:
        ts = sorted(t for (ag, _), t in firsts.items() if ag == a)
        out[a] = [sum(1 for x in ts if x <= t) for t in times]
    return out


def group_memes(rows: Iterable[Mapping[str, Any]], members: Mapping[str, Sequence[str]],
                t: float) -> dict[str, dict[str, float]]:
    """Per group (town or rural) at time ``t``: members, mean memes per member, distinct
    memes of the group and those per member."""
    seen: dict[str, set[str]] = {}
    for r in rows:
        if float(r["t"]) <= t:
            seen.setdefault(str(r["agent"]), set()).add(str(r["topic"]))
    out: dict[str, dict[str, float]] = {}
    for g, names in members.items():
        n = len(names)
        per = [len(seen.get(a, set())) for a in names]
        union = set().union(*(seen.get(a, set()) for a in names)) if names else set()
        out[g] = {"members": n, "per_capita": sum(per) / n if n else float("nan"),
                  "distinct": len(union), "distinct_per_capita": len(union) / n if n else
                  float("nan")}
    return out
