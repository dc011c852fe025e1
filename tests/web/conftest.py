"""A real headless Chromium (Debian's ``chromium``) driven by Playwright, fresh profile each test.

Playwright never downloads a browser here: it is pointed at ``/usr/bin/chromium``.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import BrowserContext, async_playwright

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[BrowserContext]:
    exe = shutil.which("chromium") or CHROMIUM
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=exe,
            headless=True,  # Playwright adds --headless
            args=FLAGS,
            viewport={"width": 1400, "height": 900},
        )
        try:
            yield context
        finally:
            await context.close()
