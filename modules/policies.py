"""How a module gets and runs its policy: the one "LLM or heuristic" entry point for modules.

:func:`module_policy` builds the module's :class:`~agent_runtime.policy.Policy` with
:func:`agent_runtime.policy.make_policy`: the LLM policy (prompt file
``modules/prompts/<prompt>.md`` rendered from the view) when an LLM is configured for the
module, else the heuristic ``(view, rng) -> output``. Both get the same typed view.

:func:`decide` runs it and keeps the module's accounting (LLM calls, fallbacks, the
``llm_fallback`` event). With the benchmark's ``simulated`` provider the call pays the
latency and tokens of a real one, but its content is the heuristic's, and it is labelled
:data:`SIMULATED`, never as LLM output. A caller may pass the call's priority and deadline.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import TypeVar

from pydantic import BaseModel

from agent_runtime.llm.brain import HEURISTIC
from agent_runtime.llm.priority import Priority
from agent_runtime.module_context import ModuleContext
from agent_runtime.policy import Decided, HeuristicPolicy, LLMPolicy, Policy, View, make_policy
from agent_runtime.prompts import prompt_path

__all__ = ["HEURISTIC", "SIMULATED", "decide", "module_policy"]

SIMULATED = "simulated(heuristic content)"

V = TypeVar("V", bound=View)
Out = TypeVar("Out", bound=BaseModel)


def module_policy(
    ctx: ModuleContext,
    output: type[Out],
    heuristic: Callable[[V, random.Random], Out],
    *,
    prompt: str | None = None,
    variables: Callable[[V], Mapping[str, object]] | None = None,
    max_tokens: int = 400,
    temperature: float = 0.7,
) -> Policy[V, Out]:
    """The module's policy (its brain's model or the heuristic), made once per prompt."""
    key = prompt or output.__name__
    cached = ctx.policies.get(key)
    if isinstance(cached, Policy):
        return cached
    policy: Policy[V, Out] = make_policy(
        prompt or ctx.module,
        output,
        heuristic,
        ctx.rng,
        brain=ctx.brain,
        prompt=prompt_path("modules", prompt) if prompt else None,
        variables=variables,
        max_tokens=max_tokens,
        temperature=temperature,
    )
    ctx.policies[key] = policy
    return policy


async def decide(
    ctx: ModuleContext,
    policy: Policy[V, Out],
    view: V,
    *,
    priority: Priority | str | None = None,
    deadline_s: float | None = None,
) -> Decided[Out]:
    """Run ``policy`` on ``view``, counting LLM calls and fallbacks for the module.

    ``priority`` and ``deadline_s`` (the longest wait for a model slot before the call is
    shed to the heuristic) go to :meth:`Brain.think`; None = the module's defaults."""
    if not isinstance(policy, LLMPolicy):
        return await policy.decide(view)
    ctx.stats.llm_calls += 1
    if priority is None and deadline_s is None:
        got = await policy.decide(view)
    else:
        thought = await policy.brain.think(
            lambda: policy.request(view),
            lambda: policy.fallback(view),
            priority=priority,
            deadline_s=deadline_s,
        )
        got = Decided(thought.value, thought.brain, thought.fallback_reason)
    if got.fallback_reason is not None:
        ctx.stats.fallbacks += 1
        ctx.emit("llm_fallback", prompt=policy.name, error=got.fallback_reason)
    elif policy.brain.simulated and got.brain != SIMULATED:
        fallback: HeuristicPolicy[V, Out] = policy.fallback
        return Decided(fallback(view), SIMULATED)
    return got
