"""LLM-or-heuristic calls made by the experiments themselves (role inference, democracy, scoring).

Prompt files live next to each experiment (``experiments/<name>/prompts/<prompt>.md``) in the
modules' format: a system part, a line ``=== user ===``, a user part with ``$variables``.
:func:`decide` uses the run's :class:`LLMService` when it has a model and the heuristic
otherwise (or when the call finally fails); the returned label says which brain answered.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from string import Template
from typing import Any, TypeVar

from pydantic import BaseModel

from agent_runtime.interfaces import LLMRequest, Message

T = TypeVar("T", bound=BaseModel)

SEPARATOR = "=== user ==="


@functools.cache
def load_prompt(path: Path) -> tuple[Template, Template]:
    text = path.read_text("utf-8")
    if SEPARATOR not in text:
        raise ValueError(f"prompt {path} has no '{SEPARATOR}' line")
    system, user = text.split(SEPARATOR, 1)
    return Template(system.strip()), Template(user.strip())


def render(path: Path, variables: dict[str, str]) -> tuple[Message, ...]:
    system, user = load_prompt(path)
    return (
        Message("system", system.substitute(variables)),
        Message("user", user.substitute(variables)),
    )


async def decide(
    llm: Any,
    *,
    module: str,
    agent: str,
    prompt: Path,
    variables: dict[str, str],
    output: type[T],
    heuristic: Callable[[], T],
    max_tokens: int = 400,
    temperature: float = 0.7,
) -> tuple[T, str]:
    """(value, brain): the LLM's answer when ``llm`` (an LLMService) has a model, else the
    heuristic's, labelled ``"heuristic"``."""
    if llm is None or not llm.uses_llm:
        return heuristic(), "heuristic"
    brain = llm.brain(module, agent)

    def request() -> LLMRequest[T]:
        return LLMRequest(
            module=module,
            agent=agent,
            messages=render(prompt, variables),
            response_model=output,
            temperature=temperature,
            max_tokens=max_tokens,
            prompt_name=prompt.stem,
        )

    thought = await brain.think(request, heuristic)
    return thought.value, thought.brain
