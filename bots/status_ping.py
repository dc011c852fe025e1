"""A Minecraft server's status (the server-list ping), and the protocol number of a version.

``status_ping(host, port)`` speaks the handshake and status request of the Java edition and
returns the status JSON (its ``version.protocol`` says which Minecraft the server speaks);
``protocol_of(version)`` reads a version's protocol number from minecraft-data;
``PROTOCOLS`` has it for every version the bodies speak."""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct
from typing import Any

from agent_runtime.config.models import SUPPORTED_VERSIONS
from bots.node import BOTS_DIR

__all__ = ["PROTOCOLS", "PROTOCOL_VERSION", "StatusPingError", "protocol_of", "status_ping"]

_MC_DATA = BOTS_DIR / "node_modules" / "minecraft-data" / "minecraft-data" / "data"


class StatusPingError(ValueError):
    """The server answered the ping, but not as a Minecraft server does."""


def protocol_of(version: str) -> int:
    """The protocol number of Minecraft ``version`` (Java edition), from minecraft-data."""
    paths = json.loads((_MC_DATA / "dataPaths.json").read_text())["pc"]
    if version not in paths or "version" not in paths[version]:
        raise ValueError(f"minecraft-data knows no Minecraft {version}")
    data = json.loads((_MC_DATA / paths[version]["version"] / "version.json").read_text())
    return int(data["version"])


PROTOCOL_VERSION = 754  # Minecraft 1.16.5: the status ping's handshake (any number answers)
#: Minecraft version -> protocol number, for the versions the bodies speak (a server that
#: answers the status ping with another protocol would drop every body at login)
PROTOCOLS: dict[str, int] = (
    {v: protocol_of(v) for v in SUPPORTED_VERSIONS}
    if (_MC_DATA / "dataPaths.json").exists()
    else {"1.16.5": PROTOCOL_VERSION}
)


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= 0xFFFFFFFF
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


async def _read_varint(reader: asyncio.StreamReader) -> int:
    result = 0
    for i in range(5):
        byte = (await reader.readexactly(1))[0]
        result |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return result
    raise StatusPingError("bad varint from server")


def _packet(packet_id: int, payload: bytes) -> bytes:
    body = _varint(packet_id) + payload
    return _varint(len(body)) + body


async def status_ping(host: str, port: int, *, within: float = 5.0) -> dict[str, Any]:
    """Minecraft server-list ping (fails after ``within`` seconds); returns the status JSON."""
    async with asyncio.timeout(within):
        reader, writer = await asyncio.open_connection(host, port)
        try:
            addr = host.encode()
            handshake = (
                _varint(PROTOCOL_VERSION)
                + _varint(len(addr))
                + addr
                + struct.pack(">H", port)
                + _varint(1)
            )
            writer.write(_packet(0, handshake) + _packet(0, b""))
            await writer.drain()
            await _read_varint(reader)  # packet length
            if await _read_varint(reader) != 0:
                raise StatusPingError("unexpected status packet")
            size = await _read_varint(reader)
            data = await reader.readexactly(size)
            status: dict[str, Any] = json.loads(data.decode())
            return status
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
