"""The agent's reading of deposit requests and rules in what it heard or read.

Tolerant to wording: nothing here knows an experiment; it reads percentages, chest
positions and whether a request is open or closed from plain text, e.g.

- "Every member deposits 20% of their inventory into the community chests during each
  season."                                       -> a rule, rate 0.2
- "Season 3 is open for 20 seconds: deposit 20% of your inventory into the community
  chests at (12, 64, -3) and (14, 64, -3)."      -> open, rate 0.2, two chests, 20 s
- "Season 3 is closed."                          -> a close only with a topic's word

Plain English about giving and depositing makes a line a request; the words of a topic
its village talks about (``Topic.request_words``, e.g. an experiment's "tax", handed to
the agent in its Identity) do too, so that "Tax season 3 is closed." closes a request.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

__all__ = ["DepositRequest", "RequestState", "read_positions", "read_rate", "read_request"]

NUMBER_WORDS = {
    "five": 5, "ten": 10, "fifteen": 15, "twenty": 20, "twenty-five": 25, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "one hundred": 100,
}  # fmt: skip
FRACTIONS = {"half": 0.5, "a third": 1 / 3, "a quarter": 0.25, "a fifth": 0.2, "a tenth": 0.1}

_PERCENT = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:%|per\s*cent\b|percent\b)|\b("
    + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
    + r")\s+(?:per\s*cent|percent)\b",
    re.I,
)
_FRACTION = re.compile(
    r"\b(" + "|".join(FRACTIONS) + r")\s+of\s+(?:your|their|our|my|the|his|her)\b", re.I
)
_POSITION = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")
_XYZ = re.compile(r"\bx\s*[=:]\s*(-?\d+)[\s,]+y\s*[=:]\s*(-?\d+)[\s,]+z\s*[=:]\s*(-?\d+)", re.I)
_WINDOW = re.compile(r"\bfor\s+(\d+(?:\.\d+)?)\s*(seconds?|secs?|s|minutes?|mins?)\b", re.I)
_SEASON = re.compile(r"\bseason\s+(\d+)\b", re.I)
_DEPOSIT = re.compile(r"\b(deposit\w*|pay\w*|contribut\w*|put|give)\b", re.I)
_OPEN = re.compile(
    r"\b(is|now)\s+open\b|\bopens?\b|\bhas\s+(?:opened|begun|started)\b|\bbegins?\b|\bstarts?\b",
    re.I,
)
_CLOSED = re.compile(
    r"\b(is|now)\s+(?:closed|over)\b|\bcloses?\b|\bhas\s+(?:closed|ended)\b|\bends?\b", re.I
)
_RULE = re.compile(
    r"\bevery\s+(?:member|citizen|one|resident|villager)|\beach\s+(?:\w+\s+)?season\b", re.I
)


class RequestState(StrEnum):
    RULE = "rule"  # a standing rule (constitution): what to do when a season opens
    OPEN = "open"  # deposit now
    CLOSED = "closed"  # no longer


class DepositRequest(BaseModel):
    """What a line asks: its state, the share, where, and for how long (as read)."""

    model_config = ConfigDict(frozen=True)

    state: RequestState
    rate: float | None = None
    chests: tuple[tuple[int, int, int], ...] = ()
    window_s: float | None = None
    season: int | None = None


def read_rate(text: str) -> float | None:
    """The first share asked for in ``text`` as a fraction ("20%" -> 0.2), or None."""
    m = _PERCENT.search(text)
    if m:
        value = float(m.group(1)) if m.group(1) else float(NUMBER_WORDS[m.group(2).lower()])
        return max(0.0, min(1.0, value / 100.0))
    f = _FRACTION.search(text)
    if f:
        return FRACTIONS[f.group(1).lower()]
    return None


def read_positions(text: str) -> tuple[tuple[int, int, int], ...]:
    found = [*_POSITION.findall(text), *_XYZ.findall(text)]
    return tuple((int(x), int(y), int(z)) for x, y, z in found)


def _window(text: str) -> float | None:
    m = _WINDOW.search(text)
    if not m:
        return None
    value = float(m.group(1))
    return value * 60.0 if m.group(2).lower().startswith("m") else value


@functools.lru_cache(maxsize=32)
def _asking(words: tuple[str, ...]) -> re.Pattern[str] | None:
    if not words:
        return None
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\w*\b", re.I)


def read_request(text: str, words: Sequence[str] = ()) -> DepositRequest | None:
    """The deposit request or rule in ``text``, or None when it asks for no deposit;
    ``words``: a topic's request words (``Topic.request_words``) that also make it one."""
    extra = _asking(tuple(words))
    if not _DEPOSIT.search(text) and (extra is None or not extra.search(text)):
        return None
    season = _SEASON.search(text)
    common = {
        "rate": read_rate(text),
        "chests": read_positions(text),
        "window_s": _window(text),
        "season": int(season.group(1)) if season else None,
    }
    if _CLOSED.search(text) and not _OPEN.search(text):
        return DepositRequest(state=RequestState.CLOSED, **common)
    if _OPEN.search(text) and (common["rate"] is not None or common["chests"] or season):
        return DepositRequest(state=RequestState.OPEN, **common)
    if _RULE.search(text) and common["rate"] is not None:
        return DepositRequest(state=RequestState.RULE, **common)
    return None
