"""A real headless Chromium (Debian's ``chromium``) driven by Playwright, fresh profile each test.

Playwright never downloads a browser here: it is pointed at ``/usr/bin/chromium``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import BrowserContext, async_playwright

from agent_runtime.app.web.bench import BROWSER_FLAGS, chromium_path


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[BrowserContext]:
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=chromium_path(),
            headless=True,  # Playwright adds --headless
            args=BROWSER_FLAGS,
            viewport={"width": 1400, "height": 900},
        )
        try:
            yield context
        finally:
            await context.close()
