"""An OpenAI-compatible chat model with structured output and bounded retries.

The SDK client is created with ``max_retries=0``; this module owns the retry
policy so that every attempt passes through the shared :class:`Limiter` and
is counted. Per call:

1. Send the messages with ``response_format`` ``json_schema`` (strict where
   the schema allows). If the endpoint answers 400 to that, remember it for
   the endpoint (:class:`EndpointState`) and resend in JSON mode
   (``json_object`` plus the schema as a system instruction); if that is
   rejected too, resend with the instruction only (mode ``prompt``). What was
   learned is forgotten again if the last mode is rejected as well (then the
   400 was about something else, e.g. an unknown model).
2. Retry 408/409/429/5xx, timeouts and connection errors up to
   ``max_retries`` times with capped, jittered exponential backoff (honouring
   ``Retry-After`` up to the cap); other 4xx fail at once.
3. Parse the reply (```json fences and surrounding prose tolerated) and
   validate it with the pydantic model. If that fails, make ONE repair request
   that shows the model its reply and the error; if that fails too, raise
   :class:`LLMInvalidOutput`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal, cast

import openai
from openai import AsyncOpenAI
from pydantic import ValidationError

from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, Message, T, Usage
from agent_runtime.llm import _prompts
from agent_runtime.llm._schema import extract_json, schema_name, strict_json_schema
from agent_runtime.llm.errors import (
    LLMConnectionError,
    LLMError,
    LLMInvalidOutput,
    LLMLimiterTimeout,
    LLMRateLimited,
    LLMRequestRejected,
    LLMServerError,
    LLMTimeout,
)
from agent_runtime.llm.limits import Limiter, Slot

__all__ = ["EndpointState", "OpenAILanguageModel", "RetryPolicy", "estimate_tokens"]

logger = logging.getLogger(__name__)

Mode = Literal["json_schema", "json_object", "prompt"]
StructuredOutput = Literal["auto", "json_schema", "json_object", "prompt"]
_NEXT_MODE: dict[Mode, Mode | None] = {
    "json_schema": "json_object",
    "json_object": "prompt",
    "prompt": None,
}


def estimate_tokens(text: str) -> int:
    """Rough token count (4 characters per token) for limits and for servers that omit usage."""
    return max(1, len(text) // 4) if text else 0


@dataclass(slots=True)
class EndpointState:
    """What has been learned about one endpoint; shared by every model using it."""

    base_url: str
    json_schema: bool | None = None  # None = not known yet
    json_object: bool | None = None

    def supports(self, mode: Mode) -> bool | None:
        if mode == "json_schema":
            return self.json_schema
        if mode == "json_object":
            return self.json_object
        return True

    def learn(self, mode: Mode, supported: bool | None) -> None:
        if mode == "json_schema":
            self.json_schema = supported
        elif mode == "json_object":
            self.json_object = supported


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 3
    backoff_base_s: float = 0.5
    backoff_max_s: float = 8.0

    def delay(self, retry: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based).

        "Equal jitter": half of the capped exponential step plus a uniform
        random half, so the delay lies in ``[cap/2, cap]`` with
        ``cap = min(backoff_max_s, backoff_base_s * 2**(retry-1))``. A server's
        ``Retry-After`` raises the delay but never above ``backoff_max_s``.
        """
        cap = min(self.backoff_max_s, self.backoff_base_s * 2.0 ** max(0, retry - 1))
        delay = cap / 2 + rng.uniform(0, cap / 2)
        if retry_after is not None and retry_after > 0:
            delay = max(delay, min(retry_after, self.backoff_max_s))
        return delay


