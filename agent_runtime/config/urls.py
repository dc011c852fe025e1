"""Service URLs as they may be shown: never with a password or token in them."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["public_url"]


def public_url(url: str) -> str:
    """``url`` without the secret part of its user info (``redis://:pw@h`` -> ``redis://***@h``).

    Anything that is not a URL with a host is returned unchanged (``embedded``, paths)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not parts.netloc or "@" not in parts.netloc:
        return url
    userinfo, host = parts.netloc.rsplit("@", 1)
    user = userinfo.split(":", 1)[0] if ":" in userinfo else ""
    shown = f"{user}:***" if user else "***"
    return urlunsplit(parts._replace(netloc=f"{shown}@{host}"))
