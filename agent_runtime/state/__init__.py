"""Agent State: typed sections (:mod:`.sections`) in Redis (:mod:`.keys`, :mod:`.store`)."""

from agent_runtime.state.sections import SECTION_MODELS, SECTION_WRITERS, Section
from agent_runtime.state.store import AgentState, SectionOwnershipError, StateStore

__all__ = [
    "SECTION_MODELS",
    "SECTION_WRITERS",
    "AgentState",
    "Section",
    "SectionOwnershipError",
    "StateStore",
]
