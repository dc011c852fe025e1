"""What a TCP port listens on, read from the kernel (``/proc/net/tcp`` and ``tcp6``).

A check that connects to "another address of this machine" proves nothing on a machine
whose only address is loopback (it loops zero times); the addresses a listening socket is
bound to are what decide who can reach it, on any machine.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

__all__ = ["listening_addresses"]

_LISTEN = "0A"


def _address(hex_addr: str) -> str:
    raw = bytes.fromhex(hex_addr)
    if len(raw) == 4:
        return str(ipaddress.IPv4Address(raw[::-1]))
    # IPv6: four 32-bit words, each in host (little-endian) order
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
    return str(ipaddress.IPv6Address(words))


def listening_addresses(port: int) -> set[str]:
    """The local addresses of every TCP socket listening on ``port`` (IPv4 and IPv6)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state = fields[1], fields[3]
            addr, _, hex_port = local.rpartition(":")
            if state == _LISTEN and int(hex_port, 16) == port:
                found.add(_address(addr))
    return found
