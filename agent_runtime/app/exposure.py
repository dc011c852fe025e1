"""Players on other machines: when a world's Minecraft port listens beyond loopback
(``world.host`` 0.0.0.0 or a LAN address), the run says so at start, with the address(es)
a player on another computer joins at, each shard's included. The admin API, Redis and
the broker stay on loopback (or behind their passwords) whatever ``world.host`` says."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

__all__ = ["beyond_loopback", "exposure_lines", "join_addresses"]

_ANY = {"0.0.0.0", "::", ""}


def beyond_loopback(host: str) -> bool:
    """True when a server listening on ``host`` can be reached from other computers."""
    if host == "localhost":
        return False
    if host in _ANY:
        return True
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True  # a name: whatever it resolves to, not known to be loopback


def _interface_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (best effort)."""
    try:
        import psutil

        found = [
            a.address
            for addrs in psutil.net_if_addrs().values()
            for a in addrs
            if a.family == socket.AF_INET
        ]
    except (ImportError, OSError):
        found = []
    return sorted({a for a in found if not ipaddress.ip_address(a).is_loopback})


def join_addresses(host: str, port: int) -> list[str]:
    """Where a player on another computer joins a server listening on ``host:port``."""
    if host in _ANY:
        return [f"{a}:{port}" for a in _interface_addresses()] or [f"<this machine>:{port}"]
    return [f"{host}:{port}"]


def exposure_lines(world: Any) -> list[str]:
    """What the run prints at start about a world reachable from other computers (empty
    when every server of ``world`` (a WorldHandle) listens on loopback only)."""
    if world is None or world.kind != "embedded":
        return []
    router = getattr(world, "router", None)
    servers = (
        [(s.name, s.world.host, s.world.port) for s in router.shards]
        if router is not None
        else [(None, world.host, world.port)]
    )
    lines = []
    for shard, host, port in servers:
        if not beyond_loopback(host):
            continue
        where = f"shard {shard}" if shard else "the Minecraft server"
        joins = ", ".join(join_addresses(host, port))
        lines.append(
            f"{where} listens beyond this machine (world.host {host}): players on other "
            f"computers join at {joins} (offline mode)"
        )
    if lines:
        lines.append(
            "refused there: an agent's name in any letter case, a second login under a name "
            "already online, creative-only packets, chat faster than vanilla allows; the admin "
            "API, Redis and the broker stay on loopback"
        )
    return lines
