"""The 3D-view desk answers a request on the bus with a typed answer, only for its bodies."""

from __future__ import annotations

import asyncio

from agent_runtime.app.view3d import ViewDesk
from agent_runtime.body.null import NullBody
from agent_runtime.bus import InMemoryBus, topics
from agent_runtime.bus.messages import View3dAnswer, View3dRequest
from agent_runtime.interfaces import Body


class EyedBody(NullBody):
    async def open_viewer(self) -> int:
        return 4321


async def test_the_desk_answers_with_a_url_or_why_not() -> None:
    bus = InMemoryBus()
    bodies: dict[str, Body] = {"Ann": EyedBody("Ann"), "Bob": NullBody("Bob")}
    answers = bus.subscribe(topics.view3d(RUN, "+"))
    async with ViewDesk(bus, RUN, bodies):
        for name in ("Ann", "Bob", "Cy"):  # Cy's body is not here: no answer from this desk
            await bus.publish(topics.view3d_request(RUN, name), View3dRequest())
        async with asyncio.timeout(5):
            got = [(await answers.get()).payload for _ in range(2)]
    assert got[0] == View3dAnswer(agent="Ann", url="http://127.0.0.1:4321/")
    assert isinstance(got[1], View3dAnswer) and got[1].agent == "Bob" and got[1].url is None
    assert got[1].error is not None and "no 3D view" in got[1].error
    assert answers.get_nowait() is None


RUN = "r1"
