"""The scaffold every experiment runner shares: the loop over runs, the run log, the report.

A runner does::

    book = RunBook(exp, opts, out)
    for spec in book.runs(make_config):          # conditions x repeats (plan_runs)
        ... run the village, collect rows ...
        book.done(spec, agents)                   # brains seen, models, agents -> runs.csv
        (book.done(...) rewrites runs.csv)
    ... write the raw data files (CSV / JSONL) ...
    figs = recompute.figures(out)                 # every figure, from the raw files only
    book.finish("Title", p, figs, tables, extra)  # metrics.json + report.md

``runs.csv`` (one row per run: condition, repeat, seed, agents, configured brain, the model of
every module, the brains that actually decided) is a raw data file like the others: the
report's header - brain, protocol as run, repeats - is written from it, so
``recompute.py`` can check the header too. The report is built from ``figures(out)``, the
same function ``experiments/<name>/recompute.py`` runs on a finished output folder, and
:func:`verify` checks that the figures in ``metrics.json`` and the tables in ``report.md``
are the ones the raw files give.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_runtime.config.models import VillageConfig
from experiments.common import brain_label, brains_seen
from experiments.files import clean, read_csv, read_events, write_csv, write_json
from experiments.report import md_table, paper_section, report_header
from experiments.spec import (
    Condition,
    ExperimentFile,
    ExperimentOptions,
    RunSpec,
    load_experiment_file,
    parse_protocol,
    plan_runs,
)

__all__ = [
    "RUN_FIELDS", "RunBook", "context", "models_of", "parse_protocol", "read_runs", "verify",
]

RUN_FIELDS = ["condition", "repeat", "seed", "agents", "brain", "models", "brains_seen",
              "time_scale"]

ConfigMaker = Callable[[dict[str, Any], Condition, int], VillageConfig]


def models_of(cfg: VillageConfig) -> dict[str, str]:
    """The model each module's LLM calls go to (``default`` for the rest), or nothing for the
    heuristic brain."""
    if cfg.llm.provider == "heuristic":
        return {}
    out = {"default": cfg.llm.model}
    for module, m in sorted(cfg.llm.modules.items()):
        model = getattr(m, "model", None)
        if model:
            out[module] = str(model)
    return out


class RunBook:
    """Bookkeeping of one experiment's runs: the plan, the brains, ``runs.csv``."""

    def __init__(self, exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> None:
        self.exp, self.opts, self.out = exp, opts, out
        self.configured = ""
        self.brains: Counter[str] = Counter()
        self.rows: list[dict[str, Any]] = []
        self.tables: dict[str, list[dict[str, Any]]] = {}
        self._models: dict[str, str] = {}

    def runs(self, make_config: ConfigMaker | None = None) -> Iterator[RunSpec]:
        for spec in plan_runs(self.exp, self.opts, self.out, make_config):
            self.configured = brain_label(spec.config)
            self._models = models_of(spec.config)
            if self.opts.progress:
                n = len(spec.config.agents) or "templated"
                self.opts.progress(f"run {spec.label} ({n} agents)")
            yield spec

    def done(self, spec: RunSpec, agents: int,
             events: Sequence[Mapping[str, Any]] | None = None) -> dict[str, int]:
        """Record a finished run; returns the brains that decided in it."""
        seen = brains_seen(read_events(spec.run_dir) if events is None else events)
        self.brains.update(seen)
        self.rows.append({
            "condition": spec.condition.name, "repeat": spec.repeat, "seed": spec.seed,
            "agents": agents, "brain": self.configured, "models": self._models,
            "brains_seen": seen, "time_scale": spec.time_scale,
        })
        write_csv(self.out / "runs.csv", self.rows, RUN_FIELDS)
        return seen

    def collect(self, spec: RunSpec, **tables: Iterable[Mapping[str, Any]]) -> None:
        """Add a run's rows to the named raw tables, each tagged with condition and repeat."""
        tag = {"condition": spec.condition.name, "repeat": spec.repeat}
        for name, rows in tables.items():
            self.tables.setdefault(name, []).extend({**tag, **r} for r in rows)

    def write(self, name: str, fields: Sequence[str]) -> Path:
        """Write raw table ``name`` to ``<out>/<name>.csv``."""
        return write_csv(self.out / f"{name}.csv", self.tables.get(name, []), fields)

    def finish(self, title: str, protocol: Any, figs: Mapping[str, Any], tables: str,
               text: str = "", extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Write ``metrics.json`` and ``report.md``; returns the metrics."""
        metrics = {
            "experiment": self.exp.experiment, "brain": self.configured,
            "brains_seen": dict(self.brains), "time_scale": self.opts.time_scale,
            "protocol": protocol.model_dump(), "runs": len(self.rows),
            **(extra or {}), "figures": figs,
        }
        write_json(self.out / "metrics.json", metrics)
        report = report_header(title, self.exp, self.opts, self.brains, self.configured)
        report += protocol_section(protocol, read_runs(self.out)) + tables + text
        report += paper_section(self.exp, self.configured)
        (self.out / "report.md").write_text(report, encoding="utf-8")
        return metrics


def read_runs(out: Path) -> list[dict[str, Any]]:
    """``runs.csv`` with its cells typed back."""
    rows = []
    for r in read_csv(out / "runs.csv"):
        rows.append({**r, "repeat": int(r["repeat"]), "seed": int(r["seed"]),
                     "agents": int(r["agents"]), "models": json.loads(r["models"] or "{}"),
                     "brains_seen": json.loads(r["brains_seen"] or "{}"),
                     "time_scale": float(r["time_scale"])})
    return rows


def context(out: Path) -> tuple[ExperimentFile, str]:
    """The experiment file an output folder was made with and the brain its runs used
    (``heuristic`` or ``provider:model``), from ``config.yaml`` and ``runs.csv``."""
    runs = read_runs(out)
    return load_experiment_file(out / "config.yaml"), (runs[-1]["brain"] if runs else "")


def protocol_section(protocol: Any, runs: Sequence[Mapping[str, Any]]) -> str:
    """The protocol as it ran: every protocol number, and each run's agents, seed and brain."""
    fields = md_table(["protocol field", "value"],
                      [[k, json.dumps(v) if isinstance(v, (list, dict, tuple)) else v]
                       for k, v in protocol.model_dump().items()])
    per_run = md_table(
        ["run", "agents", "seed", "brain", "models", "decided by", "time scale"],
        [[f"{r['condition']}-r{r['repeat']}", r["agents"], r["seed"], r["brain"],
          ", ".join(f"{k}: {v}" for k, v in r["models"].items()) or "none (heuristic)",
          ", ".join(f"{k} ({v})" for k, v in sorted(r["brains_seen"].items())) or "none",
          r["time_scale"]] for r in runs],
    )
    return f"## Protocol as run\n\n{fields}\n\n{per_run}\n\n## Results\n\n"


def verify(out: Path, figs: Mapping[str, Any], tables: str) -> list[str]:
    """Differences between what the raw files give (``figs``, ``tables``) and the report:
    ``metrics.json``'s figures and ``report.md``'s tables. Empty = the report is what the
    raw data say."""
    problems = []
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    want = json.loads(json.dumps(clean(figs), default=str))
    for key in sorted(set(want) | set(metrics.get("figures", {}))):
        got = metrics.get("figures", {}).get(key)
        if not _same(got, want.get(key)):
            problems.append(f"figure {key}: report {got!r} != recomputed {want.get(key)!r}")
    report = (out / "report.md").read_text(encoding="utf-8")
    for block in tables.split("\n\n"):
        if block.strip() and block.strip() not in report:
            problems.append("table not in report.md:\n" + block.strip())
    return problems


def _same(a: Any, b: Any, tol: float = 1e-9) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=tol, abs_tol=tol)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def recompute_main(name: str, figures: Callable[[Path], dict[str, Any]],
                   tables: Callable[[Path, Mapping[str, Any]], str],
                   argv: Sequence[str] | None = None) -> int:
    """``python -m experiments.<name>.recompute OUT``: recompute every figure of OUT's report
    from its raw files, print them, and exit 1 if the report says anything else."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog=f"python -m experiments.{name}.recompute",
                                 description=recompute_main.__doc__)
    ap.add_argument("out", type=Path, help="the experiment's output folder")
    args = ap.parse_args(argv)
    figs = figures(args.out)
    problems = verify(args.out, figs, tables(args.out, figs))
    sys.stdout.write(json.dumps(clean(figs), indent=2, default=str) + "\n")
    for p in problems:
        sys.stdout.write(f"MISMATCH {p}\n")
    sys.stdout.write(f"{len(figs)} figure groups; {len(problems)} mismatch(es)\n")
    return 1 if problems else 0
