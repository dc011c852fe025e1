"""Culture experiment, fast: the meme extractor, conversion levels, the area of influence
and the population, all on synthetic data (no services)."""

from __future__ import annotations

import math
import random

import pytest

from experiments.culture.memes import group_memes, memes_over_time, parse_keywords, topics_of
from experiments.culture.population import RURAL, Population, agent_specs, populate, scaled
from experiments.culture.religion import (
    DIRECT,
    INDIRECT,
    NONE,
    conversions,
    converts_over_time,
    influence_over_time,
    level_of,
    union_area,
)
from modules.heuristics.controller import OPINION_MIN
from modules.heuristics.stance import stance_of
from modules.heuristics.talking import opinion_line
from tests.experiments.village_topics import village_topics

PRIEST = ("You are a devout Pastafarian priest of the Flying Spaghetti Monster.",)


def test_keyword_extractor_reads_topics_from_goal_text() -> None:
    assert topics_of("Gather wood from the forest for the village") == {"wood"}
    assert topics_of("Mine stone and ore in the hills") == {"mining"}
    assert topics_of("Tell everyone about the Flying Spaghetti Monster") == {"religion"}
    assert topics_of("Wait here") == set()
    table = parse_keywords("# comment\nfish: fish fishing\n\nboats: boat\n")
    assert table == {"fish": ("fish", "fishing"), "boats": ("boat",)}
    assert topics_of("Go fishing by boat", table) == {"fish", "boats"}
    with pytest.raises(ValueError, match="line 1"):
        parse_keywords("no colon here")


def test_memes_per_agent_and_group_over_time() -> None:
    rows = [
        {"agent": "Ann", "t": 10, "topic": "wood"}, {"agent": "Ann", "t": 40, "topic": "wood"},
        {"agent": "Ann", "t": 50, "topic": "mining"}, {"agent": "Bob", "t": 20, "topic": "wood"},
        {"agent": "Cy", "t": 70, "topic": "farming"},
    ]
    per = memes_over_time(rows, ["Ann", "Bob", "Cy", "Dee"], [0, 30, 60, 90])
    assert per == {"Ann": [0, 1, 2, 2], "Bob": [0, 1, 1, 1], "Cy": [0, 0, 0, 1],
                   "Dee": [0, 0, 0, 0]}
    g = group_memes(rows, {"Town1": ["Ann", "Bob"], RURAL: ["Cy", "Dee"], "empty": []}, 90)
    assert g["Town1"] == {"members": 2, "per_capita": 1.5, "distinct": 2,
                          "distinct_per_capita": 1.0}
    assert g[RURAL]["per_capita"] == 0.5 and g[RURAL]["distinct"] == 1
    assert math.isnan(g["empty"]["per_capita"])


def test_conversion_levels_only_go_up() -> None:
    assert level_of("Praise the Flying Spaghetti Monster!") == DIRECT
    assert level_of("I am a pastafarian now") == DIRECT
    assert level_of("pastafarianism is great") == DIRECT
    assert level_of("I could eat some pasta") == INDIRECT
    assert level_of("Spaghetti for dinner?") == INDIRECT
    assert level_of("Let us mine stone") == NONE
    assert level_of("antipasta is not a word we match") == NONE  # word starts only
    speech = [
        {"agent": "Ann", "t": 50, "text": "I love spaghetti"},
        {"agent": "Ann", "t": 80, "text": "Hello there"},  # does not lower her level
        {"agent": "Ann", "t": 120, "text": "The Spaghetti Monster is real"},
        {"agent": "Bob", "t": 30, "text": "Pastafarian here"},  # direct => also indirect
        {"agent": "Pat", "t": 1, "text": "Praise the Flying Spaghetti Monster"},  # a priest
        {"agent": "Cy", "t": 10, "text": "Nice weather"},
    ]
    conv = conversions(speech)
    assert conv == {"Ann": {INDIRECT: 50.0, DIRECT: 120.0}, "Bob": {INDIRECT: 30.0, DIRECT: 30.0},
                    "Pat": {INDIRECT: 1.0, DIRECT: 1.0}}
    rows = converts_over_time(conv, ["Pat"], [0, 40, 100, 130])
    assert [(r["indirect"], r["direct"], r["any"]) for r in rows] == [
        (0, 0, 0), (0, 1, 1), (1, 1, 2), (0, 2, 2)]


