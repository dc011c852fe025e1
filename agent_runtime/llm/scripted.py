"""A scripted language model for tests: queued replies or a responder function.

::

    model = ScriptedLanguageModel([Plan(steps=["chop"]), LLMTimeout("slow")])
    await model.complete(req)   # -> Plan(steps=["chop"]), brain "llm:scripted"
    await model.complete(req)   # raises LLMTimeout
    await model.complete(req)   # raises ScriptExhausted (a test bug, not an LLMError)

A reply may be an instance of the response model (or any pydantic model with
compatible fields), a mapping, a JSON string (```json fences allowed; invalid
text raises :class:`LLMInvalidOutput`), or an exception to raise. Token counts
are characters / 4 of the prompt and of the reply's JSON.
"""

from __future__ import annotations

import inspect
import json
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeAlias

from pydantic import BaseModel, ValidationError

from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, T, Usage
from agent_runtime.llm._schema import extract_json
from agent_runtime.llm.errors import LLMInvalidOutput
from agent_runtime.llm.tokens import estimate_tokens

__all__ = ["ScriptExhausted", "ScriptedLanguageModel", "ScriptedReply"]

ScriptedReply: TypeAlias = BaseModel | Mapping[str, Any] | str | BaseException
ScriptResponder: TypeAlias = Callable[[LLMRequest[Any]], ScriptedReply | Awaitable[ScriptedReply]]


class ScriptExhausted(AssertionError):
    """The script ran out of replies (deliberately not an ``LLMError``)."""


class ScriptedLanguageModel(LanguageModel):
    def __init__(
        self,
        replies: Iterable[ScriptedReply] = (),
        *,
        responder: ScriptResponder | None = None,
        name: str = "scripted",
    ) -> None:
        self.name = name
        self._replies: deque[ScriptedReply] = deque(replies)
        self._responder = responder
        self.calls: list[LLMRequest[Any]] = []
        self.closed = False

    def push(self, *replies: ScriptedReply) -> None:
        self._replies.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self._replies)

    async def complete(self, request: LLMRequest[T]) -> LLMResult[T]:
        self.calls.append(request)
        if self._replies:
            reply: ScriptedReply = self._replies.popleft()
        elif self._responder is not None:
            out = self._responder(request)
            reply = await out if inspect.isawaitable(out) else out
        else:
            raise ScriptExhausted(
                f"{self.name}: no scripted reply left for {request.agent}/{request.module}"
            )
        if isinstance(reply, BaseException):
            raise reply
        prompt_tokens = sum(estimate_tokens(m.content) for m in request.messages)
        value, text = self._value(request, reply, prompt_tokens)
        return LLMResult(
            value=value,
            usage=Usage(prompt_tokens, estimate_tokens(text)),
            model=self.name,
            latency_s=0.0,
            attempts=1,
            brain=f"llm:{self.name}",
        )

    def _value(
        self, request: LLMRequest[T], reply: BaseModel | Mapping[str, Any] | str, prompt_tokens: int
    ) -> tuple[T, str]:
        model = request.response_model
        try:
            if isinstance(reply, model):
                return reply, reply.model_dump_json()
            if isinstance(reply, BaseModel):
                data: Any = reply.model_dump(mode="json")
                return model.model_validate(data), json.dumps(data)
            if isinstance(reply, str):
                return model.model_validate_json(extract_json(reply)), reply
            return model.model_validate(dict(reply)), json.dumps(dict(reply), default=str)
        except ValidationError as exc:
            raw = reply if isinstance(reply, str) else repr(reply)
            raise LLMInvalidOutput(
                f"{self.name}: scripted reply is not a valid {model.__name__}: "
                f"{exc.error_count()} error(s)",
                raw=raw,
                model=self.name,
                attempts=1,
                usage=Usage(prompt_tokens, estimate_tokens(raw)),
            ) from None

    async def aclose(self) -> None:
        self.closed = True
