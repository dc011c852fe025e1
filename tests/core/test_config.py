"""Village file validation: good files load; bad files name the file, the field and the problem."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pydantic import ValidationError

from agent_runtime.app.cli.main import main
from agent_runtime.config.errors import ConfigError
from agent_runtime.config.loader import ResolvedAgent, load_config, resolve_agents
from agent_runtime.config.module_table import MODULE_NAMES, PRESETS
from agent_runtime.config.names import TRAIT_POOL

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "village.yaml"
    p.write_text(text)
    return p


def test_shipped_configs_are_valid() -> None:
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        cfg = load_config(path)
        assert resolve_agents(cfg), path


def test_minimal_file_gets_defaults(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "agents:\n  - name: Ann\n"))
    assert cfg.services.redis == "embedded"
    assert cfg.llm.provider == "heuristic"
    # every module of the full preset, each once, in the table's order (MODULE_NAMES: the
    # order agents start them in)
    assert cfg.modules.enabled() == tuple(n for n in MODULE_NAMES if n in PRESETS["full"])
    assert set(cfg.modules.enabled()) == set(PRESETS["full"])
    with pytest.raises(ValidationError):  # frozen
        cfg.run.seed = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "path", "words"),
    [
        ("agents:\n  - name: A\n", "agents[0].name", "not a valid Minecraft name"),
        ("agents:\n  - name: Ann\n    inventory: {bread: -1}\n", "agents[0].inventory", "0..2304"),
        ("run:\n  seed: many\nagents:\n  - name: Ann\n", "run.seed", "whole number (got 'many')"),
        ("run:\n  sed: 1\nagents:\n  - name: Ann\n", "run.sed", "unknown field"),
        ("services:\n  redis: localhost\nagents:\n  - name: Ann\n", "services.redis", "redis://"),
        (
            "modules:\n  overrides: {dreaming: {enabled: true}}\nagents:\n  - name: Ann\n",
            "modules.overrides.dreaming",
            "unknown module",
        ),
        (
            "bottleneck:\n  sections: [{section: decision}]\nagents:\n  - name: Ann\n",
            "bottleneck.sections",
            "decision",
        ),
        ("agents:\n  - name: Ann\n  - name: ann\n", "", "unique"),
        ("run:\n  seed: 1\n", "", "at least one"),
        ("llm:\n  provider: gpt\nagents:\n  - name: Ann\n", "llm.provider", ""),
        ("agent_templates:\n  - count: 0\n", "agent_templates[0].count", "at least 1 (got 0)"),
        (
            "agents: [{name: Ann}]\nbottleneck: {sections: [{section: goals, size: 3}]}\n",
            "bottleneck.sections[0].size",
            "unknown field",
        ),
        (
            "agents: [{name: Ann}]\nmodules: {overrides: {memory: {cadence: 5, cadence_max: 2}}}\n",
            "modules.overrides.memory.cadence_max",
            "2.0 is below the cadence 5.0",
        ),
        (
            "agents: [{name: Ann}]\nmodules: {overrides: {goal_generation: {cadence_max: 2}}}\n",
            "modules.overrides.goal_generation.cadence_max",
            "below the cadence 5.0",
        ),
        (
            "agents: [{name: Ann}]\nllm: {modules: {cognitiv_controller: gpt-4o}}\n",
            "llm.modules.cognitiv_controller",
            "did you mean 'cognitive_controller'",
        ),
        (
            "agents: [{name: Ann}]\nworld: {kind: embedded, version: 1.20.1}\n",
            "world.version",
            "not supported",
        ),
    ],
)
def test_bad_files_name_field(tmp_path: Path, text: str, path: str, words: str) -> None:
    f = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(f)
    msg = str(info.value)
    assert str(f) in msg
    assert any(p.path == path for p in info.value.problems), info.value.problems
    assert words in msg


def test_yaml_syntax_error_names_line(tmp_path: Path) -> None:
    f = write(tmp_path, "agents:\n  - name: Ann\n   traits: [x\n")
    with pytest.raises(ConfigError) as info:
        load_config(f)
    assert "line" in info.value.problems[0].path
    assert "YAML syntax error" in str(info.value)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="empty"):
        load_config(write(tmp_path, ""))


def test_cli_validate_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "agents:\n  - name: Ann\n    traits: 5\n")
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "agents[0].traits" in err and "Traceback" not in err
    good = tmp_path / "good.yaml"
    good.write_text("agents:\n  - name: Ann\n")
    assert main(["validate", str(good)]) == 0
    assert "OK" in capsys.readouterr().out


def test_templates_generate_distinct_seeded_names(tmp_path: Path) -> None:
    text = (
        "run: {seed: 3}\nagents:\n  - name: Ann\nagent_templates:\n"
        "  - {count: 120, random_personality: true, spawn_spread: 10}\n"
    )
    cfg = load_config(write(tmp_path, text))
    a = resolve_agents(cfg, rng=random.Random(1))
    b = resolve_agents(cfg, rng=random.Random(1))
    names = [x.name for x in a]
    assert len(names) == 121 and len({n.lower() for n in names}) == 121
    assert names == [x.name for x in b]  # deterministic for a seed
    assert all(3 <= len(n) <= 16 for n in names)
    gen = a[1:]
    # three generated trait sentences each, never two of one pair of opposites
    pairs = [set(TRAIT_POOL[i : i + 2]) for i in range(0, len(TRAIT_POOL), 2)]
    assert all(
        sum(t in TRAIT_POOL for t in x.traits) == 3
        and all(len(p & set(x.traits)) <= 1 for p in pairs)
        for x in gen
    )
    # what a trait is worth is an experiment's ground truth, not the core's
    assert not {"likeability", "extroversion"} & set(ResolvedAgent.model_fields)
    assert all(x.spawn_location is not None for x in gen)
    assert len({x.traits for x in gen}) > 10


def test_a_template_gives_each_of_its_agents_what_it_says(tmp_path: Path) -> None:
    text = (
        "community_goal: a village\nagent_templates:\n"
        "  - {count: 2, name_prefix: Guard, traits: [brave], role: guard, community_goal: walls,"
        " inventory: {bread: 3}, location_memories: [the gate is north]}\n"
        "  - {count: 1}\n"
    )
    *guards, plain = resolve_agents(load_config(write(tmp_path, text)))
    assert len(guards) == 2
    for a in guards:
        assert a.name.startswith("Guard") and a.traits == ("brave",) and a.role == "guard"
        assert a.community_goal == "walls" and a.inventory == {"bread": 3}
        assert a.location_memories[0] == "the gate is north"
    assert plain.role is None and plain.community_goal == "a village" and not plain.inventory


def test_presets_are_ablations(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "modules: {preset: baseline}\nagents:\n  - name: Ann\n"))
    assert set(cfg.modules.enabled()) == {
        "perception",
        "memory",
        "skill_execution",
        "cognitive_controller",
    }
    text = (
        "modules:\n  preset: full\n  overrides:\n    action_awareness: {enabled: false}\n"
        "    perception: {cadence: 0.5}\nagents:\n  - name: Ann\n"
    )
    cfg = load_config(write(tmp_path, text))
    assert "action_awareness" not in cfg.modules.enabled()
    assert cfg.modules.cadence("perception") == (0.5, None)
    assert cfg.modules.cadence("goal_generation") == (5.0, 10.0)


def test_module_options_are_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A misspelt option or a value of the wrong type is exit 2 naming the file and the field;
    a good one reaches the module, the rest take the module's defaults."""
    from agent_runtime.config.module_options import FOLLOW_PLAN_STEPS
    from agent_runtime.module import Schedule
    from modules.controller.module import CognitiveController
    from modules.registry import build_modules

    def village(options: str) -> Path:
        return write(
            tmp_path,
            "agents:\n  - name: Ann\nmodules:\n  overrides:\n"
            f"    cognitive_controller:\n      options: {options}\n",
        )

    for options, field in (
        ("{follow_plan_step: 2}", "cognitive_controller.options.follow_plan_step"),
        ("{max_interval_s: soon}", "cognitive_controller.options.max_interval_s"),
        ("{follow_plan_steps: -1}", "cognitive_controller.options.follow_plan_steps"),
    ):
        assert main(["validate", str(village(options))]) == 2, options
        err = capsys.readouterr().err
        assert str(tmp_path / "village.yaml") in err and field in err, err
    cfg = load_config(village("{follow_plan_steps: 2}"))
    agent = resolve_agents(cfg)[0]
    built = build_modules(cfg, agent, random.Random(0))
    cc = next(m for m in built if isinstance(m, CognitiveController))
    assert cc.follow_plan_steps == 2 and cc.deadline_s > 0
    default = CognitiveController(Schedule(cadence=3.0))
    assert default.follow_plan_steps == FOLLOW_PLAN_STEPS and cc.gate is not None


