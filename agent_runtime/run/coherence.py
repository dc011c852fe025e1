"""Speech/action coherence, measured from the event stream.

An utterance *announces* an action when it says the speaker will do something
("I'll bring you wood", "here is 2 bread", "I'm going to collect logs"). It is
*kept* when the same agent starts a skill of the announced kind within
``window_s`` seconds of speaking (or was already running it: the skill its decision
carried, or the one it started before and had no outcome for yet when it spoke), and a
*contradiction* when, within the window, the agent starts only other skills.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

# words that announce a skill kind -> the skills that fulfil it
ANNOUNCE: dict[str, tuple[str, ...]] = {
    "give": ("give",),
    "here is": ("give",),
    "here's": ("give",),
    "bring": ("give", "go_to"),
    "collect": ("collect",),
    "gather": ("collect",),
    "mine": ("collect",),
    "chop": ("collect",),
    "craft": ("craft",),
    "make": ("craft", "smelt"),
    "smelt": ("smelt",),
    "explore": ("explore",),
    "deposit": ("deposit",),
    "pay": ("deposit",),
    "follow": ("follow",),
    "eat": ("eat",),
    "go to": ("go_to",),
    "come": ("go_to", "follow"),
}
_FUTURE = re.compile(
    r"\b(i'll|i will|i'm going to|i am going to|going to|let me|here is|here's)\b", re.I
)


def announced_skills(text: str) -> set[str]:
    low = text.lower()
    if not _FUTURE.search(low):
        return set()
    out: set[str] = set()
    for word, skills in ANNOUNCE.items():
        if re.search(rf"\b{re.escape(word)}", low):
            out.update(skills)
    return out


@dataclass
class CoherenceTracker:
    """Fed every event record; :meth:`summary` costs O(n log n) in the number of records
    (skill starts and outcomes are kept sorted per agent and each speech looks up its
    window). An agent runs one skill at a time: it runs one at ``t`` when it has more starts
    than outcomes up to ``t``, the latest start's."""

    window_s: float = 30.0
    speeches: list[tuple[str, float, set[str], str | None]] = field(default_factory=list)
    skills: dict[str, list[tuple[float, str]]] = field(default_factory=lambda: defaultdict(list))
    ended: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def __call__(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        agent = record.get("agent")
        if agent is None:
            return
        if kind == "speech":
            ann = announced_skills(str(record.get("text", "")))
            running = (record.get("decision_skill") or {}).get("skill")
            self.speeches.append((agent, float(record["t"]), ann, running))
        elif kind == "skill_started":
            started = (float(record["t"]), str((record.get("call") or {}).get("skill")))
            bisect.insort(self.skills[agent], started)  # appends when records come in order
        elif kind == "skill_outcome":
            bisect.insort(self.ended[agent], float(record["t"]))

    def running(self, agent: str, t: float) -> str | None:
        """The skill ``agent`` was running at ``t`` (started, no outcome yet), if any."""
        times = self.skills.get(agent, [])
        n = bisect.bisect_right(times, (t, "\uffff"))
        if n == 0 or n <= bisect.bisect_right(self.ended.get(agent, []), t):
            return None
        return times[n - 1][1]

    def summary(self) -> dict[str, Any]:
        announcing = kept = contradicted = 0
        for agent, t, ann, decided in self.speeches:
            if not ann:
                continue
            announcing += 1
            times = self.skills.get(agent, [])
            lo = bisect.bisect_left(times, (t - 2.0, ""))
            hi = bisect.bisect_right(times, (t + self.window_s, "\uffff"))
            started = [s for _, s in times[lo:hi]]
            if decided in ann or self.running(agent, t) in ann or any(s in ann for s in started):
                kept += 1
            elif started:
                contradicted += 1
        total = len(self.speeches)
        return {
            "utterances": total,
            "announcing_action": announcing,
            "kept_within_window": kept,
            "contradicted": contradicted,
            "kept_share": round(kept / announcing, 4) if announcing else None,
            "contradiction_share": round(contradicted / announcing, 4) if announcing else None,
            "window_s": self.window_s,
        }
