"""A run's events file read while another process appends to it: complete lines only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.jsonl import records


def test_a_half_written_last_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    assert records(path) == []
    whole = json.dumps({"type": "plan", "steps": ["walk"] * 40}) + "\n"
    path.write_text(json.dumps({"type": "a"}) + "\n" + whole[: len(whole) // 2])
    assert records(path) == [{"type": "a"}]
    path.write_text(json.dumps({"type": "a"}) + "\n" + whole)
    assert [r["type"] for r in records(path)] == ["a", "plan"]


def test_a_complete_line_that_is_not_json_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"type": "a"}\nnot json\n{"type": "b"}\n')
    with pytest.raises(json.JSONDecodeError):
        records(path)
