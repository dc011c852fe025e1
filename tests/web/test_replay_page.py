"""``piano replay`` on a run folder written by the test: agents, panel, chat, slider, play."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext

from tests.web.helpers import markers, replay_server, set_slider

T0 = 1_700_000_000.0


def write_run(run: Path) -> None:
    """A 60-second run of two agents walking in opposite directions."""
    rec: list[dict[str, Any]] = [
        {"t": T0, "type": "run_started", "run_id": "walk", "seed": 1},
        {"t": T0 + 1, "type": "world_started", "places": {"village_centre": [0, 65, 0]}},
    ]
    for i in range(0, 61, 5):
        rec.append(
            {
                "t": T0 + i,
                "type": "progress",
                "elapsed_s": float(i),
                "agents": 2,
                "decisions": i // 5,
                "lag_ms_p95": 3.0,
                "positions": {"Ann": [float(i), 65.0, 0.0], "Bob": [0.0, 65.0, -float(i)]},
            }
        )
    rec.append(
        {
            "t": T0 + 10,
            "type": "decision",
            "agent": "Ann",
            "id": "d1",
            "kind": "work",
            "intent": "walk east to the forest",
            "skill": {"skill": "go_to", "args": {"x": 60, "z": 0}},
            "brain": "heuristic",
        }
    )
    rec.append(
        {"t": T0 + 20, "type": "speech", "agent": "Bob", "text": "Heading north!", "to": None}
    )
    rec.append({"t": T0 + 60, "type": "run_stopped", "reason": "duration reached"})
    run.mkdir(parents=True)
    (run / "events.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rec))
    graph = {"Ann": {"Bob": 8.0}, "Bob": {"Ann": 3.0}}
    (run / "metrics.json").write_text(json.dumps({"social_graph": graph}))


async def test_replay_shows_the_agents_and_the_slider_moves_them(
    tmp_path: Path, browser: BrowserContext
) -> None:
    run = tmp_path / "walk"
    write_run(run)
    async with replay_server(run, tmp_path / "replay.log") as url:
        page = await browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(url + "?agent=Ann")
        await page.wait_for_selector('#map g.agent[data-name="Bob"]')
        start = await markers(page)
        assert set(start) == {"Ann", "Bob"}
        assert start["Ann"] == (0.0, 0.0)

        await set_slider(page, 0.5)  # t0 + 30 s
        await page.wait_for_function(
            "() => +document.querySelector('#map g.agent[data-name=\"Ann\"]').dataset.x > 25"
        )
        mid = await markers(page)
        assert abs(mid["Ann"][0] - 30.0) < 1.0 and abs(mid["Bob"][1] + 30.0) < 1.0
        panel = await page.inner_text("#panel")
        assert "walk east to the forest" in panel and "go_to" in panel
        assert "Heading north!" in await page.inner_text("#chat")

        await set_slider(page, 0.0)  # back to the start: markers return
        await page.wait_for_function(
            "() => +document.querySelector('#map g.agent[data-name=\"Ann\"]').dataset.x < 1"
        )
        assert "walk east" not in await page.inner_text("#panel")

        await page.select_option("#speed", "100")  # play: the clock and the markers advance
        await page.click("#play")
        await page.wait_for_function(
            "() => +document.querySelector('#map g.agent[data-name=\"Ann\"]').dataset.x >= 59"
        )
        await page.wait_for_function(
            "() => document.querySelector('#clock').textContent === '1:00 / 1:00'"
        )
        assert await page.inner_text("#play") == "▶"  # stopped at the end
        # at the end of the timeline the final social graph is drawn
        await page.wait_for_selector("#graph line", state="attached")
        await page.screenshot(path=str(tmp_path / "replay.png"))
        assert not errors, errors