class _Invalid(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(slots=True)
class _CallState:
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def usage(self) -> Usage:
        return Usage(self.prompt_tokens, self.completion_tokens)


class OpenAILanguageModel(LanguageModel):
    """Structured chat completions against one model of an OpenAI-compatible endpoint.

    The client is borrowed (the :class:`~agent_runtime.llm.factory.LLMService`
    owns and closes it); ``aclose`` does nothing.
    """

    def __init__(
        self,
        client: AsyncOpenAI,
        model: str,
        *,
        endpoint: EndpointState | None = None,
        retry: RetryPolicy | None = None,
        timeout_s: float = 30.0,
        limiter: Limiter | None = None,
        temperature: float | None = None,
        structured_output: StructuredOutput = "auto",
        rng: random.Random | None = None,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self.client = client
        self.model = model
        self.name = model
        self.endpoint = endpoint if endpoint is not None else EndpointState(str(client.base_url))
        self.retry = retry if retry is not None else RetryPolicy()
        self.timeout_s = timeout_s
        self.limiter = limiter
        self.temperature = temperature
        self.structured_output: StructuredOutput = structured_output
        self._rng = rng if rng is not None else random.Random(0)

    # --- public -----------------------------------------------------------------------

    async def complete(self, request: LLMRequest[T]) -> LLMResult[T]:
        t0 = time.monotonic()
        call = _CallState()
        schema, strict = strict_json_schema(request.response_model)
        turns = list(request.messages)
        raw = await self._exchange(request, turns, schema, strict, call)
        try:
            value = _parse(request.response_model, raw)
        except _Invalid as first:
            logger.info(
                "%s/%s: invalid reply from %s (%s); asking for a repair",
                request.agent,
                request.module,
                self.model,
                first.detail,
            )
            repair = [
                *turns,
                Message("assistant", raw),
                Message("user", _prompts.render("repair", error=first.detail)),
            ]
            raw = await self._exchange(request, repair, schema, strict, call)
            try:
                value = _parse(request.response_model, raw)
            except _Invalid as second:
                raise LLMInvalidOutput(
                    f"{self.model}: reply invalid after one repair: {second.detail}",
                    raw=raw,
                    model=self.model,
                    attempts=call.attempts,
                    usage=call.usage,
                ) from None
        return LLMResult(
            value=value,
            usage=call.usage,
            model=self.model,
            latency_s=time.monotonic() - t0,
            attempts=call.attempts,
            brain=f"llm:{self.model}",
        )

    # --- one exchange, with retries and format negotiation -----------------------------

    def _mode(self) -> Mode:
        if self.structured_output != "auto":
            return self.structured_output
        mode: Mode = "json_schema"
        while self.endpoint.supports(mode) is False:
            nxt = _NEXT_MODE[mode]
            if nxt is None:
                break
            mode = nxt
        return mode

    async def _exchange(
        self,
        request: LLMRequest[Any],
        turns: list[Message],
        schema: dict[str, Any],
        strict: bool,
        call: _CallState,
    ) -> str:
        retries = 0
        learned: list[Mode] = []  # modes found unsupported during this exchange
        while True:
            mode = self._mode()
            messages = _messages(turns, mode, schema)
            estimate = sum(estimate_tokens(m.content) for m in messages) + request.max_tokens
            call.attempts += 1
            try:
                async with self._slot(estimate) as slot:
                    reply = await self._send(request, messages, mode, schema, strict, slot)
            except LLMLimiterTimeout as exc:
                call.attempts -= 1  # no request went out
                exc.model, exc.attempts, exc.usage = self.model, call.attempts, call.usage
                raise
            except openai.BadRequestError as exc:
                nxt = _NEXT_MODE[mode]
                if self.structured_output == "auto" and nxt is not None:
                    logger.warning(
                        "%s rejected response_format %s (%s); trying %s",
                        self.endpoint.base_url,
                        mode,
                        _short(exc),
                        nxt,
                    )
                    self.endpoint.learn(mode, False)
                    learned.append(mode)
                    continue
                for m in learned:  # the 400 was about something else
                    self.endpoint.learn(m, None)
                raise self._error(LLMRequestRejected, exc, call) from exc
            except (
                openai.APIStatusError,
                openai.APIConnectionError,
                openai.APIResponseValidationError,
                json.JSONDecodeError,
                TimeoutError,
            ) as exc:
                kind = _classify(exc)
                if kind is None:
                    raise self._error(LLMRequestRejected, exc, call) from exc
                if retries >= self.retry.max_retries:
                    raise self._error(kind, exc, call) from exc
                retries += 1
                delay = self.retry.delay(retries, self._rng, _retry_after(exc))
                logger.info(
                    "%s/%s: %s from %s; retry %d/%d in %.2fs",
                    request.agent,
                    request.module,
                    _short(exc),
                    self.model,
                    retries,
                    self.retry.max_retries,
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            if self.endpoint.supports(mode) is None:
                self.endpoint.learn(mode, True)
            call.prompt_tokens += reply[1].prompt_tokens
            call.completion_tokens += reply[1].completion_tokens
            return reply[0]

    @contextlib.asynccontextmanager
    async def _slot(self, estimate: int) -> AsyncIterator[Slot | None]:
        if self.limiter is None:
            yield None
        else:
            async with self.limiter.slot(estimate) as slot:
                yield slot

    async def _send(
        self,
        request: LLMRequest[Any],
        messages: list[Message],
        mode: Mode,
        schema: dict[str, Any],
        strict: bool,
        slot: Slot | None,
    ) -> tuple[str, Usage]:
        response_format: Any = openai.omit
        if mode == "json_schema":
            response_format = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_name(request.response_model),
                    "schema": schema,
                    "strict": strict,
                },
            }
        elif mode == "json_object":
            response_format = {"type": "json_object"}
        temperature = self.temperature if self.temperature is not None else request.temperature
        used = 0
        try:
            async with asyncio.timeout(self.timeout_s):
                completion = await self.client.chat.completions.create(
                    model=self.model,
                    messages=cast(Any, [{"role": m.role, "content": m.content} for m in messages]),
                    response_format=response_format,
                    temperature=temperature,
                    max_tokens=request.max_tokens,
                    timeout=self.timeout_s,
                )
            if not completion.choices:
                text = ""
            else:
                message = completion.choices[0].message
                text = message.content or ""
                if not text and message.refusal:
                    text = f"(refused: {message.refusal})"
            if completion.usage is not None:
                usage = Usage(completion.usage.prompt_tokens, completion.usage.completion_tokens)
            else:
                usage = Usage(
                    sum(estimate_tokens(m.content) for m in messages), estimate_tokens(text)
                )
            used = usage.total_tokens
            return text, usage
        finally:
            if slot is not None:
                slot.settle(used)

    def _error(self, cls: type[LLMError], exc: BaseException, call: _CallState) -> LLMError:
        status = getattr(exc, "status_code", None)
        return cls(
            f"{self.model}: {_short(exc)} (after {call.attempts} attempt(s))",
            model=self.model,
            attempts=call.attempts,
            usage=call.usage,
            status_code=status if isinstance(status, int) else None,
        )


# --- helpers ------------------------------------------------------------------------------


def _messages(turns: list[Message], mode: Mode, schema: dict[str, Any]) -> list[Message]:
    if mode == "json_schema":
        return turns
    # JSON mode / prompt mode: the schema travels as an instruction
    # (OpenAI's JSON mode also requires the word "JSON" in the messages).
    instruction = Message(
        "system", _prompts.render("json_reply", schema=json.dumps(schema, separators=(",", ":")))
    )
    lead = 0
    while lead < len(turns) and turns[lead].role == "system":
        lead += 1
    return [*turns[:lead], instruction, *turns[lead:]]


def _parse(model: type[T], raw: str) -> T:
    text = extract_json(raw)
    if not text:
        raise _Invalid("the reply was empty")
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        if errors and errors[0].get("type") == "json_invalid":
            raise _Invalid(f"not valid JSON: {errors[0].get('msg', '')}") from None
        detail = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in errors[:8]
        )
        raise _Invalid(f"does not match the schema: {detail}") from None


def _classify(exc: BaseException) -> type[LLMError] | None:
    """The error to raise once retries are spent, or None if not retryable."""
    if isinstance(exc, TimeoutError | openai.APITimeoutError):
        return LLMTimeout
    if isinstance(exc, openai.APIConnectionError):
        return LLMConnectionError
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return LLMServerError  # a 2xx whose body is not a chat completion
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        if code == 429:
            return LLMRateLimited
        if code == 408:
            return LLMTimeout
        if code == 409 or code >= 500:
            return LLMServerError
    return None


def _retry_after(exc: BaseException) -> float | None:
    if not isinstance(exc, openai.APIStatusError):
        return None
    value = exc.response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _short(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message[:200]}"
    return f"{type(exc).__name__}: {str(exc)[:200]}"
