"""Prompt files of the modules (``modules/prompts/<name>.md``), loaded by name and rendered.

A prompt file has a system part and a user part separated by a line ``=== user ===``.
Variables are ``$name`` (``string.Template``); every variable must be supplied.
Text that comes from other players is wrapped by :func:`untrusted` so the model
sees it as quoted data, never as instructions.
"""

from __future__ import annotations

import functools
from pathlib import Path
from string import Template

from agent_runtime.interfaces import Message

SEPARATOR = "=== user ==="
PROMPT_DIR = Path(__file__).resolve().parent / "prompts"


@functools.cache
def load(name: str) -> tuple[Template, Template]:
    text = (PROMPT_DIR / f"{name}.md").read_text("utf-8")
    if SEPARATOR not in text:
        raise ValueError(f"prompt {name!r} has no '{SEPARATOR}' line")
    system, user = text.split(SEPARATOR, 1)
    return Template(system.strip()), Template(user.strip())


def render(name: str, variables: dict[str, str]) -> tuple[Message, ...]:
    system, user = load(name)
    return (
        Message("system", system.substitute(variables)),
        Message("user", user.substitute(variables)),
    )


def untrusted(text: str) -> str:
    """Quote words of other players as data: strip our delimiters, then fence them."""
    cleaned = text.replace("<<<", "‹‹‹").replace(">>>", "›››")
    return f"<<<{cleaned}>>>"


def available() -> list[str]:
    return sorted(p.stem for p in PROMPT_DIR.glob("*.md"))
