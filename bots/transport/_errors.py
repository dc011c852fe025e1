"""Exceptions of the bot transport.

    BodyError                 anything that went wrong talking to a body
    ├── BridgeCallError       a bridge call failed or timed out (Node busy, crashed, gone)
    ├── BodyConnectError      a bot could not log in / spawn
    └── BodyClosedError       the body (or its transport) was closed

Skill failures are not exceptions: ``Body.run_skill`` returns a ``SkillOutcome``.
"""

from __future__ import annotations

__all__ = ["BodyClosedError", "BodyConnectError", "BodyError", "BridgeCallError"]


class BodyError(RuntimeError):
    """Base class of transport errors."""


class BridgeCallError(BodyError):
    """A call across the JSPyBridge failed or did not answer in time."""


class BodyConnectError(BodyError):
    """The bot did not spawn on the server."""


class BodyClosedError(BodyError):
    """The body or its transport has been closed."""
