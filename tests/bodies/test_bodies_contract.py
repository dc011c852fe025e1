"""The bridge contract: the JS body and the Python models agree on names (no server needed)."""

from __future__ import annotations

import json
import re
import subprocess
import typing
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.world import (
    SKILL_TIMEOUTS,
    SKILLS,
    BodyEventKind,
    Observation,
    SkillOutcome,
)
from bots.node import node_env, node_executable
from bots.transport import BODY_DIR

CONTRACT_JS = Path(__file__).with_name("js") / "contract.js"

_JS_TYPES = {
    "number": {"float", "int"},
    "int": {"int"},
    "string": {"str"},
}


@pytest.fixture(scope="module")
def js_side() -> dict[str, Any]:
    done = subprocess.run(
        [str(node_executable()), str(CONTRACT_JS)],
        capture_output=True,
        text=True,
        timeout=30,
        env=node_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _python_types(annotation: Any) -> set[str]:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return {"str"}
    if args:
        return {t for a in args for t in _python_types(a)}
    return {getattr(annotation, "__name__", str(annotation))} - {"NoneType"}


def test_every_python_skill_exists_in_js_with_the_same_argument_names(
    js_side: dict[str, Any],
) -> None:
    js_skills = js_side["skills"]
    assert set(js_skills) == set(SKILLS)
    assert set(SKILL_TIMEOUTS) == set(SKILLS)
    for name, model in SKILLS.items():
        py_args = model.model_fields
        js_args = js_skills[name]
        assert set(js_args) == set(py_args), (
            f"{name}: JS {sorted(js_args)} != Python {sorted(py_args)}"
        )
        for arg, field in py_args.items():
            spec = js_args[arg]
            assert spec["required"] == field.is_required(), f"{name}.{arg}: required differs"
            if not field.is_required():
                assert spec["default"] == field.default, f"{name}.{arg}: default differs"
            assert _JS_TYPES[spec["type"]] & _python_types(field.annotation), (
                f"{name}.{arg}: JS type {spec['type']} vs Python {field.annotation}"
            )


def test_observation_from_js_has_exactly_the_model_fields(js_side: dict[str, Any]) -> None:
    observation = js_side["observation"]
    assert set(observation) == set(Observation.model_fields)
    parsed = Observation.model_validate(observation)
    assert parsed.connected is False and parsed.position is None


def test_outcomes_from_js_have_exactly_the_model_fields(js_side: dict[str, Any]) -> None:
    outcomes = js_side["outcomes"]
    for outcome in outcomes.values():
        assert set(outcome) == set(SkillOutcome.model_fields)
        SkillOutcome.model_validate(outcome)
    assert outcomes["unknown"]["reason"] == 'unknown skill "fly"'
    assert outcomes["extra"]["reason"] == 'bad arguments for idle: unknown field "speed"'
    assert outcomes["missing"]["reason"] == 'bad arguments for collect: "block" is required'
    assert outcomes["type"]["reason"] == 'bad arguments for collect: "block" must be string'
    assert outcomes["timeout"]["timed_out"] and outcomes["timeout"]["reason"] == "timed out"
    assert outcomes["cancel"]["cancelled"]
    assert outcomes["cancel"]["reason"] == "cancelled: cancelled by the controller"
    stuck = outcomes["stuck"]
    assert not stuck["success"] and stuck["reason"] == "stuck: no progress for 1 s"
    assert stuck["detail"] == {"stuck": True}
    assert outcomes["stationary"]["success"], "stationary skills are exempt from the stuck detector"
    assert outcomes["offline"]["reason"] == "not connected to the server"


def test_every_event_the_js_side_emits_is_a_body_event_kind() -> None:
    emitted: set[str] = set()
    pattern = re.compile(r"""\b(?:body|this)\.emit\(\s*'([a-z_]+)'""")
    for path in BODY_DIR.rglob("*.js"):
        emitted |= set(pattern.findall(path.read_text()))
    emitted.add("disconnected")  # host.js sends it for bodies of a crashed worker
    kinds = set(typing.get_args(BodyEventKind))
    assert emitted <= kinds, emitted - kinds
    assert kinds - emitted == set(), f"declared but never emitted: {kinds - emitted}"
