"""Minecraft player names: 3-16 characters from ``[A-Za-z0-9_]``."""

from __future__ import annotations

import re

__all__ = ["MINECRAFT_NAME", "validate_minecraft_name"]

MINECRAFT_NAME = re.compile(r"[A-Za-z0-9_]{3,16}")


def validate_minecraft_name(name: str) -> str:
    """Return ``name`` unchanged if it is a valid Minecraft player name, else raise ValueError."""
    if not isinstance(name, str):
        raise ValueError(f"Minecraft name must be a string, got {type(name).__name__}")
    if MINECRAFT_NAME.fullmatch(name):
        return name
    if not 3 <= len(name) <= 16:
        raise ValueError(
            f"invalid Minecraft name {name!r}: must be 3-16 characters long (got {len(name)})"
        )
    bad = sorted({ch for ch in name if not (ch.isascii() and (ch.isalnum() or ch == "_"))})
    raise ValueError(
        f"invalid Minecraft name {name!r}: only letters A-Z/a-z, digits and '_' are allowed "
        f"(found {', '.join(repr(c) for c in bad)})"
    )
