"""Chef scenario: the runner (world none, then the embedded world), the recompute script, the
chef's valuation prompt (scripted model) and the events it reads back."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import yaml

from agent_runtime.llm.brain import Brain
from agent_runtime.llm.scripted import ScriptedLanguageModel
from agent_runtime.state.sections import Conversation, PersonView, Social, Utterance
from experiments.chef import recompute
from experiments.chef.ledger import read_ledger, unexplained
from experiments.chef.runner import valuations
from experiments.files import read_csv
from experiments.registry import default_config, run
from experiments.social_perception.runner import ScoreOut
from tests.experiments.test_experiment_prompts import check_prompts, run_scripted
from tests.experiments.test_runs import as_if_llm, common_outputs, options, recomputed, tampered

PLOTS = ["food_vs_valuation_full.png", "food_by_attitude.png"]


def _consistent(out: Path, metrics: dict[str, Any]) -> dict[str, Any]:
    """Files and figures agree: one row per character and run, world = ledger per run."""
    figs = recomputed(out, recompute)
    assert recompute.recompute_main("chef", recompute.figures, recompute.tables, [str(out)]) == 0
    chars, chefs = read_csv(out / "characters.csv"), read_csv(out / "chef.csv")
    runs = read_csv(out / "runs.csv")
    assert len(chefs) == len(runs) and len(chars) == sum(int(r["agents"]) - 1 for r in runs)
    for cond, f in metrics["figures"].items():
        for r in f["runs"]:
            rows = [c for c in chars if c["condition"] == cond and int(c["repeat"]) == r["repeat"]]
            assert r["food_given"] == r["ledger_total"] == sum(int(c["food_given"]) for c in rows)
            assert all(int(c["food_start"]) == 0 for c in rows)  # hungry: no food at the start
            for c in rows:  # the world's check: end - start - own change - received
                assert int(c["unexplained"]) == int(c["food_end"]) - int(c["food_start"]) - int(
                    c["own_change"]) - int(c["food_given"]) - int(c["from_others"])
            assert all(0 <= float(c["valuation"]) <= 10 for c in rows if c["valuation"])
    return figs


@pytest.mark.services
async def test_runner_and_recompute(tmp_path: Path, small_config: Callable[..., Path]) -> None:
    """World none (nobody hears anybody): the pipeline, its files and the recompute check."""
    cfg = small_config("chef", {"duration_s": 300})
    out, metrics = await run("chef", cfg, options(tmp_path, time_scale=0.02))
    common_outputs(out, [*PLOTS, "food_vs_valuation_no_social.png"])
    figs = _consistent(out, metrics)
    assert set(figs) == {"full", "no_social"} and figs["full"]["repeats"] == 1
    as_if_llm(out, recompute, ("full", "no_social"))
    assert {c["attitude"] for c in read_csv(out / "characters.csv")} == {
        "admiring", "friendly", "indifferent", "rude"}

    def more_food(rows: list[dict[str, str]]) -> None:
        rows[0]["food_given"] = str(int(rows[0]["food_given"]) + 3)

    assert any("figure full" in x for x in tampered(out, recompute, "characters.csv", more_food))


def test_recompute_from_raw_rows(tmp_path: Path) -> None:
    """Raw files -> figures -> report verified; a changed row makes verification fail."""
    from experiments.files import write_csv
    from experiments.runner_base import RUN_FIELDS, verify
    from experiments.spec import load_experiment_file

    out = tmp_path / "out"
    out.mkdir()
    (out / "config.yaml").write_text(default_config("chef").read_text())
    runs = [{"condition": c, "repeat": r, "seed": 1, "agents": 5, "brain": "heuristic",
             "models": {}, "brains_seen": {"heuristic": 3}, "time_scale": 0.1}
            for c in ("full", "no_social") for r in (0, 1)]
    write_csv(out / "runs.csv", runs, RUN_FIELDS)
    food = {("full", 0): [2, 1, 1, 0], ("full", 1): [1, 1, 0, 0],
            ("no_social", 0): [1, 1, 1, 0], ("no_social", 1): [0, 0, 0, 0]}
    value = [8.0, 6.5, 5.0, 2.0]
    chars: list[dict[str, Any]] = []
    chefs: list[dict[str, Any]] = []
    for (c, r), given in food.items():
        for (name, att), g, v in zip([("Finn", "admiring"), ("Gus", "friendly"),
                                      ("Ivy", "indifferent"), ("Joss", "rude")], given, value,
                                     strict=True):
            chars.append({"condition": c, "repeat": r, "character": name, "attitude": att,
                          "attitude_score": 3 - len(chars) % 4, "food_start": 0, "food_end": g,
                          "food_given": g, "from_others": 0, "own_change": 0, "unexplained": 0,
                          "requests": 2, "valuation": v,
                          "valuation_source": "social", "sentiment": v, "brain": "heuristic",
                          "summary": "x"})
        chefs.append({"condition": c, "repeat": r, "chef": "Marla", "food_start": 4,
                      "food_end": 4 - sum(given), "own_change": -sum(given),
                      "ledger_total": sum(given), "gives_failed": 0, "unexplained": 0,
                      "measured_by": "admin_api"})
    write_csv(out / "characters.csv", chars, recompute.CHARACTER_FIELDS)
    write_csv(out / "chef.csv", chefs, recompute.CHEF_FIELDS)
    figs = recompute.figures(out)
    full = figs["full"]
    r0 = float(np.corrcoef(value, food[("full", 0)])[0, 1])
    assert full["runs"][0]["r_food_valuation"] == pytest.approx(r0)
    assert full["runs"][0]["world_matches_ledger"] and full["r_defined"] == 2
    assert math.isfinite(full["r_ci"][0]) and full["r_ci"][0] <= full["r_mean"] <= full["r_ci"][1]
    assert full["food_by_attitude"] == {"admiring": 1.5, "friendly": 1.0, "indifferent": 0.5,
                                        "rude": 0.0}
    assert figs["no_social"]["runs"][1]["r_food_valuation"] is not None
    assert math.isnan(figs["no_social"]["runs"][1]["r_food_valuation"])  # nobody got food
    assert figs["no_social"]["r_defined"] == 1
    # the report: written from these figures, verified; a pipeline check shows no paper column
    from experiments.runner_base import RunBook
    from experiments.spec import ExperimentOptions

    exp = load_experiment_file(out / "config.yaml")
    book = RunBook(exp, ExperimentOptions(out=out), out)
    book.configured, book.rows = "heuristic", runs
    from experiments.chef.runner import ChefProtocol
    from experiments.runner_base import parse_protocol

    p = parse_protocol(exp, ChefProtocol, "chef")
    book.finish("Chef scenario", p, figs, recompute.tables(out, figs))
    report = (out / "report.md").read_text()
    assert report.splitlines()[0].endswith("pipeline check (heuristic brain)")
    assert "| paper |" not in report
    assert verify(out, figs, recompute.tables(out, figs)) == []
    assert recompute.recompute_main("chef", recompute.figures, recompute.tables, [str(out)]) == 0
    # the same raw files from an LLM brain: the paper's statement beside ours, with the CI
    llm = as_if_llm(out, recompute, ("full", "no_social"))
    assert f"| full | 2 | 2 | {full['r_mean']:.2f} | [{full['r_ci'][0]:.2f}, " in llm
    chars[0]["food_given"] = 0  # Finn got nothing after all
    write_csv(out / "characters.csv", chars, recompute.CHARACTER_FIELDS)
    assert recompute.recompute_main("chef", recompute.figures, recompute.tables, [str(out)]) == 1


async def test_valuation_prompt_carries_only_the_chefs_own_impression() -> None:
    """The chef's valuation of a character is scored from the chef's own summary of them:
    the prompt holds that summary (quoted as data), never the character's traits or its
    configured attitude."""
    seen: list[Any] = []

    def respond(req: Any) -> ScoreOut:
        seen.append(req)
        return ScoreOut(score=7.5, reason="warm words")

    model = ScriptedLanguageModel(responder=respond)
    llm = SimpleNamespace(uses_llm=True,
                          brain=lambda module, agent: Brain(model, module=module, agent=agent))
    exp = yaml.safe_load(default_config("chef").read_text())
    finn = exp["protocol"]["characters"][0]
    social = Social(people={"Finn": PersonView(
        name="Finn", summary="Finn seems friendly towards me; last said «Thanks, friend!»",
        sentiment=7.0, interactions=6)})
    conv = Conversation(lines=(Utterance(speaker="Ivy", text="Marla, can I have some food?"),))
    rows = await valuations(llm, "Marla", ["Finn", "Ivy", "Joss"], social, conv)
    assert [r["valuation_source"] for r in rows] == ["social", "heard", "none"]
    assert rows[0]["valuation"] == 7.5 and rows[1]["valuation"] == 7.5
    assert math.isnan(rows[2]["valuation"]) and rows[0]["brain"] != "heuristic"
    assert len(seen) == 2
    text = "\n".join(m.content for m in seen[0].messages)
    assert "Finn seems friendly towards me" in text and "Marla" in text
    for hidden in (finn["attitude"], *finn["traits"], "attitude"):
        assert hidden not in text
    assert "can I have some food" in "\n".join(m.content for m in seen[1].messages)


@pytest.mark.services
async def test_every_prompt_of_a_chef_run_carries_only_its_agents_own_profile(
        tmp_path: Path, small_config: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole run with the recording model (world none, the chef and 2 characters): no
    agent's prompt holds another agent's traits or a hidden attitude label. (The characters'
    own profiles name the chef, so names are not checked here.)"""
    model, traits = await run_scripted(tmp_path, small_config, "chef", "full",
                                       {"duration_s": 120}, 0.05, monkeypatch)
    assert set(traits) == {"Marla", "Finn", "Gus"}
    modules = check_prompts(model.calls, traits, hidden=("admiring", "indifferent", "attitude"),
                            names_allowed={r.module for r in model.calls})
    assert {"goal_generation", "cognitive_controller"} <= modules


