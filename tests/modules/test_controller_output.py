"""The controller's LLM output is grammar-friendly (enums and typed optional fields, no
free-form dict, so a schema-constrained decoder can only produce valid values), maps onto
every skill's arguments, keeps the heuristic's output exact, and its prompt stays short."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent_runtime import prompts
from agent_runtime.bottleneck_text import NEWEST_LAST, clip, render
from agent_runtime.config.models import BottleneckSettings
from agent_runtime.llm._schema import strict_json_schema
from agent_runtime.llm.tokens import estimate_tokens
from agent_runtime.state.sections import (
    Action,
    Conversation,
    Decision,
    Goals,
    Identity,
    IntentKind,
    Perception,
    PersonView,
    Plan,
    PlanStep,
    Section,
    Social,
    Utterance,
    UtteranceKind,
    WorkingMemory,
    WorkingMemoryItem,
)
from agent_runtime.world import (
    SKILLS,
    NearbyPlayer,
    NotableBlock,
    Observation,
    SkillOutcome,
    Vec3,
    validate_skill,
)
from modules.controller.decisions import (
    CHOICE_SKILLS,
    ControllerChoice,
    skill_args,
    skill_list,
    to_decision,
)
from modules.controller.prompt import heuristic_choice, prompt_view
from modules.heuristics.controller import decide
from tests.modules.helpers import NOW, bview

#: the rendered prompt (system + user, ~4 characters per token) of a mid-run view; it was
#: 710 with the free-form output model, the skill list in the user turn and the long rules,
#: 455 before the view was said tersely and the system prompt shortened (issue 30 part F: 407)
PROMPT_TOKENS_MAX = 420
#: the static part (a cached prefix): 249 tokens before part F, 225 after
SYSTEM_TOKENS_MAX = 230


def _enum(node: dict[str, Any], defs: dict[str, Any]) -> list[Any]:
    for alt in node.get("anyOf", [node]):
        if "$ref" in alt:
            alt = defs[alt["$ref"].rsplit("/", 1)[-1]]
        if "enum" in alt:
            return list(alt["enum"])
    raise AssertionError(f"no enum in {node}")


def test_the_schema_has_enums_and_no_free_form_field() -> None:
    schema, strict = strict_json_schema(ControllerChoice)
    assert strict  # no dict[str, Any]: strict structured output can express it
    props, defs = schema["properties"], schema.get("$defs", {})
    assert set(_enum(props["skill"], defs)) == set(SKILLS) - {"chat", "whisper"}
    assert set(_enum(props["kind"], defs)) == {k.value for k in IntentKind}
    assert set(_enum(props["say"], defs)) == {k.value for k in UtteranceKind}
    assert all(p.get("type") != "object" for p in props.values())
    assert set(CHOICE_SKILLS) == set(SKILLS) - {"chat", "whisper"}
    with pytest.raises(ValidationError):
        ControllerChoice.model_validate({"skill": "teleport"})
    with pytest.raises(ValidationError):
        ControllerChoice.model_validate({"kind": "dance"})


@pytest.mark.parametrize("skill", CHOICE_SKILLS)
def test_every_skill_gets_valid_arguments_from_the_typed_fields(skill: str) -> None:
    choice = ControllerChoice.model_validate(
        {"skill": skill, "item": "oak_log", "count": 2, "target": "Bob", "x": 1, "y": 64, "z": 2}
    )
    d = to_decision(choice.to_out(), "llm:m", Decision(), NOW)
    assert d is not None and d.skill is not None and d.skill.skill == skill
    assert validate_skill(d.skill) == d.skill


def test_arguments_map_by_meaning() -> None:
    give = ControllerChoice(skill="give", item="bread", count=2, target="Bob")
    assert skill_args(give) == {"player": "Bob", "item": "bread", "count": 2}
    collect = ControllerChoice(skill="collect", item="oak_log", count=3, target="Bob")
    assert skill_args(collect) == {"block": "oak_log", "count": 3}
    dep = ControllerChoice(skill="deposit", item="cobblestone", count=4, x=12, y=64, z=-3)
    assert skill_args(dep) == {"item": "cobblestone", "count": 4, "x": 12, "y": 64, "z": -3}
    d = to_decision(give.to_out(), "llm:m", Decision(), NOW)
    assert d is not None and d.skill is not None and d.skill.args["player"] == "Bob"


def test_an_utterance_goal_from_the_flat_fields() -> None:
    out = ControllerChoice(
        kind=IntentKind.TALK, say=UtteranceKind.OPINION, say_to="Bob", say_text="tax"
    ).to_out({"tax": -0.6})
    assert out.say is not None and out.say.kind is UtteranceKind.OPINION
    assert (out.say.to, out.say.topic, out.say.stance) == ("Bob", "tax", -0.6)
    refuse = ControllerChoice(
        kind=IntentKind.TALK, item="bread", say=UtteranceKind.REFUSE, say_to="Bob"
    ).to_out()
    assert refuse.say is not None and refuse.say.item == "bread"
    free = ControllerChoice(say=UtteranceKind.FREE, say_text="nice day").to_out()
    assert free.say is not None and free.say.text == "nice day" and free.say.topic is None


def test_the_heuristic_output_rides_along_exactly() -> None:
    v = bview(
        perception=Perception(observation=Observation(inventory={"bread": 3})),
        social=Social(people={"Bob": PersonView(name="Bob", sentiment=6)}),
        conversation=Conversation(
            lines=(Utterance(speaker="Bob", text="Ann, give me bread", to="Ann", at=NOW - 1),)
        ),
    )
    choice = heuristic_choice(v, random.Random(0))
    assert choice.to_out() == decide(v, random.Random(0))
    assert choice.skill == "give" and choice.target == "Bob" and choice.item == "bread"


def sample_view() -> Any:
    """A mid-run view: identity, perception, social, a greeting, goal, plan, memories."""
    return bview(**sample_sections())


def sample_sections() -> dict[str, Any]:
    """The sections of :func:`sample_view`."""
    obs = Observation(
        position=Vec3(x=12.3, y=64, z=-40.2),
        health=18,
        food=15,
        inventory={"oak_log": 6, "oak_planks": 8, "stick": 4, "wooden_pickaxe": 1, "bread": 2},
        players=(NearbyPlayer(name="Bob", position=Vec3(x=15, y=64, z=-36), distance=7.2),),
        blocks=tuple(
            NotableBlock(name=n, position=Vec3(x=0, y=64, z=0), distance=d)
            for n, d in [("oak_log", 5), ("stone", 8), ("crafting_table", 3), ("chest", 9)]
        ),
    )
    return dict(
        identity=Identity(
            name="Ann",
            traits=("You are curious and kind.", "You like to build."),
            community_goal="Build a thriving village together.",
        ),
        perception=Perception(observation=obs),
        goals=Goals(current="Make a stone pickaxe", kind="craft_tools", set_at=NOW - 60),
        plan=Plan(
            goal="Make a stone pickaxe",
            steps=(
                PlanStep(text="collect 3 cobblestone", done=True),
                PlanStep(text="craft a stone pickaxe"),
                PlanStep(text="mine iron ore"),
            ),
            current=1,
        ),
        social=Social(
            people={
                "Bob": PersonView(
                    name="Bob", sentiment=6, activity="mining", summary="Bob shares food."
                )
            }
        ),
        conversation=Conversation(
            lines=(Utterance(speaker="Bob", text="Hi Ann! What are you up to?", to="Ann"),)
        ),
        action=Action(last_outcome=SkillOutcome(skill="collect", success=True, ended_at=NOW)),
        working_memory=WorkingMemory(
            items=tuple(
                WorkingMemoryItem(text=t)
                for t in ("I collected 3 cobblestone.", "Bob said hello.", "I saw coal ore.")
            )
        ),
    )


def test_the_prompt_is_short() -> None:
    v = sample_view()
    path: Path = prompts.prompt_path("modules", "cognitive_controller")
    system, user = prompts.render(path, {"view": prompt_view(v), "skills": skill_list()})
    tokens = estimate_tokens(system.content) + estimate_tokens(user.content)
    view_tokens = estimate_tokens(v.text())
    print(f"controller prompt: {tokens} tokens, of which the view {view_tokens}", file=sys.stderr)
    assert tokens <= PROMPT_TOKENS_MAX
    assert estimate_tokens(system.content) <= SYSTEM_TOKENS_MAX
    assert "$" not in system.content + user.content


#: the view's one budget: the sections' ``max_chars`` within ``max_total_chars``
BUDGET = BottleneckSettings()


def _within_budget(text: str) -> bool:
    heads = sum(len(f"## {s.section}\n\n\n") for s in BUDGET.sections)
    return (
        len(text) <= min(BUDGET.max_total_chars, sum(s.max_chars for s in BUDGET.sections)) + heads
    )


def test_the_default_view_fits_the_one_budget() -> None:
    """The default sections at their limits, each with its ``## name`` header and blank line,
    fit ``max_total_chars``, the characters of the prompt's view a model call is billed for
    (1,800 by default): no default section is ever left out (the heuristic reads them all)
    and the model's prompt does not grow with the sections' limits."""
    assert BUDGET.max_total_chars == 1800
    worst = sum(len(f"## {s.section}\n") + s.max_chars + 2 for s in BUDGET.sections)
    assert worst <= BUDGET.max_total_chars


def test_the_prompt_view_says_each_line_once_within_its_budget() -> None:
    note = "Tried to collect log 4: expected +4 log, observed +0 (no world attached)"
    memory = WorkingMemory(items=tuple(WorkingMemoryItem(text=t) for t in [note, "x", note] * 4))
    v = bview(goals=Goals(current="Gather wood"), working_memory=memory)
    text = prompt_view(v)
    assert text.count(note) == 1 and "## goals\nCurrent goal: Gather wood" in text
    long = WorkingMemory(items=tuple(WorkingMemoryItem(text=f"memory {i} " * 12) for i in range(8)))
    big = bview(goals=Goals(current="Gather wood"), working_memory=long)
    assert len(v.text()) < len(big.text()) and big.sections["working_memory"].truncated
    kept = big.sections["working_memory"].text.splitlines()
    assert kept[-1] == f'"{("memory 7 " * 12).strip()}"'  # whole lines, the newest kept
    assert _within_budget(prompt_view(big))


def test_the_prompt_is_written_from_the_typed_data_once() -> None:
    """Each section's text is what its renderer writes from the typed data the heuristic
    reads, within the section's budget; the prompt shows those texts and nothing else (no
    second budget, nothing parsed back)."""
    v = crowded_view()
    text = prompt_view(v)
    for spec in BUDGET.sections:
        sec = v.sections.get(spec.section)
        if sec is None or not sec.text:
            continue
        lines = render(sec.data, spec)
        want, _ = clip(lines, spec.max_chars, newest=spec.section in NEWEST_LAST)
        assert sec.text == want, spec.section
        if spec.section != "plan":  # its goal line goes when the goal section says it
            assert f"## {spec.section}\n{sec.text}" in text
    narrow = BottleneckSettings(
        sections=tuple(
            s.model_copy(update={"max_chars": 60}) if s.section == "social" else s
            for s in BUDGET.sections
        )
    )
    from agent_runtime.bottleneck import build_view

    snapshot: dict[str, Section] = {
        "social": Social(people={"Bob": PersonView(name="Bob", summary="kind " * 40)})
    }
    assert len(build_view(snapshot, narrow).sections["social"].text) <= 60


def crowded_view() -> Any:
    """A view whose text repeats itself: activities the summaries say again, opinions, a
    conversation header, the plan's goal, a memory retrieved again, x/y/z positions."""
    people = {
        n: PersonView(
            name=n, sentiment=5, activity=a, summary=f"{n} seems neutral; says they are {a}"
        )
        for n, a in (("Bob", "gather wood"), ("Cleo", "collect 4 oak log"), ("Dario", "mine"))
    }
    talk = (
        ("Bob", "Hi Ann! I'm trying to gather wood.", "Ann"),
        ("Cleo", "Hi Dario! I'm trying to collect 4 oak log.", None),
        ("Bob", "Anyone has bread to spare?", None),
    )
    return bview(
        identity=Identity(
            name="Ann",
            traits=("You are curious and like to explore.",),
            community_goal="Build a thriving village together.",
            location_memories=(
                "the square is at x=0, y=65, z=0.",
                "the farm is at x=18, y=65, z=-6.",
            ),
        ),
        social=Social(people=people, opinions={"tax": 0.4, "religion": -0.2}),
        conversation=Conversation(
            lines=tuple(Utterance(speaker=s, text=t, to=to, at=NOW - 5) for s, t, to in talk)
        ),
        perception=Perception(observation=Observation(position=Vec3(x=1, y=64, z=2))),
        goals=Goals(current="Make a stone pickaxe"),
        plan=Plan(
            goal="Make a stone pickaxe",
            steps=(PlanStep(text="craft a stone pickaxe"), PlanStep(text="mine iron ore")),
        ),
        working_memory=WorkingMemory(
            items=(WorkingMemoryItem(text="Bob said hello."),),
            retrieved=("Bob said hello.", "I saw coal ore."),
        ),
    )


