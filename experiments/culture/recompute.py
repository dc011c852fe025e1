"""Every figure of a culture report, from the run's raw data files.

``python -m experiments.culture.recompute OUT`` prints them and exits 1 when
``OUT/metrics.json`` or ``OUT/report.md`` says anything else. Raw files (see
``analysis.py``): ``residents.csv``, ``towns.csv``, ``speech.csv``, ``memes.csv``,
``positions.csv``, ``settings.json``, ``skills.csv`` (the body ledger) and ``runs.csv``.
The runner builds its report with these same functions; ``analysis.draw`` redraws the plots.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from experiments import ledger
from experiments.culture import analysis
from experiments.culture.summary import across_runs, run_tables
from experiments.report import is_pipeline_check
from experiments.runner_base import context, recompute_main

__all__ = ["figures", "recompute_main", "tables"]


def figures(out: Path) -> dict[str, Any]:
    """run label -> its figures (memes per group, converts and influence over time), and the
    body ledger (``skills.csv``, :mod:`experiments.ledger`)."""
    return {**analysis.figures(out), ledger.BODY: ledger.figures(ledger.read_skills(out))}


def tables(out: Path, figs: Mapping[str, Any]) -> str:
    exp, brain = context(out)
    pipeline = is_pipeline_check(brain)
    runs = ledger.without(figs)
    return across_runs(runs, pipeline, exp.paper) + "".join(
        run_tables(run, f) for run, f in runs.items()) + ledger.section(figs)


if __name__ == "__main__":
    sys.exit(recompute_main("culture", figures, tables))
