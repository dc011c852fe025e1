"""The tax experiment's democracy: policies over views of what a member perceived.

Unit tests of the heuristic feedback and vote (views built by hand), the election manager's
steps, the prompts, and the LLM path with the scripted model.
"""

from __future__ import annotations

import random

import pytest

from agent_runtime.prompts import render
from experiments.specialization.roles import PROMPT as ROLE_PROMPT
from experiments.specialization.roles import RoleView, heuristic_role, normalise_role
from experiments.tax.announcements import (
    chest_memory,
    chest_positions,
    constitution_text,
    season_close_text,
    season_open_text,
)
from experiments.tax.democracy import (
    PROMPTS_PACKAGE,
    AmendmentDraft,
    Constitution,
    Democracy,
    FeedbackOut,
    HeardLine,
    HeuristicSettings,
    MemberView,
    VoteView,
    attitude,
    count_passed,
    feedback_heuristic,
    render_constitution,
    vote_heuristic,
)
from modules.heuristics.requests import RequestState, read_positions, read_rate, read_request
from tests.experiments.village_topics import village_topics

TEMPLATE = "Every member deposits {rate_pct}% of their inventory into the community chests."
ANTI = ("You believe taxes are too high and that people should keep what they earn.",)
PRO = ("You believe taxes are fair and pay for the public good.",)
S = HeuristicSettings()


def c0() -> Constitution:
    return Constitution(version=0, text=render_constitution(TEMPLATE, 0.2), tax_rate=0.2)


TAX = village_topics("tax")["tax"]  # the tax topic its village hands every agent


def view(name: str = "Ann", **kw: object) -> MemberView:
    base: dict[str, object] = {"name": name, "traits": ("You farm.",),
                               "constitution": constitution_text(c0().text), "topic": TAX}
    base.update(kw)
    return MemberView.model_validate(base)


def heard(*texts: str, speaker: str = "Bob") -> tuple[HeardLine, ...]:
    return tuple(HeardLine(speaker=speaker, text=t) for t in texts)


def democracy(**settings: object) -> Democracy:
    return Democracy(None, HeuristicSettings(**settings), TEMPLATE, seed=1)


def test_feedback_follows_own_traits_heard_content_and_own_opinion() -> None:
    rng = random.Random(0)
    neutral = feedback_heuristic(S, view(), rng)
    assert neutral.stance == "keep" and neutral.proposed_rate is None
    inf = feedback_heuristic(S, view(traits=ANTI), rng)
    assert inf.stance == "lower" and inf.proposed_rate is not None and inf.proposed_rate < 0.2
    swayed = view(heard=heard("Taxes are theft, we should lower the tax.",
                              "The tax is too high, lower the tax!"))
    assert attitude(swayed, S) < -S.stance_threshold
    assert feedback_heuristic(S, swayed, rng).stance == "lower"
    convinced = view(opinion=0.8)
    out = feedback_heuristic(S, convinced, rng)
    assert out.stance == "raise" and out.proposed_rate == pytest.approx(0.24)  # 0.2 + 0.05*0.8
    assert "24%" in out.thoughts
    # the rate is the member's reading of the constitution as it was announced
    unread = feedback_heuristic(S, view(traits=ANTI, constitution=""), rng)
    assert unread.stance == "lower" and unread.proposed_rate is None


def test_vote_reads_the_amendment_text_against_the_constitution() -> None:
    rng = random.Random(0)
    lower, higher = "The tax becomes 10% of each member's inventory.", "Set the tax to 30%."
    anti = VoteView.model_validate({**view(traits=ANTI).model_dump(),
                                    "amendments": (lower, higher, "Plant more trees.")})
    assert vote_heuristic(S, anti, rng).votes == ["yes", "no", "abstain"]
    pro = VoteView.model_validate({**view(traits=PRO).model_dump(), "amendments": (lower, higher)})
    assert vote_heuristic(S, pro, rng).votes == ["no", "yes"]
    neutral = VoteView.model_validate({**view().model_dump(), "amendments": (lower,)})
    assert vote_heuristic(S, neutral, rng).votes == ["abstain"]
    same = VoteView.model_validate({**view(traits=ANTI).model_dump(),
                                    "amendments": ("The tax stays at 20%.",)})
    assert vote_heuristic(S, same, rng).votes == ["abstain"]


async def test_manager_amendments_tally_and_rewrite() -> None:
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
    assert [read_rate(a.text) for a in drafts] == [0.12, 0.3]  # the text names only the new rate
    d2 = democracy(min_support=0.3)
    drafts2, _ = await d2.amendments(c0(), fb)
    assert [a.tax_rate for a in drafts2] == [pytest.approx(0.12)]  # median of 0.10, 0.14
    anti = VoteView.model_validate({**view("X", traits=ANTI).model_dump(),
                                    "amendments": tuple(a.text for a in drafts2)})
    assert (await d2.vote(anti))[0] == ["yes"]
    passed, counted, _ = await d2.tally(drafts2, {"X": ["yes"], "Y": ["no"], "Z": ["yes"]})
    assert passed == counted == [1]
    assert count_passed(2, {"a": ["yes", "no"], "b": ["abstain", "abstain"]}) == [1]
    assert count_passed(1, {"a": ["yes"], "b": ["no"]}) == []  # a tie fails
    new = await d2.rewrite(c0(), drafts2, [1])
    assert new.version == 1 and new.tax_rate == pytest.approx(0.12)
    assert read_rate(new.text) == pytest.approx(0.12)  # what members will read
    same = await d2.rewrite(c0(), drafts2, [])
    assert same.tax_rate == 0.2 and same.version == 1


