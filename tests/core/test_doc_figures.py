"""Figures in the docs come from committed result files: ``piano docs --check`` over the
repository, and what it catches (a changed figure, a missing file, a broken block)."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_runtime.app.bench_output import Measurement, emit
from agent_runtime.app.cli.cmd_docs import RENDERERS, ROOT
from agent_runtime.app.cli.docs_code import CODE_RENDERERS
from agent_runtime.app.cli.main import main
from agent_runtime.app.doc_figures import (
    Disagreement,
    blocks,
    documents,
    render_docs,
    result_files,
)
from agent_runtime.app.faults_table import render_durability, render_faults

FAULTS = ROOT / "agent_runtime/app/results/faults-embedded-2026-11-26.json"
REPORT = ROOT / "experiments/tax/results/2026-11-26-full-anti-scale1-decide/report.md"


def test_every_rendered_figure_in_the_repository_agrees_with_its_file() -> None:
    count, problems = render_docs(ROOT, RENDERERS, write=False)
    assert [str(p) for p in problems] == []
    assert count >= 4  # the tax and item-progression READMEs' blocks at least


def _doc(tmp: Path, body: str, spec: str = 'report report.md section="Votes"') -> Path:
    shutil.copy(REPORT, tmp / "report.md")
    doc = tmp / "README.md"
    doc.write_text(f"# A doc\n\ntext\n\n<!-- figures: {spec} -->\n{body}<!-- /figures -->\nend\n")
    return doc


def test_a_changed_figure_disagrees_and_piano_docs_renders_it_back(tmp_path: Path) -> None:
    doc = _doc(tmp_path, "")
    assert render_docs(tmp_path, RENDERERS, write=True) == (1, [])
    rendered = doc.read_text()
    assert "| full-anti-r0 | 1: 11% (25/0/0) | 1 | 0.11 |" in rendered
    assert render_docs(tmp_path, RENDERERS, write=False) == (1, [])

    doc.write_text(rendered.replace("(25/0/0)", "(24/1/0)"))  # a figure typed over
    count, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert count == 1 and len(problems) == 1
    assert problems[0].line == 5 and "(24/1/0)" in problems[0].reason
    assert "(25/0/0)" in problems[0].reason
    assert main(["docs", "--check", "--root", str(tmp_path)]) == 1
    assert main(["docs", "--root", str(tmp_path)]) == 0
    assert doc.read_text() == rendered

    # the result file changes: the document no longer agrees with it
    (tmp_path / "report.md").write_text(REPORT.read_text().replace("(25/0/0)", "(20/5/0)"))
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "(20/5/0)" in problems[0].reason


@pytest.mark.parametrize(
    ("spec", "body", "why"),
    [
        ('report missing.md section="Votes"', "", "no result file"),
        ('report report.md section="No such"', "", "no section"),
        ("nosuch report.md", "", "no renderer 'nosuch'"),
        ("report", "", "want <!-- figures: RENDERER PATH"),
    ],
)
def test_a_block_that_cannot_render_is_named(
    tmp_path: Path, spec: str, body: str, why: str
) -> None:
    _doc(tmp_path, body, spec)
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and why in problems[0].reason
    assert problems[0].doc == tmp_path / "README.md" and problems[0].line == 5


def test_an_unclosed_block_is_named(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x\n<!-- figures: report r.md -->\n| 1 |\n")
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "no <!-- /figures -->" in problems[0].reason


def _cells(table: str) -> list[list[str]]:
    """The body rows of the first Markdown table in ``table``, split into cells."""
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows[1:]]


def test_the_faults_table_shows_each_fault_as_the_report_has_it(tmp_path: Path) -> None:
    report = {
        "faults": [
            {"fault": "kill_broker", "recovered": True, "seconds_to_recover": 12.5,
             "decisions_in_window": 7, "errors_in_window": 0,
             "data_path": {"broadcast_heard": True}},
            {"fault": "kill_redis", "recovered": False, "seconds_to_recover": None,
             "decisions_in_window": 2, "errors_in_window": 3,
             "data_path": {"content_kept": False, "writes_resumed": True}},
            {"fault": "llm_garbage", "recovered": True, "seconds_to_recover": 0.1,
             "decisions_in_window": 22, "errors_in_window": 1},
        ],
        "all_recovered": False,
        "orphans": [{"pid": 1, "cmdline": "x"}],
    }  # fmt: skip
    (tmp_path / "faults.json").write_text(json.dumps({"report": report, "commit": "abc1234"}))
    table = render_faults(tmp_path / "faults.json", {})
    assert _cells(table) == [
        ["kill_broker", "yes", "12.5", "broadcast_heard yes", "7", "0"],
        ["kill_redis", "**no**", "-", "content_kept **no**, writes_resumed yes", "2", "3"],
        ["llm_garbage", "yes", "0.1", "-", "22", "1"],
    ]
    assert "commit abc1234" in table and "all recovered: **no**, orphan processes: 1." in table
    # the committed report renders a row per fault too
    committed = json.loads(FAULTS.read_text())["report"]["faults"]
    assert [r[0] for r in _cells(render_faults(FAULTS, {}))] == [f["fault"] for f in committed]


def test_the_durability_figure_shows_the_promise_and_each_fault_by_content(
    tmp_path: Path,
) -> None:
    content = {"records_before": 120, "records_after": 131, "missing": 0, "changed": 1,
               "rewritten": 17}  # fmt: skip
    report = {
        "promise": {
            "flush_interval_ms": 50.0, "write_lag_max_ms": 83.2, "appendonly": "yes",
            "appendfsync": "everysec", "aof_delayed_fsync": 0,
            "lost_at_most_ms": {"kill_redis": 0,
                                "sigkill_village": {"state": 83.2, "memories": 0},
                                "power_loss": {"state": 1083.2, "memories": 1000.0}},
        },
        "faults": [
            {"fault": "kill_redis", "recovered": False, "content": content},
            {"fault": "kill_broker", "recovered": True},
            {"fault": "sigkill_run", "recovered": True,
             "content": {**content, "changed": 0, "records_after": 140},
             "sabotage": "deleted memory 3 of Ann"},
        ],
    }  # fmt: skip
    (tmp_path / "faults.json").write_text(json.dumps({"report": report}))
    text = render_durability(tmp_path / "faults.json", {})
    assert "SIGKILL of Redis: at most 0 ms" in text
    assert "SIGKILL of the village: at most 83.2 ms of state writes" in text
    assert "longest wait measured 83.2 ms), 0 ms of memories" in text
    assert "Power loss: at most 1083.2 ms of state writes and 1000.0 ms of memories" in text
    assert _cells(text) == [
        ["kill_redis", "**no**", "120", "131", "0", "1", "17", "-"],
        ["sigkill_run", "yes", "120", "140", "0", "0", "17", "deleted memory 3 of Ann"],
    ]
    rows_only = render_durability(tmp_path / "faults.json", {"promise": "no"})
    assert "SIGKILL" not in rows_only and _cells(rows_only) == _cells(text)


def test_a_bench_result_file_says_when_on_which_commit_and_under_what_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results" / "x.json"
    emit({"bench": "x", "value": 1}, argparse.Namespace(json_out=str(out)), Measurement())
    printed = json.loads(capsys.readouterr().out)
    saved = json.loads(out.read_text())
    assert printed == saved and saved["value"] == 1
    prov = saved["provenance"]
    assert prov["date"].endswith("Z") and prov["cpus"] >= 1
    assert len(prov["load_average_before"]) == 3 and len(prov["load_average_after"]) == 3
    assert prov["commit"]  # the tests run in a git checkout


def test_a_comparison_names_its_columns_and_reads_every_file(tmp_path: Path) -> None:
    results = ROOT / "agent_runtime/llm/results"
    for name in ("cost-2026-11-26-h4-after.json", "cost-2026-11-27-c-after.json"):
        shutil.copy(results / name, tmp_path / name)
    spec = "cost-compare cost-2026-11-26-h4-after.json with=cost-2026-11-27-c-after.json"
    doc = _doc(tmp_path, "", f'{spec} labels="before,after"')
    assert render_docs(tmp_path, RENDERERS, write=True) == (1, [])
    text = doc.read_text()
    assert "| per agent-hour | before | after |" in text
    assert "| $ at gpt-4o (cached as the endpoint reported) | 2.78 | 1.62 |" in text
    _doc(tmp_path, "", f"{spec} labels=one")  # two files, one label
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "labels= names 1 columns for 2 files" in problems[0].reason


def test_the_runtime_detail_has_a_row_per_run_and_disagrees_when_its_file_changes(
    tmp_path: Path,
) -> None:
    results = ROOT / "agent_runtime/app/results/cluster-2026-11-26"
    for name in ("runtime-1000-proc.json", "runtime-1000-ray.json"):
        shutil.copy(results / name, tmp_path / name)
    doc = _doc(tmp_path, "", "runtime-detail runtime-1000-proc.json with=runtime-1000-ray.json")
    assert render_docs(tmp_path, RENDERERS, write=True) == (1, [])
    rows = [ln for ln in doc.read_text().splitlines() if ln.startswith("| 2026-")]
    assert len(rows) == 2
    assert rows[0].startswith(
        "| 2026-11-26 23:28 | ? | 1,000 / 2 (process) | asyncio | 10 | 635 (64%) | 131 |"
    )
    assert "| 3.4 / 7.9 | 5.4 / 5.5 | +0.33% (planning) | 0 | 0 |" in rows[0]
    assert rows[1].startswith("| 2026-11-26 23:26 | ? | 1,000 / 2 (ray) |")

    run = json.loads((tmp_path / "runtime-1000-ray.json").read_text())
    run["sched_lag_ms_p99"] = 55.0  # a figure of the second file changes
    (tmp_path / "runtime-1000-ray.json").write_text(json.dumps(run))
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "/ 55.0 |" in problems[0].reason
    assert "/ 182.0 |" in problems[0].reason


def test_the_bodies_table_has_a_row_per_run_and_disagrees_when_its_file_changes(
    tmp_path: Path,
) -> None:
    results = ROOT / "bots/body/results"
    names = ("bodies-10-bridge-2026-11-27.json", "bodies-10-workers-2026-11-27.json")
    for name in names:
        shutil.copy(results / name, tmp_path / name)
    doc = _doc(tmp_path, "", f"bodies-runs {names[0]} with={names[1]}")
    assert render_docs(tmp_path, RENDERERS, write=True) == (1, [])
    rows = [ln for ln in doc.read_text().splitlines() if ln.startswith("| 2026-")]
    assert len(rows) == 2
    assert "| 10 | 0 (in bridge) | jspybridge | 0.48 -> 0.72 | 1.4 | 20.0 -> 20.0 |" in rows[0]
    assert "| 6.9 / 13.9 / 27 | 204 (0) | 0 / 0 | 0 |" in rows[0]
    assert "| 10 | 25 | jspybridge |" in rows[1]

    run = json.loads((tmp_path / names[0]).read_text())
    run["kicks"] = 3  # a figure of the first file changes
    (tmp_path / names[0]).write_text(json.dumps(run))
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "| 3 / 0 |" in problems[0].reason
    assert "| 0 / 0 |" in problems[0].reason
    (tmp_path / names[1]).write_text(json.dumps({"bench": "skills"}))  # not a bodies result
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "not a `piano bench bodies` result" in problems[0].reason


def test_the_skills_tables_follow_their_file_level_by_level(tmp_path: Path) -> None:
    name = "skills-2026-11-27.json"
    shutil.copy(ROOT / "bots/body/results" / name, tmp_path / name)
    doc = _doc(tmp_path, "", f"skill-steps {name} agents=5")
    assert render_docs(tmp_path, RENDERERS, write=True) == (1, [])
    text = doc.read_text()
    assert "| goto_50 | 10 | 100 % | 10.1 / 11.6 | - | 304 (1, 413) | 10297 / 0 / 0 | 0 |" in text
    assert "| collect_stone_3 | 10 | 100 % | 6.4 / 15.7 | - |" in text
    assert "(measured 2026-11-27 06:22-06:27 UTC, commit db1c00f+dirty," in text

    run = json.loads((tmp_path / name).read_text())
    stone = run["levels"][0]["skills"]["collect_stone_3"]
    stone["success_rate"], stone["failures"] = 0.9, {"stuck": 1}  # the file changes
    (tmp_path / name).write_text(json.dumps(run))
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "| 90 % | 6.4 / 15.7 | 1 `stuck` |" in problems[0].reason

    _doc(tmp_path, "", f"skill-climbs {name} agents=5")
    assert render_docs(tmp_path, RENDERERS, write=True) == (1, [])
    rows = [ln for ln in doc.read_text().splitlines() if ln[:4] in {"| 1 ", "| 2 "}]
    assert rows == [
        "| 1 | yes | 153.8 | 13 | 1 | - |",
        "| 2 | **no** | 63.8 | 18 | 3 | no iron_ore in sight within 64 blocks |",
    ]
    _doc(tmp_path, "", f"skill-climbs {name} agents=1")  # no such level in the file
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "no level with 1 agents (it has 5)" in problems[0].reason


def test_every_figure_block_renders_from_a_committed_file_in_a_results_folder() -> None:
    """A figure rendered from a file git does not hold would agree here and be missing on a
    fresh clone; one from outside a ``results/`` folder is not a committed result (but for
    the renderers that read the code itself)."""
    sources: set[Path] = set()
    code: set[Path] = set()
    for doc in documents(ROOT):
        for b in blocks(doc, doc.read_text()):
            assert not isinstance(b, Disagreement), str(b)
            if b.renderer in CODE_RENDERERS:
                code.add(b.source)
            else:
                sources.update(result_files(b.source, b.options))
    assert sources
    assert all(s.suffix == ".py" for s in code)
    sources |= code
    outside = sorted(
        str(s) for s in sources - code if "results" not in s.relative_to(ROOT).parts
    )
    assert outside == []
    listed = subprocess.run(
        ["git", "ls-files", "--", *(str(s.relative_to(ROOT)) for s in sources)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout.split()
    assert (
        sorted(str(s.relative_to(ROOT)) for s in sources if str(s.relative_to(ROOT)) not in listed)
        == []
    )


def _village_run(launcher: str, rate: float, p99: float, kicks: int = 0) -> dict[str, object]:
    return {
        "bench": "village", "launcher": launcher, "ray_nodes": 2 if launcher == "ray" else None,
        "workers": 2, "agents": 100, "shards": 2, "decisions_per_agent_minute": rate,
        "sched_lag_ms": {"p50": 6.4, "p90": 58.0, "p99": p99}, "kicks": kicks,
        "unresponsive_agents_end": 0, "unresponsive_agents_peak": 1, "errors": 0,
        "worker_restarts": 0, "server_restarts": 0, "machine_cpu_percent": 197.5,
        "provenance": {"date": "2026-11-27T10:20:00Z", "load_average_before": [1.5],
                       "load_average_after": [2.1]},
    }  # fmt: skip


def test_the_village_table_compares_each_run_with_the_first_and_follows_its_files(
    tmp_path: Path,
) -> None:
    names = ("village-workers.json", "village-ray.json")
    (tmp_path / names[0]).write_text(json.dumps(_village_run("process", 4.0, 200.0)))
    (tmp_path / names[1]).write_text(json.dumps(_village_run("ray", 3.0, 260.0, kicks=2)))
    doc = _doc(tmp_path, "", f"village-runs {names[0]} with={names[1]}")
    assert render_docs(tmp_path, RENDERERS, write=True) == (1, [])
    rows = [ln for ln in doc.read_text().splitlines() if ln.startswith("| 2026-")]
    assert len(rows) == 2
    assert "| process | 100 / 2 / 2 | 4.00 | 6.4 / 58 / 200 | - | 0 | 0 (1) | 0 | 0 / 0 " in rows[0]
    assert "| ray, 2 nodes | 100 / 2 / 2 | 3.00 | 6.4 / 58 / 260 | 75% / 130% | 2 |" in rows[1]
    assert rows[1].endswith("| 197.5 | 1.5 -> 2.1 |")

    run = json.loads((tmp_path / names[1]).read_text())
    run["sched_lag_ms"]["p99"] = 100.0  # a figure of the second file changes
    (tmp_path / names[1]).write_text(json.dumps(run))
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "75% / 50%" in problems[0].reason
    (tmp_path / names[0]).write_text(json.dumps({"bench": "runtime"}))
    _, problems = render_docs(tmp_path, RENDERERS, write=False)
    assert len(problems) == 1 and "not a `piano bench village` result" in problems[0].reason