def test_area_of_influence_is_the_union_of_hearable_discs() -> None:
    r = 10.0
    one = union_area([(0.0, 0.0)], r, 0.5)
    assert one == pytest.approx(math.pi * r * r, rel=0.02)
    assert union_area([(0.0, 0.0), (100.0, 0.0)], r, 0.5) == pytest.approx(2 * one, rel=0.01)
    assert union_area([(0.0, 0.0), (0.0, 0.0)], r, 0.5) == one
    lens = union_area([(0.0, 0.0), (10.0, 0.0)], r, 0.5)
    assert one < lens < 2 * one
    assert union_area([], r) == 0.0
    conv = {"Ann": {INDIRECT: 50.0}, "Bob": {INDIRECT: 10.0, DIRECT: 10.0},
            "Pat": {INDIRECT: 0.0, DIRECT: 0.0}}
    positions = [
        {"agent": "Ann", "t": 0, "x": 0, "z": 0}, {"agent": "Ann", "t": 60, "x": 500, "z": 0},
        {"agent": "Bob", "t": 0, "x": 0, "z": 0}, {"agent": "Pat", "t": 0, "x": 900, "z": 0},
    ]
    rows = influence_over_time(conv, ["Pat"], positions, [0, 30, 60], r, 0.5)
    assert rows[0]["area_any"] == 0.0  # nobody converted yet; the priest is apart
    assert rows[1]["area_any"] == one and rows[1]["area_direct"] == one  # Bob only
    assert rows[2]["area_any"] == pytest.approx(2 * one, rel=0.01)  # Ann moved away
    assert rows[2]["area_direct"] == one


def _pop(**kw: object) -> Population:
    base: dict[str, object] = {
        "personality_traits": ("You are calm.", "You are shy.", "You are kind."),
        "occupations": ("You are a farmer.",), "priest_traits": PRIEST,
        "inventory_pool": {"bread": 4, "apple": 3, "coal": 8}, "items_per_agent": (1, 2),
    }
    base.update(kw)
    return Population.model_validate(base)


def test_population_at_the_papers_scale_and_scaled() -> None:
    p = _pop()
    towns, people = populate(p, seed=5)
    assert len(people) == 500 and len(towns) == 6
    homes = [r.home for r in people]
    assert all(homes.count(t.name) == 33 for t in towns) and homes.count(RURAL) == 302
    priests = [r for r in people if r.priest]
    assert len(priests) == 20 and {r.home for r in priests} == {"Town1"}
    assert all(r.traits == PRIEST for r in priests)
    assert not any("Pastafarian" in " ".join(r.traits) for r in people if not r.priest)
    names = [r.name.lower() for r in people]
    assert len(set(names)) == 500 and all(3 <= len(n) <= 16 and n.isalnum() for n in names)
    for r in people:
        home = next((t for t in towns if t.name == r.home), None)
        d = [math.hypot(r.x - t.x, r.z - t.z) for t in towns]
        if home is None:
            assert all(x > t.radius for x, t in zip(d, towns, strict=True))
        else:
            assert math.hypot(r.x - home.x, r.z - home.z) <= home.radius + 0.1
        assert abs(r.x) <= 500 and abs(r.z) <= 600
        assert 1 <= len(r.inventory) <= 2
    specs = agent_specs(p, towns, people)
    assert all(len(s["location_memories"]) == 6 for s in specs)  # every town, every agent
    assert set(specs[0]) == {"name", "traits", "location_memories", "spawn_location",
                             "inventory"}  # an agent's own config, no role or home
    assert populate(p, seed=5) == (towns, people)  # seeded
    assert populate(p, seed=6)[1][0].name != people[0].name or \
        populate(p, seed=6)[0] != towns
    s = scaled(p, 0.1)
    assert (s.agents, s.towns, s.per_town, s.priests) == (50, 6, 3, 2)
    assert s.area[0] == pytest.approx(1000 * math.sqrt(0.1))
    assert s.town_radius == pytest.approx(50 * math.sqrt(0.1))


