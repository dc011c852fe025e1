"""An agent's stance towards a topic, read from the *content* of lines it heard or read.

``stance_of(lines, topic)`` scores each line with the weighted cue phrases of a lexicon
and returns a value in [-1, 1] (+1 = for, -1 = against). The lexicon is either a topic the
village handed its agents (:class:`agent_runtime.config.topics.Topic`, an experiment's
words: the agent's own Identity), or one of the modules' own personality lexicons
(``lexicons/<name>_stance.txt``: talkative, warmth). Who said a line never enters: the
function gets text only.

Scoring, in full:
- a line is tokenised into lower-case words; cue phrases are matched on whole words,
  longest first, without overlap;
- a negation word within the three words before a cue flips the cue's sign;
- a line's score is the sum of its cues, clipped to [-1, 1]; lines without a cue, or
  that do not mention the topic (the lexicon's ``@topic`` words), do not count;
- the stance is ``sum(line scores) / (n + 1)``: evidence-weighted, so one line moves it
  less than many agreeing lines, and no lines give 0.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from agent_runtime.config.topics import Topic, parse_lexicon, words

__all__ = ["Lexicon", "lexicon", "lexicon_of", "line_score", "stance_of", "words"]

NEGATIONS = frozenset(
    {
        "not", "no", "never", "don't", "dont", "doesn't", "isn't", "aren't", "won't",
        "wouldn't", "shouldn't", "can't", "cannot", "nobody", "nothing", "hardly",
        "stop", "without",
    }
)  # fmt: skip
NEGATION_WINDOW = 3


@dataclass(frozen=True, slots=True)
class Lexicon:
    topic: str
    topic_words: frozenset[str]
    cues: tuple[tuple[tuple[str, ...], float], ...]  # longest phrase first


def lexicon_path(name: str) -> Path:
    return Path(
        str(
            resources.files("modules.heuristics")
            .joinpath("lexicons")
            .joinpath(f"{name}_stance.txt")
        )
    )


@functools.cache
def lexicon(name: str) -> Lexicon:
    """One of the modules' own lexicons (``lexicons/<name>_stance.txt``)."""
    path = lexicon_path(name)
    mentions, cues = parse_lexicon(path.read_text("utf-8"), path.name)
    return Lexicon(name, frozenset(mentions), tuple((c.phrase, c.weight) for c in cues))


@functools.lru_cache(maxsize=64)
def lexicon_of(topic: Topic) -> Lexicon:
    """The stance lexicon of a topic the village handed its agents."""
    cues = tuple(sorted(((c.phrase, c.weight) for c in topic.cues), key=lambda c: -len(c[0])))
    return Lexicon(topic.name, frozenset(topic.mentions), cues)


def _negated(tokens: Sequence[str], start: int) -> bool:
    return any(t in NEGATIONS for t in tokens[max(0, start - NEGATION_WINDOW) : start])


def line_score(line: str, lex: Lexicon) -> float | None:
    """The line's clipped cue sum, or None when it is off topic or carries no cue."""
    return _line_score(line, lex)


@functools.lru_cache(maxsize=8192)  # the same conversation lines are scored step after step
def _line_score(line: str, lex: Lexicon) -> float | None:
    tokens = words(line)
    if lex.topic_words and not lex.topic_words.intersection(tokens):
        return None
    used = [False] * len(tokens)
    total, hits = 0.0, 0
    for phrase, weight in lex.cues:
        k = len(phrase)
        for i in range(len(tokens) - k + 1):
            if tuple(tokens[i : i + k]) != phrase or any(used[i : i + k]):
                continue
            for j in range(i, i + k):
                used[j] = True
            total += -weight if _negated(tokens, i) else weight
            hits += 1
    if hits == 0:
        return None
    return max(-1.0, min(1.0, total))


def stance_of(lines: Sequence[str], topic: Topic | str) -> float:
    """Stance in [-1, 1] from the content of ``lines`` (0 when nothing on topic was said):
    towards a village's ``topic``, or by the modules' own lexicon of that name."""
    lex = lexicon(topic) if isinstance(topic, str) else lexicon_of(topic)
    scores = [s for s in (line_score(line, lex) for line in lines) if s is not None]
    if not scores:
        return 0.0
    return max(-1.0, min(1.0, sum(scores) / (len(scores) + 1)))
