"""The hostile-client suite's results: run.js's lines read into typed results, and the
table bots/README.md renders from a ``piano bench hostile`` file."""

from __future__ import annotations

import json
from pathlib import Path

from agent_runtime.app.cli.bench_hostile import render_hostile
from bots.hostile import CheatResult, catalogue, parse_lines


def test_run_js_lines_become_typed_results() -> None:
    text = "\n".join(
        [
            "[hostile] a log line",
            'HOSTILE {"id": "a", "version": "1.21.4", "refused": true, "detail": {"n": 1}, "ms": 5}',
            'HOSTILE {"id": "b", "version": "1.21.4", "refused": null, "skipped": true, "ms": 0}',
            'HOSTILE {"id": "c", "version": "1.21.4", "refused": false, "error": "boom", "ms": 9}',
        ]
    )
    a, b, c = parse_lines(text)
    assert a == CheatResult(id="a", version="1.21.4", refused=True, detail={"n": 1}, ms=5)
    assert b.skipped and b.refused is None
    assert c.refused is False and c.error == "boom"
    assert CheatResult.from_json(a.to_json()) == a


def test_the_catalogue_lists_every_cheat_file(tmp_path: Path) -> None:
    for name in ("b_two.js", "a_one.js", "notes.md"):
        (tmp_path / name).write_text("")
    assert catalogue(tmp_path) == ["a_one", "b_two"]
    assert "creative_slot_survival" in catalogue()


def test_the_table_has_a_row_per_cheat_and_a_column_per_version(tmp_path: Path) -> None:
    def result(refused: bool | None, **extra: object) -> dict[str, object]:
        return {"refused": refused, "skipped": refused is None, "error": None, **extra}

    data = {
        "versions": ["1.16.5", "1.21.4"],
        "totals": {"1.16.5": {"cheats": 1, "refused": 1}, "1.21.4": {"cheats": 2, "refused": 1}},
        "cheats": [
            {
                "id": "one",
                "what": "sends a | b",
                "vanilla": "ignored",
                "results": {"1.16.5": result(True), "1.21.4": result(False)},
            },
            {
                "id": "two",
                "what": "x",
                "vanilla": "y",
                "results": {"1.16.5": result(None), "1.21.4": result(False, error="boom")},
            },
        ],
        "provenance": {"date": "2026-12-01T01:00:00Z", "commit": "abc1234"},
    }
    source = tmp_path / "hostile.json"
    source.write_text(json.dumps(data))
    table = render_hostile(source, {})
    lines = table.splitlines()
    assert lines[0] == "| cheat | what the client does | vanilla | 1.16.5 | 1.21.4 |"
    assert lines[2] == "| `one` | sends a \\| b | ignored | refused | **accepted** |"
    assert lines[3] == "| `two` | x | y | n/a | **failed to run** |"
    assert "1.16.5: 1 of 1 refused, 1.21.4: 1 of 2 refused" in table
    assert "commit abc1234" in table