def test_heuristic_conversion_comes_from_heard_words_only() -> None:
    """The modules' heuristic with the faith the culture village hands its agents: a priest's
    own traits give it a strong religion stance; a listener's stance moves only with the
    words it heard (content), and once strong enough its opinion line (the topic's words) is
    what the metrics count as a conversion."""
    topics = village_topics("culture")
    assert set(topics) == {"religion"}  # the culture village talks about its faith only
    rel, given = topics["religion"], tuple(topics.values())
    assert stance_of(PRIEST, rel) >= 0.5
    plain = ("You are calm.", "You are a farmer.")
    assert stance_of(plain, rel) == 0.0
    heard = "Praise the Flying Spaghetti Monster, I am a Pastafarian!"
    moved = stance_of([*plain, heard], rel)
    assert moved >= OPINION_MIN
    assert stance_of([*plain, "Hi! I'm trying to mine stone."], rel) == 0.0
    lines = {opinion_line("religion", moved, random.Random(i), given) for i in range(30)}
    assert {level_of(x) for x in lines} <= {INDIRECT, DIRECT} and len(lines) >= 2
    against = {opinion_line("religion", -0.6, random.Random(i), given) for i in range(30)}
    assert {level_of(x) for x in against} == {NONE}  # rejecting it is no conversion
    tax = village_topics("tax")["tax"]
    assert stance_of([heard], tax) == 0.0  # the tax topic does not hear it


def test_the_shipped_file_is_the_papers_protocol() -> None:
    from experiments.culture.runner import CultureProtocol
    from experiments.registry import default_config
    from experiments.spec import load_experiment_file, parse_protocol

    p = parse_protocol(load_experiment_file(default_config("culture")), CultureProtocol, "c")
    q = p.population
    assert (p.duration_s, p.scale, q.agents, q.towns, q.per_town, q.priests) == (
        9000, 1.0, 500, 6, 33, 20)
    assert (q.area, q.town_radius) == ((1000, 1200), 50)


def test_final_figures_cover_the_whole_run() -> None:
    """A convert who first speaks after the last whole sampling period (at 100 s of a 108 s
    run sampled every 30 s) is counted in the final figures: the run's end is a sample."""
    from experiments.culture.analysis import run_figures, sample_times

    assert sample_times(108.0, 30.0) == [0.0, 30.0, 60.0, 90.0, 108.0]
    assert sample_times(120.0, 30.0) == [0.0, 30.0, 60.0, 90.0, 120.0]
    residents = [{"name": "Pri", "home": "Town1", "priest": "True"},
                 {"name": "Lay", "home": RURAL, "priest": "False"}]
    speech = [{"agent": "Pri", "t": "5", "text": "Praise the Spaghetti Monster"},
              {"agent": "Lay", "t": "100", "text": "I like pasta"},
              {"agent": "Lay", "t": "109", "text": "The Spaghetti Monster!"}]  # after the end
    positions = [{"agent": a, "t": "0", "x": "0", "z": "0"} for a in ("Pri", "Lay")]
    info = {"duration_s": 108.0, "sample_every_s": 30.0, "hearing_radius": 32.0,
            "area_cell": 2.0}
    f = run_figures(info, residents, speech, [], positions)
    assert f["converts_final"] == {"t": 108.0, "indirect": 1, "direct": 0, "any": 1}
    assert f["convert_levels"] == {"Lay": "indirect"}  # what it had said by the end
