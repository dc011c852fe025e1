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
import re
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import openai
from openai import AsyncOpenAI
from pydantic import ValidationError

from agent_runtime.interfaces import LanguageModel, LLMRequest, LLMResult, Message, T, Usage
from agent_runtime.llm._schema import (
    close_truncated,
    extract_json,
    grammar_schema,
    schema_name,
    strict_json_schema,
)
from agent_runtime.llm.calls import current_options, current_trace
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
from agent_runtime.prompts import prompt_path, render_text

__all__ = [
    "MODES",
    "EndpointState",
    "Mode",
    "OpenAILanguageModel",
    "RetryPolicy",
    "StructuredOutput",
    "estimate_tokens",
    "is_format_rejection",
]

logger = logging.getLogger(__name__)

Mode = Literal["json_schema", "json_object_schema", "json_object", "prompt"]
StructuredOutput = Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"]
#: Best first; ``auto`` walks down this list per (endpoint, model).
MODES: tuple[Mode, ...] = ("json_schema", "json_object_schema", "json_object", "prompt")
_NEXT_MODE: dict[Mode, Mode | None] = {
    "json_schema": "json_object_schema",
    "json_object_schema": "json_object",
    "json_object": "prompt",
    "prompt": None,
}
_FORMAT_STATUSES = frozenset({400, 422, 500})
_FORMAT_WORDS = re.compile(
    r"response_format|response format|json_schema|json_object|schema|grammar|"
    r"input should be 'text'|'text' or",
    re.IGNORECASE,
)


def estimate_tokens(text: str) -> int:
    """Rough token count (4 characters per token) for limits and for servers that omit usage."""
    return max(1, len(text) // 4) if text else 0


@dataclass(slots=True)
class EndpointState:
    """What has been learned about one (endpoint, model); shared by every module using it."""

    base_url: str
    model: str = ""
    modes: dict[str, bool | None] = field(default_factory=dict)  # mode -> supported (None: ?)

    @property
    def json_schema(self) -> bool | None:
        return self.modes.get("json_schema")

    def supports(self, mode: Mode) -> bool | None:
        return True if mode == "prompt" else self.modes.get(mode)

    def learn(self, mode: Mode, supported: bool | None) -> bool:
        """Record what ``mode`` did; True if that is news (the caller logs it once)."""
        if mode == "prompt":
            return False
        old = self.modes.get(mode)
        self.modes[mode] = supported
        return old != supported and supported is not None

    @property
    def working_mode(self) -> Mode | None:
        """The best mode known to work, if any."""
        for mode in MODES:
            if self.supports(mode):
                return mode
        return None

    def snapshot(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "model": self.model,
            "modes": {m: self.modes.get(m) for m in MODES if m != "prompt"},
            "working_mode": self.working_mode,
        }


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
    cached_tokens: int = 0
    last_error: tuple[type[LLMError], BaseException] | None = None  # being retried

    @property
    def usage(self) -> Usage:
        return Usage(self.prompt_tokens, self.completion_tokens, self.cached_tokens)


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
                Message("user", render_text(prompt_path("agent_runtime.llm", "repair"), {"error": first.detail})),
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
        tentative: list[Mode] = []  # modes dropped on a 400/422 not clearly about the format
        trace = current_trace()
        while True:
            mode = self._mode()
            messages = _messages(turns, mode, schema)
            estimate = sum(estimate_tokens(m.content) for m in messages) + request.max_tokens
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
                nxt = _NEXT_MODE[mode] if self.structured_output == "auto" else None
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
                    error = _classify(exc)
                    trace.attempt_errors[error.__name__ if error else type(exc).__name__] += 1
                retries = await self._retry_or_raise(request, exc, call, retries)
                continue
            if self.endpoint.supports(mode) is None and self.endpoint.learn(mode, True):
                logger.info("%s (%s): structured output mode %s works", *self._where(), mode)
            call.prompt_tokens += reply[1].prompt_tokens
            call.completion_tokens += reply[1].completion_tokens
            call.cached_tokens += reply[1].cached_tokens
            return reply[0]

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
                _short(exc),
                nxt,
            )
        else:
            logger.info("%s (%s): %s in mode %s; trying %s", *self._where(), _short(exc), mode, nxt)

    async def _retry_or_raise(
        self, request: LLMRequest[Any], exc: BaseException, call: _CallState, retries: int
    ) -> int:
        """Sleep before the next retry and return the new retry count, or raise for good."""
        kind = _classify(exc)
        if kind is None:
            raise self._error(LLMRequestRejected, exc, call) from exc
        # a timed-out request is not retried: a local server is most likely still working on
        # it (a retry doubles its load), and the agent is waiting; the heuristic answers
        limit = 0 if kind is LLMTimeout else self.retry.max_retries
        if retries >= limit:
            raise self._error(kind, exc, call) from exc
        call.last_error = (kind, exc)
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
        return retries

    @contextlib.asynccontextmanager
    async def _slot(self, estimate: int, module: str, agent: str) -> AsyncIterator[Slot | None]:
        if self.limiter is None:
            yield None
        else:
            options = current_options()
            async with self.limiter.slot(
                estimate,
                module=module,
                priority=options.priority,
                deadline_s=options.deadline_s,
                agent=agent,
            ) as slot:
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
        elif mode == "json_object_schema":
            response_format = {"type": "json_object", "schema": grammar_schema(schema)}
        elif mode == "json_object":
            response_format = {"type": "json_object"}
        temperature = self.temperature if self.temperature is not None else request.temperature
        used = 0
        try:
            async with asyncio.timeout(self.timeout_s):
                raw = await self.client.chat.completions.with_raw_response.create(
                    model=self.model,
                    messages=cast(Any, [{"role": m.role, "content": m.content} for m in messages]),
                    response_format=response_format,
                    temperature=temperature,
                    max_tokens=request.max_tokens,
                    timeout=self.timeout_s,
                )
            self._observe(raw.headers)  # the endpoint's rate-limit figures pace what follows
            completion = raw.parse()
            if not completion.choices:
                text = ""
            else:
                message = completion.choices[0].message
                text = message.content or ""
                if not text and message.refusal:
                    text = f"(refused: {message.refusal})"
            if completion.usage is not None:
                details = completion.usage.prompt_tokens_details
                cached = details.cached_tokens if details is not None else None
                usage = Usage(
                    completion.usage.prompt_tokens,
                    completion.usage.completion_tokens,
                    cached or 0,
                )
            else:
                usage = Usage(
                    sum(estimate_tokens(m.content) for m in messages), estimate_tokens(text)
                )
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
            f"{self.model}: {_short(exc)} (after {call.attempts} attempt(s))",
            model=self.model,
            attempts=call.attempts,
            usage=call.usage,
            status_code=status if isinstance(status, int) else None,
        )


