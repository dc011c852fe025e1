"""Prompt files of the memory package and how they are rendered.

Prompt wording lives in ``modules/memory/prompts/<name>.md``. A file holds a
system part and a user part, each introduced by a marker line::

    <!-- system -->
    ...
    <!-- user -->
    ...

Both parts are :class:`string.Template` texts (``$name`` placeholders; ``$$``
is a literal dollar). A missing variable raises ``KeyError``. Files are read
on first use, never at import time.

Anything that came from other players (chat) or from the world is untrusted:
it is shown to the model only through :func:`quote_untrusted` inside a fenced
data block that the prompt declares to be data, not instructions.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from string import Template

from modules.memory.records import MemoryRecord

__all__ = [
    "Prompt",
    "RenderedPrompt",
    "format_hours",
    "load_prompt",
    "numbered_memories",
    "quote_untrusted",
    "render_prompt",
]

log = logging.getLogger(__name__)

_MARKER = re.compile(r"^<!--\s*(system|user)\s*-->\s*$", re.MULTILINE)
#: Fence used around untrusted data blocks in our prompts.
FENCE_OPEN = "<<<DATA"
FENCE_CLOSE = "DATA>>>"


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    system: Template
    user: Template


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    name: str
    system: str
    user: str


@functools.lru_cache(maxsize=32)
def load_prompt(name: str) -> Prompt:
    """Read and parse ``prompts/<name>.md`` (cached)."""
    path = resources.files("modules.memory").joinpath("prompts", f"{name}.md")
    text = path.read_text(encoding="utf-8")
    parts: dict[str, str] = {}
    matches = list(_MARKER.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        parts[m.group(1)] = text[m.end() : end].strip("\n")
    if set(parts) != {"system", "user"}:
        raise ValueError(f"prompt {name!r} needs '<!-- system -->' and '<!-- user -->' parts")
    return Prompt(name, Template(parts["system"]), Template(parts["user"]))


def render_prompt(name: str, **values: object) -> RenderedPrompt:
    """Render both parts of prompt ``name``; every ``$placeholder`` must be given."""
    prompt = load_prompt(name)
    strs = {k: str(v) for k, v in values.items()}
    return RenderedPrompt(name, prompt.system.substitute(strs), prompt.user.substitute(strs))


def quote_untrusted(text: str, limit: int = 600) -> str:
    """One-line JSON string of ``text``: newlines escaped, fences neutralised, length capped."""
    clean = text.replace("<<<", "< < <").replace(">>>", "> > >")
    if len(clean) > limit:
        clean = clean[: limit - 1] + "…"
    return json.dumps(clean, ensure_ascii=False)


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
