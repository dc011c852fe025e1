"""A snapshot comes from the body worker as its JSON text (``bots/body/group.js``:
``observeMany``) and the body validates it from the text in one pass; the observation is the
one the same snapshot gives as an object, and an error still comes as an object. No server:
the transport's batch dispatch is fed the batch a body host sends."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agent_runtime.interfaces import BotSpec
from agent_runtime.world import Observation
from bots.transport import JSPyBridgeTransport, MineflayerBody
from bots.transport._errors import BodyError

_SNAPSHOT: dict[str, Any] = {
    "at": 1796210180.667,
    "connected": True,
    "position": {"x": 12.5, "y": 64, "z": -3.25},
    "health": 20,
    "food": 18.5,
    "time_of_day": 6000,
    "inventory": {"oak_log": 3, "cobblestone": 12},
    "held_item": "wooden_pickaxe",
    "players": [{"name": "Ada", "position": {"x": 1, "y": 64, "z": 2}, "distance": 11.7}],
    "entities": [{"id": 7, "kind": "item", "position": {"x": 0, "y": 64, "z": 0}, "distance": 3}],
    "blocks": [{"name": "oak_log", "position": {"x": 3, "y": 65, "z": 1}, "distance": 9.1}],
    "chat": [{"sender": "Ada", "message": 'say "hi" \\ \u00e9', "whisper": False, "at": 1.5}],
    "skill": {"skill": "collect", "started_at": 1.0, "progress": 0.4, "detail": "digging"},
}


async def _observed_through_a_batch(value: object) -> Observation:
    transport = JSPyBridgeTransport()
    transport._loop = asyncio.get_running_loop()
    transport._open = True
    body = MineflayerBody(transport, BotSpec("Seer"), event_queue_size=4)
    transport._bodies[body.name] = body
    ticket = 1

    async def answer(method: str, *args: Any, limit: float | None = None) -> str:
        assert method == "observeMany" and json.loads(args[1]) == [body.name]
        batch = [{"type": "observations", "ticket": args[0], "data": {body.name: value}}]
        asyncio.get_running_loop().call_soon(transport._dispatch, json.dumps(batch))
        return "started"

    transport._call = answer  # type: ignore[method-assign]
    transport._obs_tickets = iter(range(ticket, ticket + 1))  # type: ignore[assignment]
    return await body.observe()


async def test_a_snapshot_sent_as_text_is_the_observation_sent_as_an_object() -> None:
    as_text = await _observed_through_a_batch(json.dumps(_SNAPSHOT))
    as_object = await _observed_through_a_batch(_SNAPSHOT)
    assert as_text == as_object == Observation.model_validate(_SNAPSHOT)
    assert as_text.chat[0].message == 'say "hi" \\ \u00e9'


async def test_an_error_still_comes_as_an_object() -> None:
    with pytest.raises(BodyError, match="observe failed: no body"):
        await _observed_through_a_batch({"error": 'no body "Seer"'})
