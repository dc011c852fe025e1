"""A simulated language model for benchmarks: answers after a fixed latency.

``SimulatedLanguageModel(latency_ms=200)`` sleeps about 200 ms per call and answers with
one of two contents:

- ``content="schema"`` (default): a valid instance of the request's response model,
  synthesised once per model type from its JSON schema and defaults (see
  :func:`agent_runtime.llm._schema.synthesise`) and re-validated per call, so a thousand
  agents cost a thousand timers and a few microseconds each; labelled ``llm:<name>``.
- ``content="heuristic"``: what the caller's heuristic policy decides from the same view
  (the heuristic :meth:`~agent_runtime.llm.brain.Brain.think` was given, read from
  :class:`~agent_runtime.llm.calls.CallOptions`), computed after the latency, so skills run
  as they would with a brain that takes that long to answer. Labelled
  :data:`HEURISTIC_CONTENT`, never as model output. A call without a heuristic gets the
  schema's default.

Token counts are realistic in size: prompt characters / 4 (plus 4 per message) and reply
JSON characters / 4. With ``prefix_cache`` (default) the model also reports, as
``Usage.cached_tokens``, the tokens of the longest prefix the prompt shares with the same
(agent, module)'s previous prompt: what a provider's prompt-prefix cache (OpenAI, vLLM,
llama.cpp) could at best serve from cache. Its results are not model output.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import random
import time
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, Message, T, Usage
from agent_runtime.llm._schema import synthesise
from agent_runtime.llm.calls import current_options
from agent_runtime.llm.openai_model import estimate_tokens

__all__ = ["HEURISTIC_CONTENT", "SimulatedLanguageModel", "common_prefix_len", "prompt_text"]

_MESSAGE_OVERHEAD_TOKENS = 4  # role markers per chat message, as in OpenAI's accounting

#: the label of a simulated reply that carries the heuristic's decision
HEURISTIC_CONTENT = "simulated(heuristic content)"

Content = Literal["schema", "heuristic"]


def prompt_text(messages: tuple[Message, ...]) -> str:
    """The prompt as one string, in the order a provider's prefix cache reads it."""
    return "".join(f"<|{m.role}|>{m.content}" for m in messages)


def common_prefix_len(a: str, b: str) -> int:
    """Characters of the longest common prefix of ``a`` and ``b`` (binary search on slices)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class SimulatedLanguageModel(LanguageModel):
    def __init__(
        self,
        latency_ms: float = 0.0,
        *,
        seed: int = 0,
        jitter: float = 0.0,
        name: str = "simulated",
        capacity: int | None = None,
        content: Content = "schema",
        prefix_cache: bool = True,
    ) -> None:
        if latency_ms < 0:
            raise ValueError("latency_ms must be >= 0")
        if not 0.0 <= jitter <= 1.0:
            raise ValueError("jitter must be within [0, 1]")
        if capacity is not None and capacity < 1:
            raise ValueError("capacity must be >= 1")
        if content not in ("schema", "heuristic"):
            raise ValueError("content must be 'schema' or 'heuristic'")
        self.latency_s = latency_ms / 1000.0
        self.capacity = capacity
        self._server = asyncio.Semaphore(capacity) if capacity is not None else None
        self.jitter = jitter
        self.name = name
        self.content = content
        self.prefix_cache = prefix_cache
        self._rng = random.Random(seed)
        self._templates: dict[type[BaseModel], tuple[dict[str, object], int]] = {}
        self._previous: dict[tuple[str, str], str] = {}  # (agent, module) -> last prompt
        self.calls = 0
        self.heuristic_replies = 0  # replies that carried the caller's heuristic decision

    def _template(self, model: type[BaseModel]) -> tuple[dict[str, object], int]:
        cached = self._templates.get(model)
        if cached is None:
            data = synthesise(model)
            cached = self._templates[model] = (data, estimate_tokens(json.dumps(data)))
        return cached

    def _cached_tokens(self, request: LLMRequest[Any], prompt_tokens: int) -> int:
        """Tokens of the longest prefix shared with this (agent, module)'s previous prompt."""
        if not self.prefix_cache:
            return 0
        text = prompt_text(request.messages)
        key = (request.agent, request.module)
        previous = self._previous.get(key)
        self._previous[key] = text
        if previous is None:
            return 0
        common = common_prefix_len(previous, text)
        return min(prompt_tokens, common // 4)

    async def complete(self, request: LLMRequest[T]) -> LLMResult[T]:
        self.calls += 1
        heuristic = current_options().heuristic if self.content == "heuristic" else None
        delay = self.latency_s
        if self.jitter and delay:
            delay *= 1.0 + self.jitter * self._rng.uniform(-1.0, 1.0)
        t0 = time.monotonic()
        if self._server is None:
            await self._think(delay)
        else:
            async with self._server:  # queued inside the "server"
                await self._think(delay)
        prompt_tokens = sum(
            estimate_tokens(m.content) + _MESSAGE_OVERHEAD_TOKENS for m in request.messages
        )
        cached_tokens = self._cached_tokens(request, prompt_tokens)
        value: T | None = None
        if heuristic is not None:  # decided after the latency, on the state as it is then
            value = await _heuristic_value(heuristic, request.response_model)
        if value is not None:
            self.heuristic_replies += 1
            completion_tokens = estimate_tokens(_json(value))
            brain = HEURISTIC_CONTENT
        else:
            data, completion_tokens = self._template(request.response_model)
            value = request.response_model.model_validate(data)
            brain = f"llm:{self.name}"
        return LLMResult(
            value=value,
            usage=Usage(prompt_tokens, min(completion_tokens, request.max_tokens), cached_tokens),
            model=self.name,
            latency_s=time.monotonic() - t0 if self._server is not None else delay,
            attempts=1,
            brain=brain,
        )

    @staticmethod
    async def _think(delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)  # the simulated model's thinking time


async def _heuristic_value(heuristic: Any, model: type[T]) -> T | None:
    out = heuristic()
    if inspect.isawaitable(out):
        out = await out
    if isinstance(out, model):
        return out
    try:  # the heuristic answered a sibling type: carry its fields over
        dumped = out.model_dump() if isinstance(out, BaseModel) else out
        return model.model_validate(dumped)
    except (ValidationError, TypeError, AttributeError):
        return None


def _json(value: object) -> str:
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, default=str)
