"""The smelt skill's wait at an open furnace (``bots/body/lib/furnace.js``), against a made-up
furnace window (``js/furnace_check.js``, no server).

A wait that counted the output slot as last seen stood still until the runner's stuck timer
("stuck: no progress for 20 s (while smelted 1 of 2 iron_ore)") when the click took more than
was seen (an item landed between the look and the click), and when the furnace was shared
(the skills bench's climbers smelt at the nearest furnace: another took the output, or the
fuel ran out on the others' items). Each scenario's wait is cut off after 6 s; the polls are
500 ms apart."""

from __future__ import annotations

from typing import Any

from tests.server.conftest import run_js

_LIMIT_MS = 6000


def _wait(scenario: str) -> Any:
    return run_js("../../bodies/js/furnace_check.js", scenario, _LIMIT_MS)


def test_a_click_that_takes_more_than_was_seen_counts_what_reached_the_inventory() -> None:
    out = _wait("race")
    assert out.get("taken") == 2 and out["ingots"] == 2, out


def test_a_furnace_emptied_by_another_player_ends_the_wait_with_a_reason() -> None:
    out = _wait("shared")
    assert out.get("kind") == "taken_by_other", out
    assert out["reason"].startswith("the furnace holds no more iron_ore: smelted 0 of 1"), out
    assert out["polls"] * out["poll_ms"] < _LIMIT_MS / 2, out  # not the stuck timer's wait


def test_a_furnace_out_of_fuel_gets_more_from_the_inventory() -> None:
    out = _wait("fuel")
    assert out.get("taken") == 1 and out["fuel_put"] == 1, out


def test_items_taken_one_at_a_time() -> None:
    out = _wait("plain")
    assert out.get("taken") == 2 and out["ingots"] == 2 and out["polls"] >= 4, out


def test_a_click_the_server_refused_is_made_again_at_the_next_poll() -> None:
    out = _wait("refused")
    assert out.get("taken") == 2 and out["ingots"] == 2, out
