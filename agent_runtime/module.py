"""A PIANO module (:class:`Module`) and when it runs (:class:`Schedule`): a step function over
its agent's state, run by :class:`agent_runtime.scheduling.ModuleRunner`."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agent_runtime.module_context import ModuleContext

__all__ = ["Module", "Schedule"]


@dataclass(frozen=True, slots=True)
class Schedule:
    """When a module runs: every ``cadence`` seconds (jittered to ``cadence_max``) and/or on triggers.

    ``triggers`` name state sections (``"state:perception"``) or bus kinds
    (``"bus:decision"``, ``"bus:chat"``) whose arrival wakes the module early.
    """

    cadence: float | None = 1.0
    cadence_max: float | None = None
    triggers: frozenset[str] = field(default_factory=frozenset)
    min_interval: float = 0.0  # debounce for triggers


class Module(abc.ABC):
    """A concurrent PIANO module: a step function over the shared Agent State.

    Subclasses declare which state sections they read and which they write
    (each section has exactly one writer). ``step`` is called on the module's
    schedule; it must not block the event loop.
    """

    name: ClassVar[str]
    reads: ClassVar[frozenset[str]] = frozenset()
    writes: ClassVar[frozenset[str]] = frozenset()
    #: the module keeps the agent's memory stream: its context carries the memory store
    keeps_memory: ClassVar[bool] = False

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule

    def sections_read(self) -> frozenset[str]:
        """The sections its context lets it read: ``reads`` (and ``writes``), or more for a
        module whose settings name what it reads (the controller's bottleneck)."""
        return type(self).reads

    async def setup(self, ctx: ModuleContext) -> None:  # noqa: B027 - optional hook
        """Called once before the first step (subscriptions, seed data)."""

    @abc.abstractmethod
    async def step(self, ctx: ModuleContext) -> None: ...

    async def teardown(self, ctx: ModuleContext) -> None:  # noqa: B027 - optional hook
        """Called once on shutdown, after the last step."""

    def get_state(self) -> dict[str, Any]:
        """Private state for checkpoints (JSON-serialisable)."""
        return {}

    def set_state(self, state: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook
        """Restore private state from a checkpoint."""