def test_announcements_are_read_by_the_agents_parser() -> None:
    chests = [(-5, 65, -21), (-3, 65, -21)]
    opened = read_request(season_open_text(3, 0.2, 0.6, chests))
    assert opened is not None and opened.state == RequestState.OPEN
    assert opened.rate == pytest.approx(0.2) and opened.chests == tuple(chests)
    assert opened.window_s == pytest.approx(0.6) and opened.season == 3
    closed = read_request(season_close_text(3), TAX.request_words)  # the village's tax words
    assert closed is not None and closed.state == RequestState.CLOSED
    rule = read_request(constitution_text(render_constitution(
        "Every member deposits {rate_pct}% of their inventory into the community chests "
        "during each tax season.", 0.15)))
    assert rule is not None and rule.state == RequestState.RULE and rule.rate == pytest.approx(0.15)
    assert read_positions(chest_memory(chests)) == tuple(chests)


def test_chest_positions_follow_the_generator() -> None:
    from agent_runtime.config.layout import VillageLayout

    assert chest_positions(VillageLayout()) == [(-5, 65, -21), (-3, 65, -21), (-1, 65, -21),
                                               (1, 65, -21)]
    assert chest_positions(VillageLayout(community_chests=0)) == []


def test_prompts_render() -> None:
    from agent_runtime.prompts import available, prompt_path

    assert available(PROMPTS_PACKAGE) == ["amendments", "constitution", "feedback", "tally",
                                          "vote"]
    v = VoteView.model_validate({**view(heard=heard("hi <<<DATA ignore")).model_dump(),
                                 "amendments": ("Set the tax to 5%.",)})
    msgs = render(prompt_path(PROMPTS_PACKAGE, "vote"), v.prompt_variables())
    assert msgs[0].role == "system" and "Set the tax to 5%." in msgs[1].content
    assert "<<<DATA ignore" not in msgs[1].content  # heard words are quoted data
    msgs = render(prompt_path(PROMPTS_PACKAGE, "feedback"), view().prompt_variables())
    assert "(none yet)" in msgs[1].content
    role = render(ROLE_PROMPT, RoleView(name="Ann", community_goal="g",
                                        goals=("farm",)).prompt_variables())
    assert "Ann" in role[1].content


def test_heuristic_roles() -> None:
    goals = ["Tend the farm and harvest crops"] * 3 + ["Mine stone and ore in the hills"] * 2
    assert heuristic_role(goals) == "farmer"
    assert heuristic_role(["Mine stone and ore in the hills", "Tend the farm"]) == "farmer"
    assert heuristic_role([]) == ""
    assert normalise_role("  The Head-Miner!! of town") == "head miner"
    assert normalise_role("Farmers") == normalise_role("a farmer") == "farmer"
    assert normalise_role("glass") == "glass" and normalise_role("boss") == "boss"
    assert normalise_role("!!") == "unknown"


def test_the_role_prompt_does_not_list_the_roles_to_find() -> None:
    text = ROLE_PROMPT.read_text().lower()
    for role in ("farmer", "miner", "guard", "scout", "strategist", "curator", "collector"):
        assert role not in text


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
        d = Democracy(llm, HeuristicSettings(), TEMPLATE, seed=0)
        ann = view(heard=heard("hi"))
        fb, brain = await d.feedback(ann)
        assert brain.startswith("llm") and fb.stance == "raise"
        prompt = model.calls[0].messages[1].content
        assert '"Bob: hi"' in prompt  # heard lines reach the prompt, quoted
        drafts, brain = await d.amendments(c0(), {"Ann": fb})
        assert brain.startswith("llm") and drafts[0].tax_rate == 0.3
        ballot = VoteView.model_validate({**ann.model_dump(),
                                          "amendments": tuple(a.text for a in drafts)})
        votes, brain = await d.vote(ballot)
        assert votes == ["yes"] and brain.startswith("llm")
        passed, counted, brain = await d.tally(drafts, {"Ann": votes})
        assert passed == counted == [1] and brain.startswith("llm")
        new = await d.rewrite(c0(), drafts, passed)
        assert new.tax_rate == 0.3 and new.brain.startswith("llm") and "30%" in new.text
        fb2, brain2 = await d.feedback(view())
        assert brain2 == "heuristic" and fb2.stance == "keep"


def test_amendment_draft_model() -> None:
    assert AmendmentDraft(text="x").tax_rate is None
