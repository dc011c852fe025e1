"""``piano docs [--check]``: render the docs' figures from their committed result files.

Every ``<!-- figures: RENDERER PATH -->`` block in the repository's Markdown
(:mod:`agent_runtime.app.doc_figures`) is rendered again from its file; ``--check`` changes
nothing and exits 1 naming each block that disagrees with its file (the test suite runs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path

from agent_runtime.app.before_after_table import render_before_after
from agent_runtime.app.bodies_table import render_bodies_runs
from agent_runtime.app.cli.bench_hostile import render_hostile
from agent_runtime.app.cli.docs_code import render_experiment_defaults, render_settings
from agent_runtime.app.doc_figures import Renderer, render_docs, result_files
from agent_runtime.app.faults_table import render_durability, render_faults
from agent_runtime.app.plan import render_check
from agent_runtime.app.report_sections import render_report_section
from agent_runtime.app.runtime_detail import render_runtime_detail
from agent_runtime.app.runtime_table import render_runtime_runs
from agent_runtime.app.skills_table import render_skill_climbs, render_skill_steps
from agent_runtime.app.village_table import render_village_runs

ROOT = Path(__file__).resolve().parents[3]


def _cost(source: Path, options: Mapping[str, str]) -> str:
    from agent_runtime.app.cost_tables import render_markdown

    return render_markdown(json.loads(source.read_text()), str(source.relative_to(ROOT)))


def _cost_summary(source: Path, options: Mapping[str, str]) -> str:
    from agent_runtime.app.cost_tables import render_summary

    return render_summary(json.loads(source.read_text()), str(source.relative_to(ROOT)))


def _cost_compare(source: Path, options: Mapping[str, str]) -> str:
    """``with=B.json,C.json`` (beside the first file) and ``labels=A,B,C``: one column each."""
    from agent_runtime.app.cost_tables import render_compare

    files = result_files(source, options)
    labels = options.get("labels", "").split(",")
    if len(labels) != len(files):
        raise ValueError(f"labels= names {len(labels)} columns for {len(files)} files")
    return render_compare(
        [(lb, json.loads(f.read_text())) for lb, f in zip(labels, files, strict=True)]
    )


RENDERERS: dict[str, Renderer] = {
    "cost": _cost,  # piano bench cost --json-out
    "cost-summary": _cost_summary,  # the same, one paragraph
    "cost-compare": _cost_compare,  # several, side by side
    "faults": render_faults,  # piano faults --json-out
    "durability": render_durability,  # the same: the promise and the faults by content
    "report": render_report_section,  # an experiment's report.md, section=NAME
    "runtime-runs": render_runtime_runs,  # piano bench runtime --json-out, one row each
    "runtime-detail": render_runtime_detail,  # the same in full: workload, CPU, traffic
    "plan-check": render_check,  # piano plan beside a piano bench village it sizes
    "bodies-runs": render_bodies_runs,  # piano bench bodies --json-out, one row each
    "skill-steps": render_skill_steps,  # piano bench skills --json-out, agents=N
    "skill-climbs": render_skill_climbs,  # the same, its tech-tree climbs
    "village-runs": render_village_runs,  # piano bench village --json-out, one row each
    "before-after": render_before_after,  # runs of two commits back to back, kept or not
    "settings": render_settings,  # defaults read from the code (docs_code.CODE_RENDERERS)
    "experiment-defaults": render_experiment_defaults,  # each experiment's runs, from its file
    "hostile": render_hostile,  # piano bench hostile --json-out: each cheat, each version
}


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("docs", help="render the docs' figures from their result files")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 on disagreement")
    p.add_argument("--root", default=str(ROOT), help="the folder searched for *.md")


def run(args: argparse.Namespace) -> int:
    count, problems = render_docs(Path(args.root), RENDERERS, write=not args.check)
    for p in problems:
        print(p, file=sys.stderr)
    verb = "checked" if args.check else "rendered"
    print(f"{count} figure blocks {verb}, {len(problems)} disagreeing")
    return 1 if problems else 0
