"""Client for the embedded server's admin HTTP API (loopback only; see bots/server/README.md).

::

    async with AdminClient(server.admin_url) as admin:
        inv = await admin.inventory("alice")
        await admin.command("/give alice oak_log 4")

The API answers only requests that carry its per-run token (``Authorization: Bearer``).
``EmbeddedServer.admin_url`` carries it as the URL's password
(``http://piano:TOKEN@127.0.0.1:PORT``), which this client turns into the header; show
URLs with :func:`agent_runtime.config.urls.public_url`, never as they are.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from agent_runtime.checks import require_positive
from agent_runtime.config.urls import public_url

__all__ = ["AdminClient", "AdminError"]


class AdminError(RuntimeError):
    """The admin API answered with an error (``status`` is the HTTP status)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"admin API error {status}: {message}")
        self.status = status
        self.message = message


class AdminClient:
    """Async client for one server's admin API; an async context manager."""

    def __init__(self, base_url: str, *, token: str | None = None, timeout: float = 10.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or parts.hostname not in {"127.0.0.1", "localhost", "::1"}:
            raise ValueError(f"admin API is loopback-only http, got {public_url(base_url)!r}")
        require_positive(timeout=timeout)
        self.token = token or parts.password
        host = parts.hostname if parts.hostname != "::1" else "[::1]"
        netloc = f"{host}:{parts.port}" if parts.port else host
        self.base_url = urlunsplit(parts._replace(netloc=netloc)).rstrip("/")
        self.timeout = timeout
        self._client: httpx.AsyncClient | None = None

    async def __aenter__(self) -> AdminClient:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        self._client = httpx.AsyncClient(
            base_url=self.base_url, timeout=self.timeout, headers=headers
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        if self._client is None:
            raise RuntimeError("use `async with AdminClient(...)`")
        response = await self._client.request(method, path, json=body)
        try:
            data = response.json()
        except ValueError:
            raise AdminError(response.status_code, response.text[:200]) from None
        if response.status_code >= 400:
            raise AdminError(response.status_code, str(data.get("error", data)))
        return data

    async def health(self) -> dict[str, Any]:
        result: dict[str, Any] = await self._request("GET", "/health")
        return result

    async def players(self) -> list[dict[str, Any]]:
        """Connected players: username, uuid, position, health, food, gameMode."""
        result: list[dict[str, Any]] = (await self._request("GET", "/players"))["players"]
        return result

    async def inventory(self, player: str) -> list[dict[str, Any]]:
        """The player's items: ``[{slot, name, count}]`` (slots are window-0 numbers)."""
        data = await self._request("GET", f"/players/{quote(player, safe='')}/inventory")
        result: list[dict[str, Any]] = data["items"]
        return result

    async def returning(self, player: str) -> bool:
        """Whether the world had this online player's file before its current login."""
        data = await self._request("GET", f"/players/{quote(player, safe='')}/inventory")
        return bool(data.get("returning", False))

    async def teleport(self, player: str, x: float, y: float, z: float) -> None:
        """Move an online player (agents' spawn locations on the embedded world)."""
        await self._request(
            "POST", f"/players/{quote(player, safe='')}/teleport", {"x": x, "y": y, "z": z}
        )

    async def position(self, player: str) -> tuple[float, float, float]:
        data = await self._request("GET", f"/players/{quote(player, safe='')}/position")
        return (float(data["x"]), float(data["y"]), float(data["z"]))

    async def chest(self, x: int, y: int, z: int) -> list[dict[str, Any]]:
        """Items in the chest (or furnace) at a block position: ``[{slot, name, count}]``."""
        data = await self._request("GET", f"/containers/{x}/{y}/{z}")
        result: list[dict[str, Any]] = data["items"]
        return result

    async def container(self, x: int, y: int, z: int) -> dict[str, Any]:
        """Full container record (type, items, furnace progress)."""
        result: dict[str, Any] = await self._request("GET", f"/containers/{x}/{y}/{z}")
        return result

    async def entities(
        self, near: tuple[float, float, float] | None = None, radius: float = 16.0
    ) -> list[dict[str, Any]]:
        """Non-player entities (mobs, dropped items with ``item: {name, count}``), optionally near a point."""
        params = ""
        if near is not None:
            params = f"?near={near[0]},{near[1]},{near[2]}&radius={radius}"
        result: list[dict[str, Any]] = (await self._request("GET", f"/entities{params}"))[
            "entities"
        ]
        return result

    async def refusals(self) -> dict[str, Any]:
        """What the server refused players since it started:
        ``{"total": n, "byKind": {kind: n}, "byPlayer": {username: n}}``."""
        result: dict[str, Any] = await self._request("GET", "/refusals")
        return result

    async def places(self) -> dict[str, Any]:
        result: dict[str, Any] = await self._request("GET", "/places")
        return result

    async def command(self, command: str) -> str | None:
        """Run a server command as the console (op), e.g. ``/give bob stone 3``."""
        data = await self._request("POST", "/command", {"command": command})
        output = data.get("output")
        return None if output is None else str(output)

    async def restore(self, x: float, z: float, radius: float) -> int:
        """Put the generated blocks back within ``radius`` (<= 64) of x, z (all heights);
        returns how many blocks were changed. Containers, entities and players stay."""
        data = await self._request("POST", "/world/restore", {"x": x, "z": z, "radius": radius})
        return int(data["changed"])

    async def broadcast(self, message: str) -> None:
        await self._request("POST", "/broadcast", {"message": message})

    async def set_time(self, time: int | str) -> int:
        """Set the day time (ticks 0..23999 or day/noon/night/midnight); returns the new time."""
        data = await self._request("POST", "/time", {"time": time})
        return int(data["time"])

    async def time(self) -> int:
        return int((await self._request("GET", "/time"))["time"])
