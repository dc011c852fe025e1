"""3D views on request: the process that holds an agent's body answers the web page.

The page (its own process) publishes ``topics.view3d_request(run, agent)``; the process
whose village (or worker) holds that agent's body starts a prismarine-viewer server inside
the body's Node process (``Body.open_viewer``, loopback only, once per body) and answers on
``topics.view3d(run, agent)`` with a ``View3dAnswer`` (its ``url`` or its ``error``). Processes that do
not hold the body stay silent, so the one answer comes from the right worker. Nothing here
runs unless someone asks: an unwatched village pays for one idle subscription.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping

from agent_runtime.bus import topics
from agent_runtime.bus.messages import View3dAnswer
from agent_runtime.interfaces import Body, Bus, Subscription

__all__ = ["ViewDesk"]

log = logging.getLogger(__name__)

#: the longest a viewer may take to start before the page is told it failed
START_TIMEOUT_S = 20.0


class ViewDesk:
    """Async context manager: answers 3D-view requests for the bodies in ``bodies``."""

    def __init__(self, bus: Bus, run_id: str, bodies: Mapping[str, Body]) -> None:
        self.bus = bus
        self.run_id = run_id
        self.bodies = bodies
        self.answered = 0
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> ViewDesk:
        sub = self.bus.subscribe(topics.view3d_request(self.run_id, "+"), maxsize=64)
        self._task = asyncio.create_task(self._serve(sub), name="village.view3d")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _serve(self, sub: Subscription) -> None:
        try:
            async for msg in sub:
                name = msg.topic.split("/")[3]
                body = self.bodies.get(name)
                if body is not None:
                    await self._answer(name, body)
        finally:
            sub.close()

    async def _answer(self, name: str, body: Body) -> None:
        try:
            async with asyncio.timeout(START_TIMEOUT_S):
                port = await body.open_viewer()
            reply = View3dAnswer(agent=name, url=f"http://127.0.0.1:{port}/")
        except NotImplementedError as err:
            reply = View3dAnswer(agent=name, error=str(err))
        except Exception as err:  # a body that cannot serve a view: the page says why
            log.info("3D view for %s failed: %s", name, err)
            reply = View3dAnswer(agent=name, error=f"3D view failed: {err}")
        await self.bus.publish(topics.view3d(self.run_id, name), reply)
        self.answered += 1