def test_the_view_says_each_fact_once_in_few_tokens() -> None:
    v = crowded_view()
    text = prompt_view(v)
    print(f"view: {estimate_tokens(text)} tokens", file=sys.stderr)
    assert "Recent conversation" not in text  # the system prompt says quoted words are data
    for speaker, said in (("Bob (to Ann)", "Hi Ann! I'm trying to gather wood."), ("Bob", "bread")):
        assert speaker in text and said in text
    for name, act in (("Bob", "gather wood"), ("Cleo", "collect 4 oak log"), ("Dario", "mine")):
        line = next(x for x in text.splitlines() if x.startswith(f"{name}: "))
        assert line.count(act) == 1 and "sentiment 5/10" in line  # said once, by the summary
    assert "My opinions (-1 against .. +1 for): tax +0.4, religion -0.2" in text
    assert "My opinion on" not in text
    assert "Current goal: Make a stone pickaxe" in text and "Plan for:" not in text
    assert "[>] craft a stone pickaxe" in text and "[ ] mine iron ore" in text
    assert text.count("Bob said hello.") == 1 and 'Remembered: "I saw coal ore."' in text
    assert "the square is at (0, 65, 0)." in text and "the farm is at (18, 65, -6)." in text
    # an activity the summary does not say, and another plan goal, stay
    other = Social(people={"Eve": PersonView(name="Eve", activity="fish", summary="Eve is kind")})
    assert 'activity "fish"' in prompt_view(bview(social=other))
    moved = Plan(goal="Get wood", steps=(PlanStep(text="collect 3 oak log"),))
    assert "Plan for: Get wood" in prompt_view(bview(goals=Goals(current="Eat"), plan=moved))


