"""Free loopback ports and readiness probes."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


async def wait_for_port(host: str, port: int, limit_s: float) -> None:
    """Return once a TCP connection to ``host:port`` succeeds; raise TimeoutError after ``timeout``."""
    deadline = time.monotonic() + limit_s
    delay = 0.02
    while True:
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout=1.0)
        except (OSError, TimeoutError):
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"nothing listens on {host}:{port} after {limit_s:.0f}s"
                ) from None
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.25)
            continue
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return