# --- helpers ------------------------------------------------------------------------------


def is_format_rejection(exc: BaseException) -> bool:
    """True if an HTTP error says the endpoint does not accept the ``response_format`` sent."""
    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in _FORMAT_STATUSES:
        return False
    text = exc.message
    body = exc.body
    if body is not None:
        text += " " + json.dumps(body, default=str)
    return _FORMAT_WORDS.search(text) is not None


def _messages(turns: list[Message], mode: Mode, schema: dict[str, Any]) -> list[Message]:
    if mode == "json_schema":
        return turns
    if mode == "json_object_schema":
        # the server's grammar enforces the schema; the field names tell the model what
        # it is filling in, at a fraction of the schema's prompt tokens
        props = schema.get("properties", {})
        required = set(grammar_schema(schema).get("required", ()))
        fields = ", ".join(k for k in props if k in required) or "(none)"
        optional = ", ".join(k for k in props if k not in required) or "(none)"
        text = render_text(
            prompt_path("agent_runtime.llm", "json_fields"), {"fields": fields, "optional": optional}
        )
    else:
        # JSON mode / prompt mode: the whole schema travels as an instruction
        # (OpenAI's JSON mode also requires the word "JSON" in the messages).
        text = render_text(
            prompt_path("agent_runtime.llm", "json_reply"),
            {"schema": json.dumps(schema, separators=(",", ":"))},
        )
    instruction = Message("system", text)
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
        # raw newlines or tabs inside strings (some grammars let them through) are
        # harmless: read them leniently instead of asking the model for a repair
        try:
            data = json.loads(text, strict=False)
        except ValueError:
            # a reply cut off at max_tokens (a small model repeating itself inside a
            # string): the members it finished are read, and the schema still decides
            closed = close_truncated(text)
            if closed is None:
                raise _Invalid(f"not valid JSON: {errors[0].get('msg', '')}") from None
            data = json.loads(closed, strict=False)
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            errors = exc.errors(include_url=False, include_input=False)
    detail = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in errors[:8]
    )
    raise _Invalid(f"does not match the schema: {detail}")


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
