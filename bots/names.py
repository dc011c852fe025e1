"""Minecraft player names: 3-16 characters from ``[A-Za-z0-9_]``.

The rule lives with the village configuration (:func:`agent_runtime.config.models.check_minecraft_name`),
which checks names at load time; bodies check again before logging in.
"""

from __future__ import annotations

from agent_runtime.config.models import check_minecraft_name as validate_minecraft_name

__all__ = ["validate_minecraft_name"]
