"""Impostors in a running 5-agent village: a raw client under each agent's name (as the agent
spells it and in upper case) is refused at login and never sent the agent's position or
inventory; every agent keeps running (no kick, no disconnect, none unresponsive) and keeps
its inventory, read on the server through the admin API."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.village import Village, VillageOptions
from agent_runtime.app.world_setup import item_counts
from agent_runtime.config.loader import parse_config
from bots.node import BOTS_DIR, node_env, node_executable
from modules.memory.encoder import HashingEncoder
from tests.core.helpers import wait_until_async

pytestmark = [pytest.mark.minecraft, pytest.mark.services]

NAMES = ("Ann", "Bob", "Cara", "Dev", "Eli")
KIT = {"oak_log": 4, "birch_log": 3}  # nothing a guard uses: its count stays as given
IMPOSTORS_JS = Path(__file__).parent / "js" / "impostors.js"


def _impostors(port: int, version: str) -> dict[str, dict[str, Any]]:
    args = {"port": port, "version": version, "names": list(NAMES)}
    out = subprocess.run(
        [str(node_executable()), str(IMPOSTORS_JS), json.dumps(args)],
        cwd=BOTS_DIR,
        env=node_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, dict[str, Any]] = json.loads(out.stdout)
    return result


@pytest.mark.timeout(240)
async def test_an_impostor_under_each_agents_name_is_refused(tmp_path: Path, run_id: str) -> None:
    cfg = parse_config(
        {
            "run": {"seed": 5, "time_scale": 1.0},
            "world": {"kind": "embedded", "port": 0},
            "modules": {
                "preset": "full",
                "overrides": {"goal_generation": {"options": {"kinds": ["guard"]}}},
            },
            "agents": [{"name": n, "traits": ["You are calm."], "inventory": KIT} for n in NAMES],
        }
    )
    seen: list[dict[str, Any]] = []
    opts = VillageOptions(run_dir=tmp_path / "run", run_id=run_id, embedder=HashingEncoder())
    async with Village(cfg, opts) as v:
        v.events.add_listener(seen.append)
        assert v.world is not None and v.world.admin is not None
        admin = v.world.admin

        async def kits_given() -> bool:
            held = [item_counts(await admin.inventory(n)) for n in NAMES]
            return all(all(h.get(k, 0) >= c for k, c in KIT.items()) for h in held)

        await wait_until_async(kits_given, 60, "every agent holding its kit")
        before = {n: item_counts(await admin.inventory(n)) for n in NAMES}
        tried = await asyncio.to_thread(_impostors, v.world.port, cfg.world.version)
        online = sorted(p["username"] for p in await admin.players())
        after = {n: item_counts(await admin.inventory(n)) for n in NAMES}
        refusals = await admin.refusals()
        unresponsive = v.unresponsive()
    for name in NAMES:
        for how, one in tried[name].items():
            assert one["inState"] == "login", (name, how, one)  # refused before any play packet
            assert "agent" in str(one["refused"]), (name, how, one)
            assert one["received"] == [], (name, how, one)  # no position, no inventory
    assert online == sorted(NAMES), online  # each agent once, nobody else
    assert after == before, (before, after)
    assert refusals["byKind"].get("impostor") == 2 * len(NAMES), refusals
    honest = ("chat_spam", "command_spam", "packet_flood", "malformed_packet", "duplicate_login")
    assert not any(refusals["byKind"].get(k) for k in honest), refusals  # none of the bodies
    assert set(refusals["byPlayer"]) == {n for n in NAMES} | {n.upper() for n in NAMES}, refusals
    body = [e for e in seen if e.get("type") == "body_event"]
    assert [e for e in body if e.get("kind") in ("kicked", "disconnected")] == []
    assert unresponsive == {}, unresponsive
