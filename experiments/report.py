"""Report helpers shared by the experiments: number formatting, Markdown tables, the header
that names the brain, and the rule that a heuristic-brain run is a pipeline check whose
figures never share a table with the paper's."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from experiments.spec import ExperimentFile, ExperimentOptions


def fmt(v: Any, digits: int = 2) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "n/a" if not math.isfinite(v) else f"{v:.{digits}f}"
    return str(v)


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        lines.append("| " + " | ".join(fmt(x) for x in r) + " |")
    return "\n".join(lines)


def is_pipeline_check(configured: str) -> bool:
    """A run with the heuristic brain checks the pipeline; it is not a result."""
    return configured == "heuristic"


def report_header(
    title: str, exp: ExperimentFile, opts: ExperimentOptions, brains: Mapping[str, int],
    configured: str,
) -> str:
    brain_list = ", ".join(f"{k} ({v})" for k, v in sorted(brains.items())) or "none recorded"
    scaled = (
        f"**Time scale {opts.time_scale}**: every protocol time was multiplied by it "
        "(a smoke run unless 1.0).\n\n" if opts.time_scale != 1.0 else ""
    )
    check = is_pipeline_check(configured)
    heading = f"# {title}" + (" - pipeline check (heuristic brain)" if check else "")
    what = (
        "**This is a pipeline check**: every decision was made by the runtime's rule-based "
        "(heuristic) policies, from what each agent perceived. Its figures show that the "
        "pipeline runs and what those rules do; they are not results and are not comparable "
        "with the paper's.\n\n" if check else ""
    )
    return (
        f"{heading}\n\n"
        f"{exp.description.strip()}\n\n"
        f"**Brain**: configured `{configured}`; decisions/goals produced by: {brain_list}.\n\n"
        f"{what}{scaled}"
        f"Conditions: {', '.join(c.name for c in exp.conditions if not opts.conditions or c.name in opts.conditions)}; "
        f"repeats: {opts.repeats or exp.repeats}; world: "
        f"{opts.world or exp.village.get('world', {}).get('kind', 'none')}.\n\n"
    )


def paper_column(exp: ExperimentFile, configured: str, condition: str) -> list[str]:
    """The paper's figure for a table row, or nothing for a pipeline check (its figures are
    never put beside the paper's)."""
    return [] if is_pipeline_check(configured) else [str(exp.paper.get(condition, ""))]


def paper_section(exp: ExperimentFile, configured: str) -> str:
    """For a pipeline check: the paper's figures on their own, for orientation only."""
    if not is_pipeline_check(configured) or not exp.paper:
        return ""
    lines = "\n".join(f"- {k}: {v}" for k, v in exp.paper.items())
    return ("\n\n## The paper's figures (LLM agents; for orientation, not comparable with "
            "this pipeline check)\n\n" + lines + "\n")
