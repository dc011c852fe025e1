"""A simulated language model for benchmarks: answers after a fixed latency.

``SimulatedLanguageModel(latency_ms=200)`` sleeps about 200 ms per call and
returns a valid instance of the request's response model, synthesised once per
model type from its JSON schema and defaults (see
:func:`agent_runtime.llm._schema.synthesise`) and re-validated per call, so a
thousand agents cost a thousand timers and a few microseconds each. Token
counts are realistic in size: prompt characters / 4 and reply JSON characters
/ 4. Its results are labelled ``llm:simulated``; they are not model output.
"""

from __future__ import annotations

import asyncio
import json
import random
import time

from pydantic import BaseModel

from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, T, Usage
from agent_runtime.llm._schema import synthesise
from agent_runtime.llm.openai_model import estimate_tokens

__all__ = ["SimulatedLanguageModel"]

_MESSAGE_OVERHEAD_TOKENS = 4  # role markers per chat message, as in OpenAI's accounting


class SimulatedLanguageModel(LanguageModel):
    def __init__(
        self,
        latency_ms: float = 0.0,
        *,
        seed: int = 0,
        jitter: float = 0.0,
        name: str = "simulated",
        capacity: int | None = None,
    ) -> None:
        if latency_ms < 0:
            raise ValueError("latency_ms must be >= 0")
        if not 0.0 <= jitter <= 1.0:
            raise ValueError("jitter must be within [0, 1]")
        if capacity is not None and capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.latency_s = latency_ms / 1000.0
        self.capacity = capacity
        self._server = asyncio.Semaphore(capacity) if capacity is not None else None
        self.jitter = jitter
        self.name = name
        self._rng = random.Random(seed)
        self._templates: dict[type[BaseModel], tuple[dict[str, object], int]] = {}
        self.calls = 0

    def _template(self, model: type[BaseModel]) -> tuple[dict[str, object], int]:
        cached = self._templates.get(model)
        if cached is None:
            data = synthesise(model)
            cached = self._templates[model] = (data, estimate_tokens(json.dumps(data)))
        return cached

    async def complete(self, request: LLMRequest[T]) -> LLMResult[T]:
        self.calls += 1
        data, completion_tokens = self._template(request.response_model)
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
        return LLMResult(
            value=request.response_model.model_validate(data),
            usage=Usage(prompt_tokens, min(completion_tokens, request.max_tokens)),
            model=self.name,
            latency_s=time.monotonic() - t0 if self._server is not None else delay,
            attempts=1,
            brain=f"llm:{self.name}",
        )

    @staticmethod
    async def _think(delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)  # the simulated model's thinking time
