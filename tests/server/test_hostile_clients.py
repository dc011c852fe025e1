"""The hostile-client suite: every cheat of the catalogue at the sweep versions
(``tests/versions.py``: the oldest supported, 1.21.4 and the default).

Each cheat (``bots/hostile/cheats/<id>.js``) is a raw minecraft-protocol client, not our
bodies, doing what a modified client can, then reading the server's own state (admin API:
inventories, containers, blocks, positions, item entities) to say whether it was refused.
One server per version (module scope): its cheats run back to back in one Node process,
then one test per cheat and version reports its result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bots.hostile import CheatResult, catalogue, run_cheats
from bots.server_host import EmbeddedServer
from bots.server_options import ServerOptions
from tests.versions import SWEEP_VERSIONS

pytestmark = [pytest.mark.minecraft, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=SWEEP_VERSIONS)
async def results(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[dict[str, CheatResult]]:
    """Every cheat's result against one fresh server at the version."""
    version = str(request.param)
    run: Path = tmp_path_factory.mktemp(f"hostile-{version}")
    options = ServerOptions(version=version)
    async with EmbeddedServer(run / "world", options, log_path=run / "server.log") as server:
        yield {r.id: r for r in await run_cheats(server)}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("cheat", catalogue())
async def test_cheat_is_refused(results: dict[str, CheatResult], cheat: str) -> None:
    result = results[cheat]
    if result.skipped:
        pytest.skip(f"{cheat} does not apply at {result.version}")
    assert result.error is None, f"{cheat} at {result.version} failed: {result.error}"
    assert result.refused, f"{cheat} at {result.version} was not refused: {result.detail}"
