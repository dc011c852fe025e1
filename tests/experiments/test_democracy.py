"""The tax experiment's heuristic democracy and deposit ledger on hand-made data."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from experiments.llm import render
from experiments.metrics import deposit_share
from experiments.specialization.roles import PROMPT as ROLE_PROMPT
from experiments.specialization.roles import heuristic_role, normalise_role
from experiments.tax.democracy import (
    PROMPTS,
    AmendmentDraft,
    Constitution,
    Democracy,
    FeedbackOut,
    HeuristicSettings,
    Member,
    MemberContext,
    count_passed,
    render_constitution,
)
from experiments.tax.runner import attribute, ledger, season_rows, uncertain_deposits

TEMPLATE = "Everyone pays {rate_pct}% in tax."


def democracy(seed: int = 1, **settings: object) -> Democracy:
    s = HeuristicSettings(noise_sd=0.0, **settings)
    return Democracy(None, random.Random(seed), s, {"Inf": -1}, TEMPLATE)


def c0() -> Constitution:
    return Constitution(version=0, text=render_constitution(TEMPLATE, 0.2), tax_rate=0.2)


async def test_feedback_follows_traits_and_exposure() -> None:
    d = democracy()
    inf = Member("Inf", "influencer", "influencer", ("You hate taxes.",), -1)
    out, brain, att = await d.feedback(inf, MemberContext(), c0())
    assert brain == "heuristic" and out.stance == "lower" and att == pytest.approx(-1.5)
    assert out.proposed_rate == pytest.approx(0.12)  # 0.2 - 0.05 * 1.5 -> whole percent
    con = Member("Con", "constituent", "farmer", ("You farm.",))
    neutral, _, att0 = await d.feedback(con, MemberContext(), c0())
    assert neutral.stance == "keep" and att0 == 0.0
    heard = MemberContext(heard=[("Inf", "taxes are theft")] * 3)
    swayed, _, att1 = await d.feedback(con, heard, c0())
    assert att1 == pytest.approx(-0.75) and swayed.stance == "lower"
    capped = MemberContext(interactions={"Inf": 100})
    assert d.attitude(con, capped) == pytest.approx(-2.0)  # exposure_cap


async def test_amendments_votes_tally_and_rewrite() -> None:
    d = democracy(min_support=0.25)
    fb = {
        "A": FeedbackOut(thoughts="", stance="lower", proposed_rate=0.1),
        "B": FeedbackOut(thoughts="", stance="lower", proposed_rate=0.14),
        "C": FeedbackOut(thoughts="", stance="keep"),
        "D": FeedbackOut(thoughts="", stance="raise", proposed_rate=0.3),
    }
    drafts, brain = await d.amendments(c0(), fb)
    # 'lower' has 50% support, 'raise' exactly 25%: both are drafted, the larger first
    assert brain == "heuristic" and [a.tax_rate for a in drafts] == [0.12, 0.3]
    d2 = democracy(min_support=0.3)
    drafts2, _ = await d2.amendments(c0(), fb)
    assert [a.tax_rate for a in drafts2] == [pytest.approx(0.12)]  # median of 0.10, 0.14
    assert "12%" in drafts2[0].text
    anti = Member("X", "influencer", "influencer", (), -1)
    votes, _, _ = await d2.vote(anti, MemberContext(), c0(), drafts2)
    assert votes == ["yes"]
    pro = Member("Y", "influencer", "influencer", (), 1)
    assert (await d2.vote(pro, MemberContext(), c0(), drafts2))[0] == ["no"]
    passed, counted, _ = await d2.tally(drafts2, {"X": ["yes"], "Y": ["no"], "Z": ["yes"]})
    assert passed == counted == [1]
    assert count_passed(2, {"a": ["yes", "no"], "b": ["abstain", "abstain"]}) == [1]
    assert count_passed(1, {"a": ["yes"], "b": ["no"]}) == []  # a tie fails
    new = await d2.rewrite(c0(), drafts2, [1])
    assert new.version == 1 and new.tax_rate == pytest.approx(0.12) and "12%" in new.text
    same = await d2.rewrite(c0(), drafts2, [])
    assert same.tax_rate == 0.2 and same.version == 1


async def test_neutral_votes_are_seeded() -> None:
    am = [AmendmentDraft(text="Lower to 10%", tax_rate=0.1)]
    con = Member("C", "constituent", "miner", ())
    a = [(await democracy(seed=5).vote(con, MemberContext(), c0(), am))[0] for _ in range(1)]
    b = [(await democracy(seed=5).vote(con, MemberContext(), c0(), am))[0] for _ in range(1)]
    assert a == b


def test_prompts_render() -> None:
    for name in ("feedback", "amendments", "vote", "tally", "constitution"):
        assert (PROMPTS / f"{name}.md").exists()
    msgs = render(PROMPTS / "tally.md", {"amendments": "1. x", "votes": "1. yes 2, no 1"})
    assert msgs[0].role == "system" and "1. yes 2" in msgs[1].content
    role = render(ROLE_PROMPT, {"name": "Ann", "community_goal": "g", "goals": "1. farm"})
    assert "Ann" in role[1].content


def test_heuristic_roles() -> None:
    goals = ["Tend the farm and harvest crops"] * 3 + ["Mine stone and ore in the hills"] * 2
    assert heuristic_role(goals) == "farmer"
    assert heuristic_role(["Mine stone and ore in the hills", "Tend the farm"]) == "farmer"
    assert heuristic_role([]) == ""
    assert normalise_role("  The Head-Miner!! of town") == "the head"


def test_ledger_matches_chests_and_shares() -> None:
    seasons = [
        {"season": 0, "phase": "before", "rate": 0.2, "open_wall": 100.0, "close_wall": 120.0,
         "measure_wall": 123.0,
         "open": {"inventory": {"A": {"wheat": 40, "bread": 10}, "B": {"coal": 10}},
                  "chest": {"dirt": 1}},
         "close": {"inventory": {"A": {"wheat": 30, "bread": 10}, "B": {"coal": 10}},
                   "chest": {"dirt": 1, "wheat": 10}}},
    ]
    events = [
        {"type": "skill_outcome", "agent": "A", "t": 105.0, "success": True,
         "call": {"skill": "deposit", "args": {"item": "wheat", "count": 10}},
         "delta": {"wheat": -10}},
        {"type": "skill_outcome", "agent": "B", "t": 106.0, "success": False,
         "call": {"skill": "deposit", "args": {"item": "coal", "count": 2}}, "delta": {}},
        {"type": "skill_outcome", "agent": "B", "t": 130.0, "success": True,  # after the window
         "call": {"skill": "deposit", "args": {"item": "coal", "count": 2}},
         "delta": {"coal": -2}},
    ]
    led = ledger(events, seasons)
    assert dict(led[0]) == {"A": 10}
    run = SimpleNamespace(
        seasons=seasons, measured_by="admin_api",
        members=[Member("A", "constituent", "farmer", ()), Member("B", "constituent", "miner", ())],
    )
    rows, totals = season_rows(run, events)  # type: ignore[arg-type]
    a = next(r for r in rows if r["agent"] == "A")
    assert a["deposited"] == 10 and a["share"] == pytest.approx(deposit_share(10, 50)) == 0.2
    assert a["deposited_ledger"] == 10 and a["inventory_drop"] == 10
    assert a["measured_by"] == "chests+inventories"
    b = next(r for r in rows if r["agent"] == "B")
    assert b["deposited"] == 0 and b["share"] == 0.0
    assert totals == [{"season": 0, "phase": "before", "rate": 0.2, "ledger_total": 10,
                       "chest_delta": 10, "attributed": 10, "uncertain_deposits": 0,
                       "match": True}]


def test_contents_attribution_catches_unreported_deposits() -> None:
    # B's deposit failed part-way ("rejected transaction") but 6 coal reached the chest,
    # and A lost 4 wheat of which only 2 reached the chest (2 were eaten or dropped)
    open_inv = {"A": {"wheat": 10}, "B": {"coal": 10}, "C": {"coal": 3}}
    close_inv = {"A": {"wheat": 6}, "B": {"coal": 4}, "C": {"coal": 3}}
    got = attribute(open_inv, close_inv, {"coal": 1}, {"coal": 7, "wheat": 2})
    assert got == {"A": 2.0, "B": 6.0}
    seasons = [{"season": 0, "open_wall": 0.0, "measure_wall": 10.0}]
    events = [{"type": "skill_outcome", "agent": "B", "t": 5.0, "success": False,
               "reason": "deposit failed: Server rejected transaction", "cancelled": False,
               "call": {"skill": "deposit", "args": {"item": "coal", "count": 6}}},
              {"type": "skill_outcome", "agent": "B", "t": 6.0, "success": False,
               "reason": "no chest within 32 blocks", "call": {"skill": "deposit"}}]
    assert uncertain_deposits(events, seasons) == {0: 1}
    assert dict(ledger(events, seasons)) == {}


async def test_llm_policies_are_used_and_labelled() -> None:
    from agent_runtime.config.llm import LLMSettings
    from agent_runtime.llm.errors import LLMTimeout
    from agent_runtime.llm.factory import LLMService
    from agent_runtime.llm.scripted import ScriptedLanguageModel

    model = ScriptedLanguageModel([
        {"thoughts": "Taxes feed the village.", "stance": "raise", "proposed_rate": 0.3},
        {"amendments": [{"text": "Set the tax to 30%.", "tax_rate": 0.3}]},
        {"votes": ["yes"]},
        {"passed": [1]},
        {"text": "Everyone pays 30% in tax.", "tax_rate": 0.3},
        LLMTimeout("slow"),  # the next call falls back to the heuristic, labelled as such
    ])
    async with LLMService(LLMSettings(max_retries=0), backend=model) as llm:
        d = Democracy(llm, random.Random(0), HeuristicSettings(noise_sd=0.0), {}, TEMPLATE)
        m = Member("Ann", "constituent", "farmer", ("You farm.",))
        fb, brain, _ = await d.feedback(m, MemberContext(heard=[("Bob", "hi")]), c0())
        assert brain.startswith("llm") and fb.stance == "raise"
        assert "Bob: hi" in model.calls[0].messages[1].content  # heard lines reach the prompt
        drafts, brain = await d.amendments(c0(), {"Ann": fb})
        assert brain.startswith("llm") and drafts[0].tax_rate == 0.3
        votes, brain, _ = await d.vote(m, MemberContext(), c0(), drafts)
        assert votes == ["yes"] and brain.startswith("llm")
        passed, counted, brain = await d.tally(drafts, {"Ann": votes})
        assert passed == counted == [1] and brain.startswith("llm")
        new = await d.rewrite(c0(), drafts, passed)
        assert new.tax_rate == 0.3 and new.brain.startswith("llm") and "30%" in new.text
        fb2, brain2, _ = await d.feedback(m, MemberContext(), c0())
        assert brain2 == "heuristic" and fb2.stance == "keep"