def test_ledger_and_the_worlds_check_from_events() -> None:
    call = {"skill": "give", "args": {"player": "Finn", "item": "bread", "count": 1}}
    bake = {"skill": "craft", "args": {"item": "bread", "count": 1}}
    events = [
        {"type": "skill_outcome", "agent": "Marla", "success": True, "call": call,
         "delta": {"bread": -1}},
        {"type": "skill_outcome", "agent": "Marla", "success": False, "call": call, "delta": {}},
        {"type": "skill_outcome", "agent": "Marla", "success": True, "call": bake,
         "delta": {"bread": 1, "wheat": -3}},  # the chef bakes: not food given
        {"type": "skill_outcome", "agent": "Gus", "success": True, "call": bake,
         "delta": {"bread": 1, "wheat": -3}},
        {"type": "skill_outcome", "agent": "Gus", "success": True, "call": call,
         "delta": {"bread": -1}},  # Gus gives Finn his bread: not the chef's
        {"type": "skill_outcome", "agent": "Finn", "success": True,
         "call": {"skill": "collect", "args": {"block": "oak_log"}},
         "delta": {"oak_log": 3, "bread": 2}},  # both gifts arrived while Finn was collecting
        {"type": "speech", "agent": "Finn", "to": "Marla", "delivered": True,
         "text": "Marla, can I have some food? I need it."},
        {"type": "speech", "agent": "Joss", "to": "Marla", "delivered": True, "text": "Hi Marla!"},
        {"type": "speech", "agent": "Joss", "to": "Marla", "delivered": False,
         "text": "Marla, can I have some food?"},
    ]
    led = read_ledger(events, "Marla", ("bread",), ["Finn", "Gus", "Joss"])
    assert led.received("Finn", "Marla") == 1 and led.received("Finn") == 2
    assert led.given("Marla") == 1 and led.failed == {"Marla": 1}
    assert led.asked == {"Finn": 1} and led.own["Marla"] == 0 and led.own["Gus"] == 0
    assert led.own["Finn"] == 0  # a pickup, not Finn's own making
    start = {"Marla": 4, "Finn": 0, "Gus": 0}
    end = {"Marla": 4, "Finn": 2, "Gus": 0}  # what the admin API read
    assert [unexplained(a, start, end, led) for a in start] == [0, 0, 0]
    end["Finn"] = 3  # a bread nobody's skills or gives explain
    assert unexplained("Finn", start, end, led) == 1


@pytest.mark.slow
@pytest.mark.services
@pytest.mark.minecraft
async def test_chef_in_the_embedded_world(tmp_path: Path,
                                          small_config: Callable[..., Path]) -> None:
    """The chef and 4 characters on the embedded world, full condition, 80 protocol s at
    time scale 0.25 (0.5 before: the same protocol in half the wall time; tests/README.md,
    Speed): inventories through the admin API, requests heard, files consistent."""
    cfg = small_config("chef", {"duration_s": 80}, repeats=1)
    opts = options(tmp_path, world="embedded", time_scale=0.25, conditions=("full",))
    out, metrics = await run("chef", cfg, opts)
    common_outputs(out, PLOTS)
    _consistent(out, metrics)
    run0 = metrics["figures"]["full"]["runs"][0]
    assert run0["measured_by"] == "admin_api"
    chars = read_csv(out / "characters.csv")
    assert sum(int(c["requests"]) for c in chars) > 0  # hungry characters asked the chef


def test_the_cli_knows_every_registered_experiment() -> None:
    from agent_runtime.app.cli.cmd_experiment import NAMES
    from experiments.registry import EXPERIMENTS

    assert set(NAMES) == set(EXPERIMENTS) and "chef" in NAMES
