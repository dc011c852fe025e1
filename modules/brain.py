"""How a module picks its policy: the LLM when one is configured for it, else (or when
the call finally fails) the heuristic. The returned label says which brain produced
the value; heuristic output is never presented as LLM output."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

from agent_runtime.interfaces import LanguageModel, LLMRequest
from agent_runtime.llm.brain import HEURISTIC, Brain
from agent_runtime.module_context import ModuleContext
from modules import prompts

T = TypeVar("T", bound=BaseModel)

__all__ = ["HEURISTIC", "SIMULATED", "brain_for", "choose", "llm_for"]

SIMULATED = "simulated(heuristic content)"


def _use_llm(ctx: ModuleContext) -> bool:
    return ctx.services.config.modules.settings(ctx.module).policy != "heuristic"


def llm_for(ctx: ModuleContext) -> LanguageModel | None:
    """The module's language model, or None when its policy is heuristic."""
    svc = ctx.services.llm
    if svc is None or not _use_llm(ctx):
        return None
    model: LanguageModel | None = svc.model_for(ctx.module)
    return model


def brain_for(ctx: ModuleContext) -> Brain:
    brain = ctx.shared.get(f"brain:{ctx.module}")
    if isinstance(brain, Brain):
        return brain
    svc = ctx.services.llm
    if svc is None:
        brain = Brain(None, module=ctx.module, agent=ctx.agent)
    else:
        brain = svc.brain(ctx.module, ctx.agent, use_llm=_use_llm(ctx))
    ctx.shared[f"brain:{ctx.module}"] = brain
    return brain


async def choose(
    ctx: ModuleContext,
    prompt: str,
    output: type[T],
    variables: dict[str, str],
    heuristic: Callable[[], T],
    *,
    max_tokens: int = 400,
    temperature: float = 0.7,
) -> tuple[T, str]:
    """Run the LLM policy if configured, falling back to ``heuristic()``; returns (value, brain)."""
    brain = brain_for(ctx)

    def request() -> LLMRequest[T]:
        return LLMRequest(
            module=ctx.module,
            agent=ctx.agent,
            messages=prompts.render(prompt, variables),
            response_model=output,
            temperature=temperature,
            max_tokens=max_tokens,
            prompt_name=prompt,
        )

    if brain.uses_llm:
        ctx.stats.llm_calls += 1
    thought = await brain.think(request, heuristic)
    if thought.fallback_reason is not None:
        ctx.stats.fallbacks += 1
        ctx.emit("llm_fallback", prompt=prompt, error=thought.fallback_reason)
    elif thought.result is not None and ctx.services.config.llm.provider == "simulated":
        # the benchmark's simulated LLM pays the latency and tokens of a real call; its
        # content is the heuristic policy's, and it is labelled as such
        return heuristic(), SIMULATED
    return thought.value, thought.brain
