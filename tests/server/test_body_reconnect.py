"""A body of the run gets back in while the server still holds its old connection (vanilla
kicks the old connection of the same account); an impostor under its name does not."""

from __future__ import annotations

import asyncio

import pytest

from bots.server_host import EmbeddedServer
from tests.versions import SWEEP_VERSIONS

from .conftest import run_js

pytestmark = pytest.mark.minecraft


@pytest.mark.parametrize("mc_version", SWEEP_VERSIONS)
async def test_a_body_logging_in_again_replaces_its_old_connection(server: EmbeddedServer) -> None:
    args = {
        "port": server.port,
        "version": server.options.version,
        "adminPort": server.info["adminPort"],
        "adminTokenFile": str(server.admin_token_file),
        "keyFile": str(server.body_key_file),
        "name": "Ann",
    }
    out = await asyncio.to_thread(run_js, "body_reconnect_check.js", args)
    assert "another location" in str(out["first"]["kicked"]), out
    assert out["second"]["in"] and out["second"]["kicked"] is None, out
    assert out["second"]["bread"] == 5, out  # the file the old connection saved
    assert "belongs to an agent" in str(out["impostor"]["refused"]), out  # proved once: Ann's
    assert out["online"] == ["Ann"], out
