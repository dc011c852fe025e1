"""README's 50-agent village as shipped (``piano run configs/village_50.yaml``, embedded
world, heuristic brain, two body processes of 25), short: every agent's body joined, every
agent decided and its body took a skill on, no body was kicked or dropped. (What an agent
says and does under one decision id is checked by tests/e2e/test_embedded_village.py.)"""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.jsonl import records

pytestmark = [pytest.mark.services, pytest.mark.minecraft, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
AGENTS = 50
RUN_S = 60
#: skills that need no world
NO_WORLD = frozenset({"chat", "whisper", "idle"})


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[dict[str, Any]]]:
    """The events of one run of the shipped file, its only change a free port."""
    tmp = tmp_path_factory.mktemp("village50")
    shipped = yaml.safe_load((ROOT / "configs" / "village_50.yaml").read_text())
    shipped["world"]["port"] = 0  # 25565 may be in use
    config = tmp / "village_50.yaml"
    config.write_text(yaml.safe_dump(shipped, sort_keys=False))
    done = subprocess.run(
        [sys.executable, "-m", "agent_runtime.app.cli.main", "run", str(config),
         "--out", str(tmp / "runs"), "--run-id", "v50", "--duration", str(RUN_S),
         "--quiet", "--no-web"],
        capture_output=True, text=True, timeout=480, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    yield records(tmp / "runs" / "v50" / "events.jsonl")


def _by_agent(events: list[dict[str, Any]], kind: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        if e.get("type") == kind and e.get("agent"):
            out[str(e["agent"])].append(e)
    return out


@pytest.mark.timeout(600)
def test_every_agent_joins_decides_and_acts_and_none_is_kicked(
    events: list[dict[str, Any]],
) -> None:
    joined = _by_agent(events, "body_equipped")
    assert len(joined) == AGENTS, sorted(joined)
    decided = _by_agent(events, "decision")
    assert set(decided) == set(joined), set(joined) - set(decided)
    # acted: its body took a skill on (a skill started whose outcome, if one came, is not
    # "body unavailable": a body worker that did not answer the call)
    unavailable = {
        str(e.get("decision")) for e in events
        if e.get("type") == "skill_outcome"
        and str(e.get("reason", "")).startswith("body unavailable")
    }  # fmt: skip
    acted = {
        a for a, es in _by_agent(events, "skill_started").items()
        if any(str(e.get("decision")) not in unavailable for e in es)
    }  # fmt: skip
    assert acted == set(joined), f"no skill taken on by {sorted(set(joined) - acted)}"
    world = {
        a for a, es in _by_agent(events, "skill_started").items()
        if any(str((e.get("call") or {}).get("skill")) not in NO_WORLD for e in es)
    }  # fmt: skip
    assert len(world) >= AGENTS * 0.8, f"{len(world)} agents started a world skill"
    body = [e for e in events if e.get("type") == "body_event"]
    kicked = [e for e in body if e.get("kind") in ("kicked", "disconnected")]
    assert kicked == [], kicked[:5]
    errors = [e for e in events if e.get("type") in ("module_error", "module_disabled")]
    assert errors == [], errors[:3]
