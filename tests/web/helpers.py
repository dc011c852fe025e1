"""Shared steps of the page tests: serve a replay as a child process, read the map."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from playwright.async_api import Page

from agent_runtime.services.ports import free_port, wait_for_port
from agent_runtime.services.process import ChildProcess


@contextlib.asynccontextmanager
async def replay_server(run_dir: Path, log: Path) -> AsyncIterator[str]:
    """``piano replay RUN_DIR`` in its own process; yields the page's URL."""
    port = free_port()
    argv = [sys.executable, "-m", "agent_runtime.app.cli.main", "replay", str(run_dir)]
    async with ChildProcess("replay", [*argv, "--port", str(port)], log_path=log):
        await wait_for_port("127.0.0.1", port, 30)
        yield f"http://127.0.0.1:{port}/"


async def markers(page: Page) -> dict[str, tuple[float, float]]:
    """Agent markers on the map: name -> (x, z) in world coordinates."""
    rows = await page.eval_on_selector_all(
        "#map g.agent", "gs => gs.map(g => [g.dataset.name, +g.dataset.x, +g.dataset.z])"
    )
    return {str(n): (float(x), float(z)) for n, x, z in rows}


async def set_slider(page: Page, fraction: float) -> None:
    await page.eval_on_selector(
        "#slider",
        "(s, f) => { s.value = String(Math.round(f * Number(s.max)));"
        " s.dispatchEvent(new Event('input')) }",
        fraction,
    )
