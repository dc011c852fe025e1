"""Does the live page cost the agents anything? Scheduling lag with and without it open.

``lag_with_and_without_page(village, seconds)`` measures three windows of ``seconds``
on a running village: without the page, with the page's process running *and* a
headless Chromium (Debian's ``/usr/bin/chromium`` through Playwright) showing it, and
without it again. The two windows without the page are pooled. Used by
``piano bench runtime --web``.
"""

from __future__ import annotations

import asyncio
import shutil
from typing import TYPE_CHECKING, Any

import numpy as np
import psutil

from agent_runtime.app.web.view import WebView

if TYPE_CHECKING:
    from agent_runtime.app.village import Village

__all__ = ["BROWSER_FLAGS", "chromium_path", "lag_with_and_without_page"]

BROWSER_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    """The headless browser the page is measured (and tested) with."""
    return shutil.which("chromium") or "/usr/bin/chromium"


def _pct(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p99": 0.0, "samples": 0}
    arr = np.asarray(values, dtype=np.float64)
    return {
        "p50": round(float(np.percentile(arr, 50)), 3),
        "p99": round(float(np.percentile(arr, 99)), 3),
        "samples": len(values),
    }


async def _window(v: Village, seconds: float) -> list[float]:
    v.metrics.reset_lags()
    await asyncio.sleep(seconds)
    return list(v.metrics.lags_ms)


def _cpu(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            for p in [proc, *proc.children(recursive=True)]:
                t = p.cpu_times()
                total += t.user + t.system
        except psutil.Error:
            pass
    return total


async def lag_with_and_without_page(
    v: Village, seconds: float, *, settle_s: float = 5.0
) -> dict[str, Any]:
    from playwright.async_api import async_playwright  # a dev dependency: only here

    if not v.redis_url or not v.mqtt_url:
        raise RuntimeError("the page needs the village's Redis and MQTT URLs")
    without = await _window(v, seconds)
    web = WebView(run_id=v.run_id, redis_url=v.redis_url, mqtt_url=v.mqtt_url, run_dir=v.run_dir)
    async with web, async_playwright() as pw:
        if web.url is None:
            raise RuntimeError(web.error or "the page did not start")
        browser = await pw.chromium.launch(
            executable_path=chromium_path(),
            headless=True,
            args=BROWSER_FLAGS,
        )
        try:
            page = await browser.new_page(viewport={"width": 1400, "height": 900})
            await page.goto(web.url)
            await page.wait_for_selector("#map g.agent", timeout=60_000)
            await asyncio.sleep(settle_s)
            pids = [p for p in (web.pid,) if p]
            cpu0 = _cpu(pids)
            with_page = await _window(v, seconds)
            web_cpu = _cpu(pids) - cpu0
            shown = await page.eval_on_selector_all("#map g.agent", "gs => gs.length")
        finally:
            await browser.close()
    without += await _window(v, seconds)
    a, b = _pct(without), _pct(with_page)
    return {
        "window_s": seconds,
        "sched_lag_ms_without_page": a,
        "sched_lag_ms_with_page": b,
        "ratio_p50": round(b["p50"] / a["p50"], 3) if a["p50"] else None,
        "ratio_p99": round(b["p99"] / a["p99"], 3) if a["p99"] else None,
        "page_process_cpu_pct": round(100 * web_cpu / seconds, 1),
        "agents_on_map": shown,
    }
