"""read_rate / read_request: the agent's reading of deposit requests, tolerant to wording."""

from __future__ import annotations

import pytest

from modules.heuristics.requests import RequestState, read_positions, read_rate, read_request

CONSTITUTION = (
    "Every member deposits 20% of their inventory into the community chests during each tax season."
)
OPEN = (
    "Tax season 3 is open for 20 seconds: deposit 20% of your inventory into the community "
    "chests at (12, 64, -3) and (14, 64, -3)."
)


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("deposit 20% of your items", 0.2),
        ("deposit 12.5 % of your items", 0.125),
        ("give thirty percent to the chest", 0.3),
        ("put 5 per cent in", 0.05),
        ("deposit half of your inventory", 0.5),
        ("hello there", None),
    ],
)
def test_read_rate(text: str, rate: float | None) -> None:
    got = read_rate(text)
    assert got == (pytest.approx(rate) if rate is not None else None)


def test_constitution_is_a_rule() -> None:
    r = read_request(CONSTITUTION)
    assert r is not None and r.state is RequestState.RULE and r.rate == pytest.approx(0.2)


def test_season_open_reads_everything() -> None:
    r = read_request(OPEN)
    assert r is not None
    assert r.state is RequestState.OPEN
    assert r.rate == pytest.approx(0.2)
    assert r.chests == ((12, 64, -3), (14, 64, -3))
    assert r.window_s == 20.0 and r.season == 3


def test_other_wordings() -> None:
    r = read_request(
        "The tax season has begun! Please put 25 percent of what you carry in the chest at x=1, y=64, z=2"
    )
    assert r is not None and r.state is RequestState.OPEN and r.rate == pytest.approx(0.25)
    assert r.chests == ((1, 64, 2),)
    assert read_request("Tax season 4 is over.") is None  # no plain word asks for anything
    r2 = read_request("Tax season 4 is over.", ("tax",))  # the tax topic's request words
    assert r2 is not None and r2.state is RequestState.CLOSED and r2.season == 4
    r3 = read_request("Deposits open for 2 minutes, 10% please")
    assert r3 is not None and r3.window_s == 120.0


def test_non_requests() -> None:
    assert read_request("Nice weather today.") is None
    assert read_request("I have 20% battery") is None  # no deposit word
    assert read_positions("no numbers") == ()
