"""`piano join`: terminal input -> skill calls for the human's body."""

from __future__ import annotations

from agent_runtime.app.cli.cmd_join import parse_command
from agent_runtime.app.cli.main import main
from agent_runtime.world import SkillCall, validate_skill


def test_commands_map_to_valid_skill_calls() -> None:
    cases = {
        "hello Ann": SkillCall(skill="chat", args={"message": "hello Ann"}),
        "/w Ann can I have bread?": SkillCall(
            skill="whisper", args={"player": "Ann", "message": "can I have bread?"}
        ),
        "/go Ann": SkillCall(skill="go_to", args={"player": "Ann"}),
        "/go 10 64 -5": SkillCall(skill="go_to", args={"x": 10.0, "y": 64.0, "z": -5.0}),
        "/give Ann bread 2": SkillCall(
            skill="give", args={"player": "Ann", "item": "bread", "count": 2}
        ),
    }
    for line, want in cases.items():
        got = parse_command(line)
        assert got == want, line
        assert isinstance(got, SkillCall)
        validate_skill(got)
    assert parse_command("   ") is None
    assert parse_command("/who") == "who" and parse_command("/quit") == "quit"
    assert parse_command("/dance wildly") == "help"


def test_join_rejects_invalid_names(capsys: object) -> None:
    assert main(["join", "x"]) == 2
