"""The one restart loop of the processes a run owns on its machine: an embedded service
(Redis, the broker) or the embedded Minecraft server.

A :class:`Supervised` owner says how to find its running process, whether a stop was asked
for, and how to start again; :meth:`Supervised.supervise` waits for the process to exit and,
when nobody asked, starts it again (after ``first_backoff`` seconds, doubling up to
``max_backoff`` while restarts fail), counts the restart and tells ``on_restart``.
"""

from __future__ import annotations

import abc
import asyncio
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


class Supervised(abc.ABC):
    """An owner of one child process that :meth:`supervise` keeps running."""

    #: the wait before the first attempt to start again, and its cap while attempts fail
    first_backoff: float = 0.5
    max_backoff: float = 10.0
    #: what a failed start raises (anything else ends the supervision)
    start_error: type[Exception] = Exception
    restarts: int

    @abc.abstractmethod
    def _running(self) -> asyncio.subprocess.Process | None:
        """The process now, or None when there is none to watch."""

    @abc.abstractmethod
    def _stop_asked(self) -> bool:
        """Whether the process was stopped on purpose (then it is not started again)."""

    @abc.abstractmethod
    async def _start_again(self) -> None:
        """Start the process again on the same folder and ports; raises ``start_error``."""

    @abc.abstractmethod
    def _restarted(self, code: int) -> str:
        """The message ``on_restart`` is told after a restart of a process that exited with
        ``code``."""

    def _name(self) -> str:
        return type(self).__name__

    async def _exited(self) -> None:
        """Called when the process exited unasked, before the wait and the new start."""
        return None

    async def supervise(
        self, on_restart: Callable[[str], None] | None = None, *, max_backoff: float | None = None
    ) -> None:
        """Run beside the process until it is stopped on purpose; see the module's doc."""
        cap = self.max_backoff if max_backoff is None else max_backoff
        backoff = self.first_backoff
        while not self._stop_asked():
            proc = self._running()
            if proc is None:
                return
            code = await proc.wait()
            if self._stop_asked():
                return
            log.warning("%s (pid %s) exited with %s; restarting", self._name(), proc.pid, code)
            await self._exited()
            await asyncio.sleep(backoff)
            try:
                await self._start_again()
            except self.start_error as err:
                backoff = min(cap, backoff * 2)
                log.warning("%s did not come back: %s", self._name(), err)
                continue
            backoff = self.first_backoff
            self.restarts += 1
            if on_restart is not None:
                on_restart(self._restarted(code))
