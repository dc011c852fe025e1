"""A topic the village talks about: its words, handed to every agent as data.

An experiment owns its vocabulary (the tax experiment's "tax", the culture experiment's
faith); the modules know none of it. A village lists its topics (``topics:`` in the village
file, each a topic file or the topic inline) and every agent gets them in its Identity, like
the community goal: the stance lexicon that says whether a line is on the topic and for or
against it, the opinion lines the heuristic talker may say, and the words that make a line
a request about it. A plain village names no topic.

A topic file (YAML, e.g. ``experiments/tax/topics/tax.yaml``)::

    name: tax
    lexicon: tax_stance.txt     # next to the topic file: "@topic" words and weighted cues
    say_for: [...]              # opinion lines for it, strongest first
    say_against: [...]
    request_words: [tax]        # a line with one of these words can be a request about it
    memorable: [tax, taxes]     # a memory with one of these words (or phrases) matters ...
    importance: 7               # ... at least this much (1-10; the heuristic rater's scale)

The lexicon format (one cue a line, ``<weight> <phrase>``; ``@topic`` lines list the words
that put a line on the topic; ``#`` comments) is read by :func:`parse_lexicon`, the same
reader as the modules' own personality lexicons. Topic files are read by
:func:`agent_runtime.config.loader.load_topic`.
"""

from __future__ import annotations

import re

from pydantic import Field

from agent_runtime.config.strict import Strict

__all__ = ["Cue", "Topic", "TopicFile", "parse_lexicon", "words"]

_WORD = re.compile(r"[a-z0-9']+")
NAME = r"^[a-z][a-z0-9_]{0,31}$"


def words(text: str) -> list[str]:
    """Lower-case whole words of ``text`` (the tokeniser of lexicons and lines)."""
    return _WORD.findall(text.lower().replace("\u2019", "'"))


class Cue(Strict):
    phrase: tuple[str, ...] = Field(min_length=1)  # whole words, lower case
    weight: float = Field(ge=-10, le=10)  # > 0 for the topic, < 0 against it


class Topic(Strict):
    """One topic as every agent of the village gets it (hashable: the stance cache keys on it)."""

    name: str = Field(pattern=NAME)
    mentions: tuple[str, ...] = ()  # a line counts for the stance only with one of these
    cues: tuple[Cue, ...] = Field(min_length=1)  # longest phrase first
    say_for: tuple[str, ...] = ()
    say_against: tuple[str, ...] = ()
    request_words: tuple[str, ...] = ()
    memorable: tuple[str, ...] = ()  # words or phrases that make a memory about the topic
    importance: int = Field(default=6, ge=1, le=10)  # ... matter at least this much


class TopicFile(Strict):
    """A topic file as written: the lexicon in its own text file next to it."""

    name: str = Field(pattern=NAME)
    lexicon: str = Field(min_length=1)
    say_for: tuple[str, ...] = ()
    say_against: tuple[str, ...] = ()
    request_words: tuple[str, ...] = ()
    memorable: tuple[str, ...] = ()
    importance: int = Field(default=6, ge=1, le=10)


def parse_lexicon(text: str, file: str) -> tuple[tuple[str, ...], tuple[Cue, ...]]:
    """(mention words, cues longest first) of a lexicon text; ValueError names ``file``'s line."""
    mentions: list[str] = []
    cues: list[Cue] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@topic"):
            mentions += [w for w in words(line.removeprefix("@topic")) if w not in mentions]
            continue
        weight, _, phrase = line.partition(" ")
        try:
            w = float(weight)
        except ValueError as e:
            raise ValueError(f"{file} line {n}: weight {weight!r} is not a number") from e
        ws = tuple(words(phrase))
        if not ws:
            raise ValueError(f"{file} line {n}: empty phrase")
        cues.append(Cue(phrase=ws, weight=w))
    cues.sort(key=lambda c: -len(c.phrase))
    return tuple(mentions), tuple(cues)
