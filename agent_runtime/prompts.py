"""The one prompt-file format and loader, and the one quoter of untrusted text.

Every prompt of the project is a Markdown file in a ``prompts/`` folder next to the code
that uses it, loaded by path and never at import time. The format::

    system text with $variables
    === user ===
    user text with $variables

A file without the ``=== user ===`` line is a single text (a snippet such as the LLM
layer's repair turn). Variables are :class:`string.Template` placeholders (``$$`` is a
literal dollar); every placeholder must be supplied, a missing one raises ``KeyError``.

Anything that came from other players or the world (chat, names, signs, memories of
them) reaches a prompt only through :func:`untrusted`, which neutralises the fence
markers :data:`FENCE_OPEN` / :data:`FENCE_CLOSE` that prompts use around data blocks,
collapses it to one line and caps its length. :func:`fenced` wraps such lines in a block.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from agent_runtime.interfaces import Message

__all__ = [
    "FENCE_CLOSE",
    "FENCE_OPEN",
    "SEPARATOR",
    "PromptFile",
    "available",
    "fenced",
    "load",
    "prompt_path",
    "render",
    "render_text",
    "untrusted",
]

SEPARATOR = "=== user ==="
FENCE_OPEN = "<<<DATA"
FENCE_CLOSE = "DATA>>>"


@dataclass(frozen=True, slots=True)
class PromptFile:
    path: Path
    system: Template
    user: Template | None  # None for single-text snippets


def prompt_path(package: str, name: str) -> Path:
    """``<package folder>/prompts/<name>.md``, e.g. ``prompt_path("modules", "talking")``."""
    return Path(str(resources.files(package).joinpath("prompts", f"{name}.md")))


@functools.cache
def load(path: Path) -> PromptFile:
    text = path.read_text("utf-8")
    if SEPARATOR in text:
        system, user = text.split(SEPARATOR, 1)
        return PromptFile(path, Template(system.strip()), Template(user.strip()))
    return PromptFile(path, Template(text.strip()), None)


def _strs(variables: Mapping[str, object]) -> dict[str, str]:
    return {k: str(v) for k, v in variables.items()}


def render(path: Path, variables: Mapping[str, object]) -> tuple[Message, ...]:
    """System and user messages of a two-part prompt file."""
    p = load(path)
    if p.user is None:
        raise ValueError(f"prompt {path} has no '{SEPARATOR}' line")
    v = _strs(variables)
    return (Message("system", p.system.substitute(v)), Message("user", p.user.substitute(v)))


def render_text(path: Path, variables: Mapping[str, object]) -> str:
    """The whole text of a single-part prompt file."""
    p = load(path)
    if p.user is not None:
        raise ValueError(f"prompt {path} has two parts: use render()")
    return p.system.substitute(_strs(variables))


@functools.lru_cache(maxsize=1 << 15)
def untrusted(text: str, limit: int = 600) -> str:
    """Words of others as one quoted line of data: fences neutralised, length capped.

    The result is a JSON string literal, so newlines and quotes cannot break out of it,
    and no fence marker of ours survives inside it. Cached: the same memories and lines
    are quoted again on every controller step while they stay in view."""
    clean = " ".join(str(text).split())
    for marker in ("<<<", ">>>", FENCE_OPEN, FENCE_CLOSE, SEPARATOR):
        clean = clean.replace(marker, " ".join(marker))
    if len(clean) > limit:
        clean = clean[: max(0, limit - 1)] + "…"
    return json.dumps(clean, ensure_ascii=False)


def fenced(lines: Iterable[str]) -> str:
    """A data block: already-quoted lines between the fence markers."""
    body = list(lines)
    return "\n".join([FENCE_OPEN, *(body or ["(nothing)"]), FENCE_CLOSE])


def available(package: str) -> list[str]:
    folder = Path(str(resources.files(package).joinpath("prompts")))
    return sorted(p.stem for p in folder.glob("*.md"))
