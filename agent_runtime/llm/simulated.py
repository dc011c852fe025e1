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
``Usage.cached_tokens``, what a provider's prompt-prefix cache would serve: the longest prefix
the prompt shares with the same (agent, module)'s previous prompt or with the module's latest
prompt of any agent (a provider caches by prefix across requests), counted by the provider's
rule (:class:`CacheRule`). The default is OpenAI's (:data:`OPENAI_CACHE`): nothing for a prompt
under 1,024 tokens, above that the shared prefix in 128-token steps from 1,024; a local server
(llama.cpp, vLLM) reuses any shared prefix (:data:`ANY_PREFIX`). Its results are not model
output.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import random
import time
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, Message, T, Usage
from agent_runtime.llm._schema import synthesise
from agent_runtime.llm.calls import current_options
from agent_runtime.llm.tokens import estimate_tokens

__all__ = [
    "ANY_PREFIX",
    "HEURISTIC_CONTENT",
    "OPENAI_CACHE",
    "CacheRule",
    "SimulatedLanguageModel",
    "common_prefix_len",
    "prompt_text",
]

_MESSAGE_OVERHEAD_TOKENS = 4  # role markers per chat message, as in OpenAI's accounting

#: the label of a simulated reply that carries the heuristic's decision
HEURISTIC_CONTENT = "simulated(heuristic content)"

Content = Literal["schema", "heuristic"]


@dataclass(frozen=True)
class CacheRule:
    """How a provider counts the cached part of a prompt: none for prompts under
    ``min_tokens``; otherwise the shared prefix rounded down to ``min_tokens`` plus whole
    ``step_tokens`` steps (a prefix shorter than ``min_tokens`` is not served)."""

    min_tokens: int
    step_tokens: int

    def cached(self, prompt_tokens: int, shared_tokens: int) -> int:
        shared = min(shared_tokens, prompt_tokens)
        if prompt_tokens < self.min_tokens or shared < self.min_tokens:
            return 0
        return self.min_tokens + (shared - self.min_tokens) // self.step_tokens * self.step_tokens


#: OpenAI's prompt caching: prompts of 1,024 tokens or more, cache hits in 128-token steps
OPENAI_CACHE = CacheRule(min_tokens=1024, step_tokens=128)
#: a local server's prefix reuse (llama.cpp's slot cache, vLLM's automatic prefix caching)
ANY_PREFIX = CacheRule(min_tokens=0, step_tokens=1)


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
        cache_rule: CacheRule = OPENAI_CACHE,
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
        self.cache_rule = cache_rule
        self._rng = random.Random(seed)
        self._templates: dict[type[BaseModel], tuple[dict[str, object], int]] = {}
        self._previous: dict[tuple[str, str], str] = {}  # (agent, module) -> last prompt
        self._latest: dict[str, str] = {}  # module -> its latest prompt, of any agent
        self.calls = 0
        self.heuristic_replies = 0  # replies that carried the caller's heuristic decision

    def _template(self, model: type[BaseModel]) -> tuple[dict[str, object], int]:
        cached = self._templates.get(model)
        if cached is None:
            data = synthesise(model)
            cached = self._templates[model] = (data, estimate_tokens(json.dumps(data)))
        return cached

    def _cached_tokens(self, request: LLMRequest[Any], prompt_tokens: int) -> int:
        """The cached tokens the provider would report: the longest prefix shared with this
        (agent, module)'s previous prompt or the module's latest one, by :attr:`cache_rule`."""
        if not self.prefix_cache:
            return 0
        text = prompt_text(request.messages)
        key = (request.agent, request.module)
        seen = [p for p in (self._previous.get(key), self._latest.get(request.module)) if p]
        self._previous[key] = self._latest[request.module] = text
        common = max((common_prefix_len(p, text) for p in seen), default=0)
        return self.cache_rule.cached(prompt_tokens, common // 4)

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
