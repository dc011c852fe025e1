"""The 3D view from an agent's eyes, opened from its panel on the live page.

One agent with a real mineflayer body on the embedded server; the page's "3D view" button
asks the village (over MQTT) to start prismarine-viewer inside the body's Node process.
The view must be served on loopback only, open in a new tab, connect to the body, and draw
the world: a rendered frame shows the village's grass, not only sky. At the default version
and at 26.1 (once when it is the default), which prismarine-viewer has no assets for (the body
translates its blocks into the newest it has, bots/body/lib/viewer_blocks.js; before, the page
drew nothing there).
"""

from __future__ import annotations

import asyncio
import io
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from PIL import Image
from playwright.async_api import BrowserContext, Page

from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.config.loader import parse_config
from agent_runtime.config.models import DEFAULT_VERSION
from modules.memory.encoder import HashingEncoder
from tests.listeners import listening_addresses

pytestmark = [pytest.mark.minecraft, pytest.mark.services, pytest.mark.slow]


def village(version: str) -> Any:
    return parse_config(
        {
            "run": {"seed": 3, "time_scale": 1.0},
            "world": {"kind": "embedded", "port": 0, "version": version},
            "modules": {"preset": "baseline"},
            "agents": [{"name": "Ann", "traits": ["You are calm and look around a lot."]}],
        }
    )


def _outside_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))  # no packet is sent: picks the outgoing address
            address = str(s.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") else address


def _ground_share(png: bytes) -> float:
    """The share of a screenshot that is grass or leaves (green over blue): the sky and the
    untextured player mesh the page shows before any chunk arrives have none."""
    image = Image.open(io.BytesIO(png)).convert("RGB").resize((100, 64))
    raw = image.tobytes()
    pixels = [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]
    green = sum(1 for r, g, b in pixels if g > b + 25 and g >= r)
    return green / len(pixels)


@pytest.mark.parametrize("version", list(dict.fromkeys([DEFAULT_VERSION, "26.1"])))
async def test_view3d_from_the_agent_panel(
    tmp_path: Path, run_id: str, browser: BrowserContext, version: str
) -> None:
    opts = VillageOptions(
        run_dir=tmp_path / "run", run_id=run_id, embedder=HashingEncoder(), web_port=0
    )
    page = await browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    stop = asyncio.Event()
    async with Village(village(version), opts) as v, asyncio.TaskGroup() as tg:
        tg.create_task(v.run(stop=stop), name="village.run")
        assert v.web is not None and v.web.url, v.web and v.web.error
        await page.goto(v.web.url)
        await page.click('#agent-list button[data-name="Ann"]', timeout=30_000)
        tabs: list[Page] = []
        opened = asyncio.Event()

        def on_page(tab: Page) -> None:
            tabs.append(tab)
            opened.set()

        browser.on("page", on_page)
        await page.click('#panel button.view3d[data-agent="Ann"]')
        # the panel shows the link (for a browser that blocks pop-ups) or why there is none
        await page.wait_for_function(
            "() => document.querySelector('#panel a.view3d-link') ||"
            " !/starting/.test(document.querySelector('#panel .view3d-note')?.textContent || 'starting')",
            timeout=40_000,
        )
        note = await page.eval_on_selector("#panel", "r => r.innerHTML.slice(0, 600)")
        links = await page.eval_on_selector_all("#panel a.view3d-link", "a => a.map(x => x.href)")
        assert links, note
        link = links[0]
        await asyncio.wait_for(opened.wait(), 10)
        view = tabs[0]
        view_errors: list[str] = []
        view.on("pageerror", lambda e: view_errors.append(str(e)))
        await view.wait_for_load_state()
        assert view.url == link
        url = urlsplit(link)
        assert url.hostname == "127.0.0.1" and url.port, link

        # loopback only: the kernel's table has the port on 127.0.0.1 and nowhere else, and
        # the same port on another address of this machine refuses: its outgoing address, or
        # on a machine with loopback only 127.0.0.2 (a server bound to 0.0.0.0 answers there)
        assert listening_addresses(url.port) == {"127.0.0.1"}
        outside = _outside_address() or "127.0.0.2"
        async with httpx.AsyncClient(timeout=3.0) as client:
            with pytest.raises(httpx.ConnectError):
                await client.get(f"http://{outside}:{url.port}/")

        # the page draws the world around Ann (the village's grass): wait for a frame with it
        await view.wait_for_selector("canvas", timeout=30_000)
        async with asyncio.timeout(60):
            while True:
                shot = await view.screenshot()
                if _ground_share(shot) >= 0.05:
                    break
                await asyncio.sleep(1.0)
        (tmp_path / "view3d.png").write_bytes(shot)
        # a second request reuses the running viewer (one server per body)
        async with httpx.AsyncClient(timeout=30.0) as client:
            again = await client.post(f"{v.web.url}api/view3d?agent=Ann")
            assert again.status_code == 200 and again.json()["url"] == view.url
            unknown = await client.post(f"{v.web.url}api/view3d?agent=Nobody")
            assert unknown.status_code == 503 and "no agent" in unknown.json()["error"]
        assert not errors, errors
        assert not view_errors, view_errors
        stop.set()
