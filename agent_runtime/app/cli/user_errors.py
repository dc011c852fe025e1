"""What a user can fix (the village file, a service, the world, a key, an install): the CLI
says it in one line on stderr and exits with status 2, instead of a traceback."""

from __future__ import annotations

import sys

from agent_runtime.app.run_folder import RunFolderBusy
from agent_runtime.app.world_setup import WorldError
from agent_runtime.config.errors import ConfigError
from agent_runtime.llm.errors import LLMConfigError
from agent_runtime.services import ServiceError
from bots.node import NodeNotFoundError

__all__ = ["STARTUP_ERRORS", "refuse"]

#: What a user can fix besides the village file: one line, exit status 2.
STARTUP_ERRORS: tuple[type[Exception], ...] = (
    ServiceError,
    WorldError,
    LLMConfigError,
    NodeNotFoundError,
    RunFolderBusy,
)


def refuse(err: Exception, who: str) -> int:
    """Say ``err`` on stderr (a :class:`ConfigError` names its file and fields; anything else
    after ``who``, e.g. ``piano run``) and return the exit status, 2."""
    print(err.render() if isinstance(err, ConfigError) else f"{who}: {err}", file=sys.stderr)
    return 2
