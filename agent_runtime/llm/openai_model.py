"""An OpenAI-compatible chat model with negotiated structured output and bounded retries.

The SDK client is created with ``max_retries=0``; this module owns the retry
policy so that every attempt passes through the shared :class:`Limiter` (by
the request's priority) and is counted. Per call:

1. Send the messages in the best structured-output mode the endpoint is
   known or hoped to support, in this order (``structured_output: auto``):

   * ``json_schema``: ``response_format: {"type": "json_schema", ...}``
     (OpenAI, vLLM, Ollama, LM Studio);
   * ``json_object_schema``: ``{"type": "json_object", "schema": {...}}``,
     which llama-cpp-python and the llama.cpp server turn into a grammar that
     constrains decoding; the prompt names the fields (not the whole schema);
   * ``json_object``: JSON mode, the schema only in the prompt;
   * ``prompt``: no ``response_format``, the schema in the prompt.

   A rejection of ``response_format`` (HTTP 400, 422 or 500 whose message is
   about the response format, e.g. llama-cpp-python's 500 "Input should be
   'text' or 'json_object'") is remembered for the (endpoint, model)
   (:class:`EndpointState`), logged once, and the request is resent at once
   in the next mode: never retried as if transient. A 400/422 with another
   message also moves to the next mode, but what it taught is forgotten if
   the last mode fails too (then it was about something else, e.g. an unknown
   model).
2. Retry 408/409/429/5xx and connection errors up to ``max_retries`` times
   (timeouts not at all) with capped, jittered exponential backoff
   (honouring ``Retry-After`` up to the cap); other 4xx fail at once. A 429
   or a timeout also lowers the limiter's adaptive concurrency. Every reply's
   headers (``with_raw_response``) go to the limiter's
   :class:`~agent_runtime.llm.pacing.HeaderPacer`: the ``x-ratelimit-*`` figures pace the
   next requests before a 429, a 429's ``retry-after`` holds every request.
3. Parse the reply (```json fences, surrounding prose and raw control
   characters inside strings tolerated) and validate it with the pydantic model. If that fails, make ONE repair request
   that shows the model its reply and the error; if that fails too, raise
   :class:`LLMInvalidOutput`.

What happened (mode, repair, rejections, attempt errors) is noted in the
current :class:`~agent_runtime.llm.calls.CallTrace` for the accounting.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import openai
from openai import AsyncOpenAI

from agent_runtime.checks import require_positive
from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, Message, T, Usage
from agent_runtime.llm._schema import schema_name, strict_json_schema
from agent_runtime.llm.calls import current_trace
from agent_runtime.llm.errors import (
    LLMError,
    LLMInvalidOutput,
    LLMLimiterTimeout,
    LLMRequestRejected,
    LLMTimeout,
)
from agent_runtime.llm.limits import Limiter
from agent_runtime.llm.modes import (
    MODES,
    NEXT_MODE,
    EndpointState,
    Mode,
    StructuredOutput,
    is_format_rejection,
    response_format,
    with_instruction,
)
from agent_runtime.llm.replies import InvalidReply, parse_reply, reply_text, reply_usage
from agent_runtime.llm.retries import RetryPolicy, classify, describe, retry_after
from agent_runtime.llm.slot import Slot
from agent_runtime.llm.tokens import request_tokens
from agent_runtime.prompts import prompt_path, render_text

__all__ = ["OpenAILanguageModel"]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class _CallState:
    attempts: int = 0
    usage: Usage = field(default_factory=Usage)  # the answered attempts' tokens, summed
    last_error: tuple[type[LLMError], BaseException] | None = None  # being retried


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
        require_positive(timeout_s=timeout_s)
        self.client = client
        self.model = model
        self.name = model
        self.endpoint = (
            endpoint if endpoint is not None else EndpointState(str(client.base_url), model)
        )
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
            value = parse_reply(request.response_model, raw)
        except InvalidReply as first:
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
                Message(
                    "user",
                    render_text(
                        prompt_path("agent_runtime.llm", "repair"), {"error": first.detail}
                    ),
                ),
            ]
            raw = await self._exchange(request, repair, schema, strict, call)
            try:
                value = parse_reply(request.response_model, raw)
            except InvalidReply as second:
                raise LLMInvalidOutput(
                    f"{self.model}: reply invalid after one repair: {second.detail}",
                    raw=raw,
                    model=self.model,
                    attempts=call.attempts,
                    usage=call.usage,
                ) from None
            trace = current_trace()
            if trace is not None:
                trace.repaired = True
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
        mode: Mode = MODES[0]
        while self.endpoint.supports(mode) is False:
            nxt = NEXT_MODE[mode]
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
        tentative: list[Mode] = []  # modes dropped on a 400/422 not clearly about the format
        trace = current_trace()
        while True:
            mode = self._mode()
            messages = with_instruction(turns, mode, schema)
            estimate = request_tokens(messages, request.max_tokens)
            call.attempts += 1
            if trace is not None:
                trace.mode = mode
            try:
                async with self._slot(estimate, request.module, request.agent) as slot:
                    reply = await self._send(request, messages, mode, schema, strict, slot)
            except LLMLimiterTimeout as exc:
                call.attempts -= 1  # no request went out
                if call.last_error is not None:
                    # a retry found no slot: the call failed for the error it was retrying
                    retried, cause = call.last_error
                    raise self._error(retried, cause, call) from exc
                exc.model, exc.attempts, exc.usage = self.model, call.attempts, call.usage
                raise
            except openai.APIStatusError as exc:
                if trace is not None:
                    trace.attempt_errors[f"HTTP {exc.status_code}"] += 1
                rejection = mode != "prompt" and is_format_rejection(exc)
                if rejection and trace is not None:
                    trace.format_rejections += 1
                nxt = NEXT_MODE[mode] if self.structured_output == "auto" else None
                if nxt is not None and (rejection or exc.status_code in (400, 422)):
                    self._drop_mode(mode, nxt, exc, learned=rejection)
                    if not rejection:
                        tentative.append(mode)
                    continue
                if rejection or exc.status_code in (400, 422):
                    for m in tentative:  # the 400 was about something else
                        self.endpoint.learn(m, None)
                    raise self._error(LLMRequestRejected, exc, call) from exc
                retries = await self._retry_or_raise(request, exc, call, retries)
                continue
            except (
                openai.APIConnectionError,
                openai.APIResponseValidationError,
                json.JSONDecodeError,
                TimeoutError,
            ) as exc:
                if trace is not None:
                    error = classify(exc)
                    trace.attempt_errors[error.__name__ if error else type(exc).__name__] += 1
                retries = await self._retry_or_raise(request, exc, call, retries)
                continue
            if self.endpoint.supports(mode) is None and self.endpoint.learn(mode, True):
                logger.info("%s (%s): structured output mode %s works", *self._where(), mode)
            text, usage = reply
            call.usage = Usage(
                call.usage.prompt_tokens + usage.prompt_tokens,
                call.usage.completion_tokens + usage.completion_tokens,
                call.usage.cached_tokens + usage.cached_tokens,
            )
            return text

    def _where(self) -> tuple[str, str]:
        return self.endpoint.base_url, self.model

    def _drop_mode(
        self, mode: Mode, nxt: Mode, exc: openai.APIStatusError, *, learned: bool
    ) -> None:
        news = self.endpoint.learn(mode, False)
        if news and learned:
            logger.warning(
                "%s (%s) rejects response_format %s (%s); using %s from now on",
                *self._where(),
                mode,
                describe(exc),
                nxt,
            )
        else:
            logger.info(
                "%s (%s): %s in mode %s; trying %s", *self._where(), describe(exc), mode, nxt
            )

    async def _retry_or_raise(
        self, request: LLMRequest[Any], exc: BaseException, call: _CallState, retries: int
    ) -> int:
        """Sleep before the next retry and return the new retry count, or raise for good."""
        kind = classify(exc)
        if kind is None:
            raise self._error(LLMRequestRejected, exc, call) from exc
        # a timed-out request is not retried: a local server is most likely still working on
        # it (a retry doubles its load), and the agent is waiting; the heuristic answers
        limit = 0 if kind is LLMTimeout else self.retry.max_retries
        if retries >= limit:
            raise self._error(kind, exc, call) from exc
        call.last_error = (kind, exc)
        retries += 1
        delay = self.retry.delay(retries, self._rng, retry_after(exc))
        logger.info(
            "%s/%s: %s from %s; retry %d/%d in %.2fs",
            request.agent,
            request.module,
            describe(exc),
            self.model,
            retries,
            self.retry.max_retries,
            delay,
        )
        await asyncio.sleep(delay)
        return retries

    @contextlib.asynccontextmanager
    async def _slot(self, estimate: int, module: str, agent: str) -> AsyncIterator[Slot | None]:
        if self.limiter is None:
            yield None
        else:
            async with self.limiter.call_slot(estimate, module=module, agent=agent) as slot:
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
        fmt = response_format(mode, schema, schema_name(request.response_model), strict)
        sent: Any = fmt if fmt is not None else openai.omit
        temperature = self.temperature if self.temperature is not None else request.temperature
        used = 0
        try:
            async with asyncio.timeout(self.timeout_s):
                raw = await self.client.chat.completions.with_raw_response.create(
                    model=self.model,
                    messages=cast(Any, [{"role": m.role, "content": m.content} for m in messages]),
                    response_format=sent,
                    temperature=temperature,
                    max_tokens=request.max_tokens,
                    timeout=self.timeout_s,
                )
            self._observe(raw.headers)  # the endpoint's rate-limit figures pace what follows
            completion = raw.parse()
            text = reply_text(completion)
            usage = reply_usage(completion, messages, text)
            used = usage.total_tokens
            if slot is not None:
                slot.succeeded()
            return text, usage
        except openai.APIStatusError as exc:
            self._observe(exc.response.headers)  # a 429's retry-after holds every request
            if isinstance(exc, openai.RateLimitError) and slot is not None:
                slot.overloaded()
            raise
        except (openai.APITimeoutError, TimeoutError):
            if slot is not None:
                slot.timed_out()
            raise
        finally:
            if slot is not None:
                slot.settle(used)

    def _observe(self, headers: Mapping[str, str]) -> None:
        if self.limiter is not None:
            self.limiter.pacer.observe(headers)

    def _error(self, cls: type[LLMError], exc: BaseException, call: _CallState) -> LLMError:
        status = getattr(exc, "status_code", None)
        return cls(
            f"{self.model}: {describe(exc)} (after {call.attempts} attempt(s))",
            model=self.model,
            attempts=call.attempts,
            usage=call.usage,
            status_code=status if isinstance(status, int) else None,
        )
