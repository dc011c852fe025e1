"""When a failed request is tried again: the backoff, and which errors are retryable.

:class:`RetryPolicy` gives capped, jittered exponential delays (a server's ``Retry-After``
raises them up to the cap); :func:`classify` maps an error to the :class:`LLMError` raised
once retries are spent (None: not retryable); :func:`retry_after` reads the header;
:func:`describe` is the short form of an error for logs and messages.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

import openai

from agent_runtime.llm.errors import (
    LLMConnectionError,
    LLMError,
    LLMRateLimited,
    LLMServerError,
    LLMTimeout,
)

__all__ = ["RetryPolicy", "classify", "describe", "retry_after"]


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


def classify(exc: BaseException) -> type[LLMError] | None:
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


def retry_after(exc: BaseException) -> float | None:
    """The seconds an HTTP error's ``Retry-After`` header asks for, if it has a number."""
    if not isinstance(exc, openai.APIStatusError):
        return None
    value = exc.response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def describe(exc: BaseException) -> str:
    """An error in a few words: "timed out", "HTTP 429: ...", "<type>: ..."."""
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message[:200]}"
    return f"{type(exc).__name__}: {str(exc)[:200]}"
