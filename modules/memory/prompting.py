"""How the memory package renders its prompts (``modules/memory/prompts/<name>.md``).

The files use the project's one prompt format and loader (:mod:`agent_runtime.prompts`).
Anything that came from other players or from the world reaches a prompt only through
:func:`agent_runtime.prompts.untrusted` (re-exported here as ``quote_untrusted``), inside a
fenced data block that the prompt declares to be data, not instructions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_runtime import prompts
from agent_runtime.prompts import FENCE_CLOSE, FENCE_OPEN
from agent_runtime.prompts import untrusted as quote_untrusted
from modules.memory.records import MemoryRecord

__all__ = [
    "FENCE_CLOSE",
    "FENCE_OPEN",
    "RenderedPrompt",
    "format_hours",
    "numbered_distinct_memories",
    "numbered_memories",
    "quote_untrusted",
    "render_agent_prompt",
    "render_prompt",
]


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    name: str
    system: str
    user: str


def render_prompt(name: str, **values: object) -> RenderedPrompt:
    """Render both parts of prompt ``name``; every ``$placeholder`` must be given."""
    system, user = prompts.render(prompts.prompt_path("modules.memory", name), values)
    return RenderedPrompt(name, system.content, user.content)


def render_agent_prompt(name: str, agent: str, identity: str, **values: object) -> RenderedPrompt:
    """:func:`render_prompt` for one agent, told who it is (a blank identity says so)."""
    return render_prompt(
        name, agent=agent, identity=identity.strip() or "(no description)", **values
    )


def format_hours(hours: float) -> str:
    """Game hours since the start of the run -> ``day D, HH:MM``."""
    minutes = round(max(0.0, hours) * 60)
    day, rem = divmod(minutes, 24 * 60)
    h, m = divmod(rem, 60)
    return f"day {day + 1}, {h:02d}:{m:02d}"


def numbered_memories(records: Sequence[MemoryRecord]) -> str:
    """A fenced, 1-based numbered list of records, texts quoted as untrusted data."""
    lines = [FENCE_OPEN]
    for i, r in enumerate(records, start=1):
        lines.append(
            f"{i}. [{r.kind}, {format_hours(r.created)}, importance {r.importance}] "
            f"{quote_untrusted(r.text)}"
        )
    lines.append(FENCE_CLOSE)
    return "\n".join(lines)


def numbered_distinct_memories(records: Sequence[MemoryRecord]) -> str:
    """:func:`numbered_memories` with each kind and text once, where it last happened, the
    times it repeated said beside it (for a prompt that cites no numbers: the reflection
    questions): the ~100 records a reflection asks about hold about half as many distinct
    texts ("I tried to collect(block=stone,
    count=4): collect succeeded (+4 cobblestone)." again and again)."""
    last: dict[tuple[str, str], MemoryRecord] = {}
    first: dict[tuple[str, str], MemoryRecord] = {}
    count: dict[tuple[str, str], int] = {}
    for r in records:
        key = (r.kind, r.text)
        first.setdefault(key, r)
        last.pop(key, None)  # re-inserted: the order is that of each text's last time
        last[key] = r
        count[key] = count.get(key, 0) + 1
    lines = [FENCE_OPEN]
    for i, r in enumerate(last.values(), start=1):
        n, at = count[(r.kind, r.text)], first[(r.kind, r.text)].created
        since = f", {n} times since {format_hours(at)[-5:]}" if n > 1 else ""
        lines.append(
            f"{i}. [{r.kind}, {format_hours(r.created)}, importance {r.importance}{since}] "
            f"{quote_untrusted(r.text)}"
        )
    lines.append(FENCE_CLOSE)
    return "\n".join(lines)
