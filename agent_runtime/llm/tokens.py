"""A rough token count, for limits and for servers that omit usage."""

from __future__ import annotations

__all__ = ["estimate_tokens"]


def estimate_tokens(text: str) -> int:
    """Rough token count (4 characters per token) for limits and for servers that omit usage."""
    return max(1, len(text) // 4) if text else 0
