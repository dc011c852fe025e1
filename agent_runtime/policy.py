"""The one policy interface: a typed view of what the agent may know in, a typed output out.

Every decision of every module is made by a :class:`Policy`. A policy's input is a
:class:`View`: a frozen model built only from its own agent's Agent State (what it
perceived, heard, remembered and was told about itself); for the Cognitive Controller it is
exactly the bottleneck view. The type of a view is the list of what its policy may know:
another agent's config, a hidden experiment variable or a world fact the agent did not
perceive has no field to arrive in.

A module has two implementations of the same interface, fed the same view:

- :class:`HeuristicPolicy` wraps a function ``(view, rng) -> output`` (no LLM; the rng is the
  agent's own seeded one, so two equal views give equal outputs);
- :class:`LLMPolicy` renders the view into a prompt file and asks a model through a
  :class:`~agent_runtime.llm.brain.Brain`; when the call finally fails it falls back to the
  heuristic policy with the same view, and says so.

:func:`make_policy` is the one "LLM or heuristic" entry point. Every output is labelled with
the brain that produced it (``"heuristic"``, ``"llm:<model>"``, ...).
"""

from __future__ import annotations

import abc
import random
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel

from agent_runtime import prompts
from agent_runtime.config.strict import Strict
from agent_runtime.interfaces import LLMRequest
from agent_runtime.llm.brain import HEURISTIC, Brain

__all__ = [
    "HEURISTIC",
    "Decided",
    "HeuristicPolicy",
    "LLMPolicy",
    "Policy",
    "View",
    "make_policy",
]


class View(Strict):
    """What one policy may know. Subclasses list the fields; nothing else gets in."""

    def prompt_variables(self) -> dict[str, str]:
        """The view as prompt variables. Subclasses quote untrusted text with
        :func:`agent_runtime.prompts.untrusted`; the default dumps each field as JSON."""
        return {k: v.model_dump_json() if isinstance(v, BaseModel) else str(v) for k, v in self}


V = TypeVar("V", bound=View)
Out = TypeVar("Out", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Decided(Generic[Out]):
    value: Out
    brain: str  # "heuristic" or the model's label
    fallback_reason: str | None = None  # why the LLM's answer was not used, when it failed

    @property
    def is_heuristic(self) -> bool:
        return self.brain == HEURISTIC


class Policy(abc.ABC, Generic[V, Out]):
    """``decide(view) -> Decided[output]``; the only way a module makes a decision."""

    name: str
    output: type[Out]

    @abc.abstractmethod
    async def decide(self, view: V) -> Decided[Out]: ...


HeuristicFn = Callable[[V, random.Random], Out]


@dataclass(eq=False)
class HeuristicPolicy(Policy[V, Out]):
    """A non-LLM policy: a function of the view and the agent's own seeded rng."""

    name: str
    output: type[Out]
    fn: HeuristicFn[V, Out]
    rng: random.Random

    def __call__(self, view: V) -> Out:
        return self.fn(view, self.rng)

    async def decide(self, view: V) -> Decided[Out]:
        return Decided(self(view), HEURISTIC)


@dataclass(eq=False)
class LLMPolicy(Policy[V, Out]):
    """A prompt file rendered from the view, answered by a model; the heuristic on failure."""

    name: str
    output: type[Out]
    prompt: Path
    brain: Brain
    fallback: HeuristicPolicy[V, Out]
    _: KW_ONLY
    variables: Callable[[V], Mapping[str, object]] | None = None
    max_tokens: int = 400
    temperature: float = 0.7

    def request(self, view: V) -> LLMRequest[Out]:
        variables = self.variables(view) if self.variables else view.prompt_variables()
        return LLMRequest(
            module=self.brain.module,
            agent=self.brain.agent,
            messages=prompts.render(self.prompt, variables),
            response_model=self.output,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            prompt_name=self.prompt.stem,
        )

    async def decide(self, view: V) -> Decided[Out]:
        thought = await self.brain.think(lambda: self.request(view), lambda: self.fallback(view))
        return Decided(thought.value, thought.brain, thought.fallback_reason)


def make_policy(
    name: str,
    output: type[Out],
    heuristic: HeuristicFn[V, Out],
    rng: random.Random,
    *,
    brain: Brain | None = None,
    prompt: Path | None = None,
    variables: Callable[[V], Mapping[str, object]] | None = None,
    max_tokens: int = 400,
    temperature: float = 0.7,
) -> Policy[V, Out]:
    """The LLM policy when ``brain`` has a model (and a prompt is given), else the heuristic."""
    fallback: HeuristicPolicy[V, Out] = HeuristicPolicy(name, output, heuristic, rng)
    if brain is None or not brain.uses_llm or prompt is None:
        return fallback
    return LLMPolicy(
        name,
        output,
        prompt,
        brain,
        fallback,
        variables=variables,
        max_tokens=max_tokens,
        temperature=temperature,
    )
