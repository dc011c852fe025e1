"""The HTTP side of the page (Starlette, served by uvicorn on loopback).

| route                       | answer                                                        |
|-----------------------------|---------------------------------------------------------------|
| ``GET /``                   | the page (``static/index.html``; plain JS + SVG, no build)    |
| ``GET /static/...``         | its script and style                                          |
| ``GET /health``             | ``{ok: true}`` (readiness probe)                              |
| ``GET /api/info``           | ``{mode: live|replay, run_id, t0, t1, agents}``               |
| ``GET /api/scene?t=&agent=``| one snapshot (replay: at time ``t``), with ``agent``'s panel  |
| ``GET /api/stream?agent=``  | live: server-sent events, one snapshot every ``interval_s``   |
| ``POST /api/view3d?agent=`` | live: a 3D view from the agent's eyes, ``{url}`` (or 4xx/5xx) |

A snapshot is ``Scene.summary()`` plus ``detail`` (the selected agent's panel). The
stream sends at a fixed rate whatever happened in between, so 50 chatty agents cost the
browser the same as 5: a batch every half second.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agent_runtime.app.web.scene import Scene
from agent_runtime.clock import wall_time

__all__ = ["LiveSource", "Source", "make_app"]

STATIC = Path(__file__).with_name("static")


class Source(Protocol):
    def info(self) -> dict[str, Any]: ...

    def snapshot(self, t: float, agent: str | None) -> dict[str, Any]: ...


class LiveSource:
    """A scene that a ``LiveFeed`` keeps current; snapshots are taken at the wall clock."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene

    def info(self) -> dict[str, Any]:
        return {"mode": "live", "run_id": self.scene.run_id, "agents": sorted(self.scene.agents)}

    def snapshot(self, t: float, agent: str | None) -> dict[str, Any]:
        out = self.scene.summary(wall_time())
        out["detail"] = self.scene.detail(agent) if agent else None
        out["mode"] = "live"
        return out


def _dumps(obj: Any) -> str:
    return json.dumps(obj, default=str, separators=(",", ":"))


#: asks the process holding an agent's body for a 3D view: ``{url}`` or ``{error}``
ViewOpener = Callable[[str], Awaitable[dict[str, Any]]]


def make_app(
    source: Source, *, interval_s: float = 0.5, view3d: ViewOpener | None = None
) -> Starlette:
    """The page's app over a live or replay ``source`` (3D views only when live)."""

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def info(request: Request) -> Response:
        return JSONResponse(source.info())

    def _agent(request: Request) -> str | None:
        return request.query_params.get("agent") or None

    async def scene(request: Request) -> Response:
        try:
            t = float(request.query_params.get("t", "inf"))
        except ValueError:
            return JSONResponse({"error": "t must be a number"}, status_code=400)
        out = source.snapshot(t, _agent(request))
        return Response(_dumps(out), media_type="application/json")

    async def stream(request: Request) -> Response:
        agent = _agent(request)

        async def events() -> AsyncIterator[str]:
            while True:
                out = source.snapshot(wall_time(), agent)
                yield f"data: {_dumps(out)}\n\n"
                await asyncio.sleep(interval_s)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(events(), media_type="text/event-stream", headers=headers)

    async def open_view3d(request: Request) -> Response:
        agent = _agent(request)
        if view3d is None:
            return JSONResponse({"error": "3D views exist only on a live village"}, 404)
        if agent is None:
            return JSONResponse({"error": "which agent? (?agent=NAME)"}, 400)
        answer = await view3d(agent)
        return JSONResponse(answer, status_code=200 if "url" in answer else 503)

    routes = [
        Route("/", index),
        Route("/health", health),
        Route("/favicon.ico", favicon),
        Route("/api/info", info),
        Route("/api/scene", scene),
        Route("/api/stream", stream),
        Route("/api/view3d", open_view3d, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)
