"""A body never sends a server command for words from a model or a player.

The chat skill refuses a line that starts with "/" and the whisper skill a recipient that
is not a Minecraft name (it becomes a ``/tell``), twice: in the skill's typed arguments on
the Python side, and in the body's own skill (``bots/body/skills/chat.js``, for any caller
of the body). Checked on the real embedded server, where a listener hears only the lines
that were meant as chat and the server's inventories show that no command ran, and on the
body's skill alone.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bots.admin import AdminClient
from bots.node import node_executable
from bots.server_host import EmbeddedServer
from bots.transport import JSPyBridgeTransport
from tests.bodies.conftest import connect, next_event, run

pytestmark = [pytest.mark.minecraft]


@pytest.mark.asyncio(loop_scope="module")
async def test_chat_and_whisper_refuse_commands(
    transport: JSPyBridgeTransport, server: EmbeddedServer, admin: AdminClient
) -> None:
    listener = await connect(transport, server, "ear")
    speaker = await connect(transport, server, "mouth")
    for line in (f"/give {speaker.name} diamond 64", "  /op " + speaker.name, "/tell ear hi"):
        out = await run(speaker, "chat", message=line)
        # refused before it reaches the body (the skill's typed arguments)
        assert not out.success and out.failure == "bad_arguments", out
    bad_name = await run(speaker, "whisper", player="ear diamond 64; /op x", message="hi")
    assert not bad_name.success and bad_name.failure == "bad_arguments", bad_name
    # no command ran: nothing was given
    inventory = await admin.inventory(speaker.name)
    assert not any(i["name"] == "diamond" for i in inventory), inventory
    # and the listener's next line from the speaker is the first one meant as chat
    said = await run(speaker, "chat", message="just words")
    assert said.success, said.reason
    heard = await next_event(listener, "chat", where=lambda e: e.data["sender"] == speaker.name)
    assert heard.data["message"] == "just words", heard.data


_CHAT_ALONE = """
const chat = require(process.argv[1] + '/bots/body/skills/chat.js')
const sent = []
const ctx = { bot: { chat: (t) => sent.push(t) } }
const out = []
;(async () => {
  for (const message of JSON.parse(process.argv[2])) {
    try { await chat.run(ctx, { message }); out.push('sent') } catch (e) { out.push(e.kind || String(e)) }
  }
  console.log(JSON.stringify({ out, sent }))
})()
"""


def test_the_body_chat_skill_itself_refuses_a_command() -> None:
    root = str(Path(__file__).resolve().parents[2])
    lines = ["/op ear", "  /give x diamond 64", "hello /op is a word here"]
    done = subprocess.run(
        [str(node_executable()), "-e", _CHAT_ALONE, root, json.dumps(lines)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    result = json.loads(done.stdout)
    assert result["out"] == ["bad_arguments", "bad_arguments", "sent"], result
    assert result["sent"] == ["hello /op is a word here"]
