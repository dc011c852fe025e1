"""A Minecraft server's status (the server-list ping), and the protocol number of a version.

``status_ping(host, port)`` speaks the handshake and status request of the Java edition and
returns the status JSON (its ``version.protocol`` says which Minecraft the server speaks);
``protocol_of(version)`` reads a version's protocol number from minecraft-data;
``PROTOCOLS`` has it for every version the bodies speak; ``served_version(status)`` reads which
Minecraft a server's status answer speaks (the version the bodies would log in with)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import struct
from dataclasses import dataclass
from typing import Any

from agent_runtime.config.models import SUPPORTED_VERSIONS
from bots.node import BOTS_DIR

__all__ = [
    "PROTOCOLS",
    "PROTOCOL_VERSION",
    "ServedVersion",
    "StatusPingError",
    "protocol_of",
    "served_version",
    "status_ping",
    "versions_of_protocol",
]

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


@functools.cache
def versions_of_protocol(protocol: int) -> tuple[str, ...]:
    """The Minecraft releases that speak ``protocol`` and minecraft-data has data for, newest
    first (e.g. 765: 1.20.4, 1.20.3); empty when it knows none."""
    common = _MC_DATA / "pc" / "common" / "protocolVersions.json"
    if not common.exists():
        return tuple(v for v, n in PROTOCOLS.items() if n == protocol)
    paths = json.loads((_MC_DATA / "dataPaths.json").read_text())["pc"]
    rows = json.loads(common.read_text())
    return tuple(
        str(r["minecraftVersion"])
        for r in rows
        if r.get("version") == protocol
        and r.get("releaseType", "release") == "release"
        and "version" in paths.get(r["minecraftVersion"], {})
    )


@dataclass(frozen=True)
class ServedVersion:
    """Which Minecraft a server speaks, from its status answer."""

    label: str  # the server's own name for its version ("1.21.4", "Paper 1.21.4"), cut to 40
    protocol: int | None  # None: the answer had no protocol number
    #: the version bodies log in with: one of PROTOCOLS with this protocol (1.16.4 and 1.16.5
    #: both speak 754), else minecraft-data's release of it named in the label, else its newest
    #: release of it; None when minecraft-data knows no release of this protocol
    version: str | None

    @property
    def shown(self) -> str:
        """For messages: "Minecraft 1.21.4 (protocol 769)"; a label that names no release is
        shown as given, with the release of its protocol ("'Velocity' (protocol 765, as
        Minecraft 1.20.4)")."""
        if self.version is not None and _names(self.label, self.version):
            return f"Minecraft {self.version} (protocol {self.protocol})"
        known = f", as Minecraft {self.version}" if self.version is not None else ""
        return f"{self.label!r} (protocol {self.protocol}{known})"


def served_version(status: dict[str, Any]) -> ServedVersion:
    """What a status answer (:func:`status_ping`) says the server speaks."""
    raw = status.get("version")
    served: dict[str, Any] = raw if isinstance(raw, dict) else {}
    label = str(served.get("name", "an unknown version"))[:40]
    protocol = served.get("protocol")
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        return ServedVersion(label, None, None)
    spoken = [v for v, n in PROTOCOLS.items() if n == protocol]
    known = spoken or list(versions_of_protocol(protocol))
    named = [v for v in known if _names(label, v)]
    if named:
        version: str | None = named[0]
    elif spoken:
        version = spoken[-1]  # the newest the bodies speak (SUPPORTED_VERSIONS is oldest first)
    else:
        version = known[0] if known else None
    return ServedVersion(label, protocol, version)


def _names(label: str, version: str) -> bool:
    """``label`` names ``version`` (not merely a longer one: "1.21.4" does not name "1.21")."""
    at = label.find(version)
    while at >= 0:
        end = at + len(version)
        if (at == 0 or not label[at - 1].isdigit()) and (
            end == len(label) or not (label[end].isdigit() or label[end] == ".")
        ):
            return True
        at = label.find(version, at + 1)
    return False


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
