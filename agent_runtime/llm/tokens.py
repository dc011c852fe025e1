"""A rough token count, for limits and for servers that omit usage."""

from __future__ import annotations

from collections.abc import Iterable

from agent_runtime.interfaces import Message

__all__ = ["estimate_tokens", "request_tokens"]


def estimate_tokens(text: str) -> int:
    """Rough token count (4 characters per token) for limits and for servers that omit usage."""
    return max(1, len(text) // 4) if text else 0


def request_tokens(messages: Iterable[Message], max_tokens: int) -> int:
    """What a request may use at the most, as a limiter's slot takes it up front: its
    messages (estimated) and the longest reply it allows."""
    return sum(estimate_tokens(m.content) for m in messages) + max_tokens
