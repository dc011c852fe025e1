"""A chest transfer whose stack another player took between the body's read and its click
(bots/body/lib/container.js): the chest is opened again and what is missing moved, up to
three tries; past them the skill fails as "not found", not as a refusal of the server, and
names the chest as lacking the item, so that a withdraw naming no chest looks into the next."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bots.node import BOTS_DIR, node_env, node_executable

SCRIPT = Path(__file__).parent / "js" / "transfer_check.js"


def _transfer(failures: int) -> dict[str, Any]:
    proc = subprocess.run(
        [str(node_executable()), str(SCRIPT), json.dumps(failures)],
        cwd=BOTS_DIR, env=node_env(), capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@pytest.mark.parametrize("failures", [1, 2])
def test_a_withdraw_whose_stack_was_taken_opens_the_chest_again(failures: int) -> None:
    out = _transfer(failures)
    assert out.get("result", {}).get("detail", {}).get("tries") == failures + 1, out
    assert out["opened"] == failures, out


def test_a_stack_gone_at_every_try_fails_as_not_found() -> None:
    out = _transfer(3)
    assert out.get("kind") == "target_not_found", out
    assert "Can't find cobblestone" in out["error"], out
    # what withdraw.js reads to look into the next chest
    assert out["lacking"] == "it no longer holds cobblestone", out
