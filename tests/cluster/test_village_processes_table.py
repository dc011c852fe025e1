"""``<!-- figures: village-runs A.json with=B.json table=processes -->``: what each kind of
process of the runs cost (``all_processes.by_kind`` of ``piano bench village``), one column
per run, every kind of either run a row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.village_table import render_village_runs


def run(launcher: str, by_kind: dict[str, Any]) -> dict[str, Any]:
    return {
        "bench": "village",
        "launcher": launcher,
        "ray_nodes": 2 if launcher == "ray" else None,
        "all_processes": {"cpu_percent": 190.0, "rss_mb": 3000.0, "processes": 20, "by_kind": by_kind},
        "provenance": {"date": "2026-11-27T14:01:00Z"},
    }  # fmt: skip


def test_each_kind_of_process_is_a_row_and_each_run_a_column(tmp_path: Path) -> None:
    gcs = {"cpu_percent": 4.5, "rss_mb": 60.2, "processes": 1}
    server = {"cpu_percent": 58.1, "rss_mb": 1453.0, "processes": 2}
    (tmp_path / "a.json").write_text(json.dumps(run("process", {"minecraft server": server})))
    (tmp_path / "b.json").write_text(
        json.dumps(run("ray", {"ray gcs": gcs, "minecraft server": server}))
    )
    table = render_village_runs(tmp_path / "a.json", {"with": "b.json", "table": "processes"})
    lines = table.splitlines()
    assert lines[0].endswith("| process, 14:01 | ray, 2 nodes, 14:01 |")
    assert "| minecraft server | 58.1 / 1,453 / 2 | 58.1 / 1,453 / 2 |" in lines
    assert "| ray gcs | - | 4.5 / 60 / 1 |" in lines
    assert lines[-1] == "| all | **190 / 3,000 / 20** | **190 / 3,000 / 20** |"


def test_a_result_without_the_kinds_is_named(tmp_path: Path) -> None:
    old = run("process", {})
    del old["all_processes"]["by_kind"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    with pytest.raises(ValueError, match=r"old\.json"):
        render_village_runs(tmp_path / "old.json", {"table": "processes"})
