"""The live page of a small embedded village in a real headless Chromium, then its replay.

Two agents on the embedded server with real mineflayer bodies and the heuristic brain;
the village serves its page from its own process (``VillageOptions.web_port``). The page
must show both agents on the map, a line an agent said in the chat panel, and the
controller's decision in the agent's panel; ``piano replay`` of the same run folder must
show the same agents, and moving the slider must move them.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import psutil
import pytest
from playwright.async_api import BrowserContext

from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.config.loader import parse_config
from modules.memory.encoder import HashingEncoder
from tests.core.helpers import wait_until
from tests.web.helpers import markers, replay_server, set_slider

pytestmark = [pytest.mark.minecraft, pytest.mark.services]


def village() -> Any:
    return parse_config(
        {
            "run": {"seed": 5, "time_scale": 1.0, "progress_every": 2},
            "world": {"kind": "embedded", "port": 0},
            "modules": {
                "preset": "full",
                "overrides": {"goal_generation": {"options": {"kinds": ["gather_wood"]}}},
            },
            "agents": [
                {"name": "Ann", "traits": ["You are outgoing and love starting conversations."]},
                {"name": "Bob", "traits": ["You are cheerful and encourage others."]},
            ],
        }
    )


async def test_live_page_shows_agents_chat_and_decisions_then_replays(
    tmp_path: Path, run_id: str, browser: BrowserContext
) -> None:
    run = tmp_path / "run"
    seen: list[dict[str, Any]] = []
    opts = VillageOptions(run_dir=run, run_id=run_id, embedder=HashingEncoder(), web_port=0)
    page = await browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    stop = asyncio.Event()
    async with Village(village(), opts) as v, asyncio.TaskGroup() as tg:
        tg.create_task(v.run(stop=stop), name="village.run")  # progress records every 2 s
        v.events.add_listener(seen.append)
        assert v.web is not None and v.web.url, v.web and v.web.error
        assert v.web.pid is not None and v.web.pid != os.getpid()
        argv = psutil.Process(v.web.pid).cmdline()
        assert not any("@" in x for x in argv), "the admin token must not be on a command line"
        await page.goto(v.web.url)
        # both agents on the map, over the village's areas from the server's layout
        for name in ("Ann", "Bob"):
            await page.wait_for_selector(f'#map g.agent[data-name="{name}"]', timeout=30_000)
        # the village's areas from the server's layout (admin API, with the run's token)
        await page.wait_for_selector('#layer-world .area[data-kind="forest"]', state="attached")
        kinds = await page.eval_on_selector_all(
            "#layer-world .area", "x => x.map(a => a.dataset.kind)"
        )
        assert {"plaza", "town_hall", "farm", "pasture", "forest", "lake"} <= set(kinds)
        assert await page.eval_on_selector_all("#layer-world circle.place", "x => x.length") >= 5

        # a line an agent says shows up in the chat panel
        await wait_until(lambda: any(e["type"] == "speech" for e in seen), 60, "someone speaking")
        said = next(e for e in seen if e["type"] == "speech")
        await page.wait_for_function(
            "t => document.querySelector('#chat').textContent.includes(t)",
            arg=said["text"][:40],
            timeout=15_000,
        )

        # the agent panel shows the controller's decision (one the controller really made)
        await wait_until(
            lambda: any(e["type"] == "decision" and e.get("agent") == "Ann" for e in seen),
            30,
            "a decision of Ann",
        )
        await page.click('#agent-list button[data-name="Ann"]')
        await page.wait_for_selector("#panel .decision .intent", timeout=15_000)
        # the panel's decision is one Ann's controller made (checked against the live log)
        async with asyncio.timeout(15):
            while True:
                shown = await page.inner_text("#panel .decision .intent")
                made = {
                    e.get("intent")
                    for e in seen
                    if e["type"] == "decision" and e.get("agent") == "Ann"
                }
                if shown in made:
                    break
                await asyncio.sleep(0.2)
        assert "Ann" in await page.inner_text("#panel h2")
        # the figures come from the village's progress records (scheduling lag)
        await page.wait_for_selector('#figures span[data-k="lag p95 ms"]', timeout=15_000)

        # let the agents walk a while so that the replay has somewhere to move them
        def moved() -> bool:
            tracks = [
                e["positions"] for e in seen if e["type"] == "progress" and e.get("positions")
            ]
            return len(tracks) >= 2 and any(
                tracks[0].get(n) and p != tracks[0].get(n) for n, p in tracks[-1].items()
            )

        await wait_until(moved, 60, "an agent to move between two progress records")
        await page.screenshot(path=str(tmp_path / "live.png"))
        assert not errors, errors
        stop.set()
    assert (run / "world_map.json").is_file()

    # the replay of the same run folder shows the same agents, and the slider moves them
    async with replay_server(run, tmp_path / "replay.log") as url:
        replay = await browser.new_page()
        await replay.goto(url)
        await replay.wait_for_selector('#map g.agent[data-name="Bob"]')
        await replay.wait_for_selector('#map g.agent[data-name="Ann"]')
        first = await markers(replay)
        assert set(first) == {"Ann", "Bob"}
        await set_slider(replay, 1.0)
        await replay.wait_for_function(
            "first => [...document.querySelectorAll('#map g.agent')].some(g =>"
            " Math.abs(+g.dataset.x - first[g.dataset.name][0]) +"
            " Math.abs(+g.dataset.z - first[g.dataset.name][1]) > 0.5)",
            arg={k: list(v) for k, v in first.items()},
        )
        await replay.screenshot(path=str(tmp_path / "replay.png"))
