"""Running the page's server: live (a feed beside uvicorn in one loop) or over a run folder."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import uvicorn

from agent_runtime.app.web.live import LiveFeed
from agent_runtime.app.web.replay import ReplaySource
from agent_runtime.app.web.scene import Scene
from agent_runtime.app.web.server import LiveSource, Source, make_app

__all__ = ["serve_live", "serve_replay", "serve_source"]


def _server(app: object, host: str, port: int) -> uvicorn.Server:
    config = uvicorn.Config(
        app,  # type: ignore[arg-type]
        host=host,
        port=port,
        log_level="warning",
        lifespan="off",
        access_log=False,
        timeout_graceful_shutdown=1,  # open event streams must not hold up a stop
    )
    return uvicorn.Server(config)


async def serve_live(
    *,
    run_id: str,
    redis_url: str,
    mqtt_url: str,
    run_dir: Path | None,
    admin_url: str | None,
    host: str,
    port: int,
) -> None:
    scene = Scene(run_id)
    feed = LiveFeed(
        scene,
        run_id=run_id,
        redis_url=redis_url,
        mqtt_url=mqtt_url,
        run_dir=run_dir,
        admin_url=admin_url,
    )
    server = _server(make_app(LiveSource(scene), view3d=feed.open_view), host, port)
    async with asyncio.TaskGroup() as tg:
        feeding = tg.create_task(feed.run(), name="web.feed")
        try:
            await server.serve()
        finally:
            feeding.cancel()


async def serve_source(source: Source, *, host: str, port: int) -> None:
    server = _server(make_app(source), host, port)
    with contextlib.suppress(asyncio.CancelledError):
        await server.serve()


async def serve_replay(run_dir: Path, *, host: str, port: int) -> None:
    await serve_source(ReplaySource(run_dir), host=host, port=port)