def test_the_economy_arguments_are_typed_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The constructor arguments added for the LLM bill (issue 30: planning's ``goal_steps``
    and ``step_window_h``, the controller's ``standing_ask_s`` and ``plan_wait_s``, memory's
    ``remember_ratings``) are options: a misspelt or invalid one is exit 2 naming the field,
    a good one reaches the module."""
    from modules.controller.module import CognitiveController
    from modules.memory_module import Memory
    from modules.planning import Planning
    from modules.registry import build_modules

    def village(module: str, options: str) -> Path:
        return write(
            tmp_path,
            "agents:\n  - name: Ann\nmodules:\n  overrides:\n"
            f"    {module}:\n      options: {options}\n",
        )

    for module, options, field in (
        ("planning", "{goal_step: false}", "planning.options.goal_step"),
        ("planning", "{goal_steps: sometimes}", "planning.options.goal_steps"),
        ("planning", "{step_window_h: -1}", "planning.options.step_window_h"),
        ("cognitive_controller", "{standing_ask: 5}", "cognitive_controller.options.standing_ask"),
        (
            "cognitive_controller",
            "{standing_ask_s: -2}",
            "cognitive_controller.options.standing_ask_s",
        ),
        (
            "cognitive_controller",
            "{plan_wait_s: later}",
            "cognitive_controller.options.plan_wait_s",
        ),
        ("memory", "{remember_ratings: -1}", "memory.options.remember_ratings"),
    ):
        assert main(["validate", str(village(module, options))]) == 2, options
        err = capsys.readouterr().err
        assert str(tmp_path / "village.yaml") in err and field in err, err

    def built(module: str, options: str) -> list[object]:
        cfg = load_config(village(module, options))
        return list(build_modules(cfg, resolve_agents(cfg)[0], random.Random(0)))

    plan = next(
        m
        for m in built("planning", "{goal_steps: false, step_window_h: 0.5}")
        if isinstance(m, Planning)
    )
    assert (plan.goal_steps, plan.step_window_h) == (False, 0.5)
    cc = next(
        m
        for m in built("cognitive_controller", "{standing_ask_s: 12, plan_wait_s: 0}")
        if isinstance(m, CognitiveController)
    )
    assert (cc.standing_ask_s, cc.plan_wait_s) == (12, 0)
    mem = next(m for m in built("memory", "{remember_ratings: 0}") if isinstance(m, Memory))
    assert mem.remember_ratings == 0