def test_the_prompt_shows_what_the_decision_needs_in_a_full_view() -> None:
    """A view whose identity, social and conversation fill their bottleneck budgets (as in a
    village) still shows the model its goal, its plan, what it is doing and what it holds
    (a prompt that kept the bottleneck's first sections while 1,500 characters lasted showed
    the model its inventory in 2% of a run's prompts)."""
    chatty = tuple(
        Utterance(
            speaker=n,
            text=f"Hi Ann! I'm trying to {a} ({i}); see you at the hall, great to see you today!",
            at=NOW,
        )
        for i, (n, a) in enumerate(
            (("Bob", "gather wood"), ("Cleo", "fish"), ("Dario", "mine")) * 3
        )
    )
    people = {
        n: PersonView(name=n, sentiment=6, activity="x" * 40, summary=f"{n} is kind. " * 6)
        for n in ("Bob", "Cleo", "Dario", "Edda")
    }
    v = sample_sections()
    full = bview(
        identity=Identity(
            name="Ann",
            traits=("You are curious and kind.",) * 4,
            community_goal="Build a thriving village together.",
            location_memories=tuple(f"place {i} is at x={i}, y=65, z=0." for i in range(12)),
        ),
        social=Social(people=people, opinions={"tax": 0.4}),
        conversation=Conversation(lines=chatty),
        perception=v["perception"],
        goals=Goals(current="Make a stone pickaxe"),
        plan=v["plan"],
        action=v["action"],
    )
    assert all(full.sections[n].truncated for n in _CROWDED)
    text = prompt_view(full)
    assert _within_budget(text)
    assert not full.dropped and len(text) <= BUDGET.max_total_chars
    for fact in (
        "Current goal: Make a stone pickaxe",
        "[>] craft a stone pickaxe",
        "Inventory: ",
        "Last action collect succeeded",
        "You are Ann.",
        "tax +0.4",
        "great to see you today!",
    ):
        assert fact in text, fact


_CROWDED = ("identity", "social", "conversation")
