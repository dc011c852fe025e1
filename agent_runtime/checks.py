"""Checks of a constructor's arguments, with one message: ``<name> must be positive, got <v>``."""

from __future__ import annotations

__all__ = ["require_positive"]


def require_positive(**values: float) -> None:
    """Raise ``ValueError`` naming the first of ``values`` that is not above zero."""
    for name, value in values.items():
        if not value > 0:  # NaN too
            raise ValueError(f"{name} must be positive, got {value}")
