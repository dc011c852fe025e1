"""Runs of two commits measured back to back, as a before/after Markdown table for the docs.

Registered as the ``before-after`` renderer of ``piano docs``
(:mod:`agent_runtime.app.doc_figures`)::

    <!-- figures: before-after B1.json with=A1.json,B2.json,A2.json keys="a:higher,b.c:lower,d" rule=within:10 -->

Each file is one run: a result with its ``provenance`` (``date``, ``commit``,
``load_average_before``/``_after``, as ``--json-out`` writes it). The runs are grouped by
commit in the order they first appear: the first commit is *before*, the second *after*
(exactly two). ``keys`` names the figures (dotted paths into each file), each with the
direction that is better (``higher``, ``lower``, or none: any change counts), and
``labels`` (optional) their names in the table. ``rule`` says what *kept* means:

- ``within:P``: after's mean within P % of before's (only the worse direction counts for a
  key with a direction: a lag that fell is kept);
- ``no-lower``: after's mean at least before's (at most, for a ``lower`` key).

The table shows every run's value, each side's mean and spread (max - min of its runs),
after against before in %, and the verdict, so the doc's claims follow the files. A figure a
run has as null (a share of nothing) shows as n/a and is left out of its side's mean.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_runtime.app.doc_figures import result_files

__all__ = ["render_before_after"]


@dataclass(frozen=True)
class _Key:
    path: str
    better: str  # "higher" | "lower" | ""
    label: str


@dataclass(frozen=True)
class _Run:
    name: str
    data: Mapping[str, Any]

    @property
    def prov(self) -> Mapping[str, Any]:
        p = self.data.get("provenance")
        if not isinstance(p, Mapping):
            raise ValueError(f"{self.name}: no provenance")
        return p


def _keys(options: Mapping[str, str]) -> list[_Key]:
    specs = [k.strip() for k in options.get("keys", "").split(",") if k.strip()]
    if not specs:
        raise ValueError("before-after needs keys=a,b.c:higher,...")
    labels = [x.strip() for x in options["labels"].split(",")] if "labels" in options else None
    if labels is not None and len(labels) != len(specs):
        raise ValueError(f"labels= names {len(labels)} figures for {len(specs)} keys")
    out = []
    for i, spec in enumerate(specs):
        path, _, better = spec.partition(":")
        if better not in ("", "higher", "lower"):
            raise ValueError(f"{spec}: the direction is higher or lower")
        out.append(_Key(path, better, labels[i] if labels else f"`{path}`"))
    return out


def _value(data: Mapping[str, Any], path: str) -> float | None:
    """The figure at ``path``; ``None`` where the file says null (a share of nothing)."""
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise ValueError(f"no {path!r} in a result file")
        node = node[part]
    if node is None:
        return None
    if isinstance(node, bool) or not isinstance(node, int | float):
        raise ValueError(f"{path!r} is not a number: {node!r}")
    return float(node)


def _num(x: float | None) -> str:
    if x is None:
        return "n/a"
    if x == int(x) and abs(x) >= 1:
        return f"{int(x):,}"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}" if x else "0"


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def _kept(key: _Key, before: float, after: float, rule: str) -> bool:
    if rule == "no-lower":
        return after <= before if key.better == "lower" else after >= before
    if not rule.startswith("within:"):
        raise ValueError(f"rule {rule!r}: within:P or no-lower")
    share = float(rule.split(":", 1)[1]) / 100.0
    if before == 0:
        return after == 0 or (key.better == "higher" and after > 0)
    change = (after - before) / abs(before)
    if key.better == "higher":
        return change >= -share
    if key.better == "lower":
        return change <= share
    return abs(change) <= share


def _change(before: float, after: float) -> str:
    if before == 0:
        return "-" if after == 0 else "new"
    return f"{(after - before) / abs(before) * 100:+.1f}%"


def _spread(xs: Sequence[float]) -> str:
    if len(xs) < 2:
        return "-"
    spread = max(xs) - min(xs)
    mean = _mean(xs)
    return _num(spread) + (f", {spread / abs(mean) * 100:.0f}%" if mean else "")


def _load(prov: Mapping[str, Any], field: str) -> str:
    load = prov.get(field)
    return str(load[0]) if isinstance(load, list) and load else "?"


def render_before_after(source: Path, options: Mapping[str, str]) -> str:
    runs = [_Run(f.name, json.loads(f.read_text())) for f in result_files(source, options)]
    commits: list[str] = []
    for r in runs:
        if str(r.prov.get("commit")) not in commits:
            commits.append(str(r.prov.get("commit")))
    if len(commits) != 2:
        raise ValueError(f"before-after needs runs of exactly 2 commits, got {commits}")
    side = {commits[0]: "before", commits[1]: "after"}
    named = []
    count = {"before": 0, "after": 0}
    for r in runs:
        s = side[str(r.prov.get("commit"))]
        count[s] += 1
        named.append((f"{s} {count[s]}", r))
    rule = options.get("rule", "within:10")
    keys = _keys(options)

    head = "| run | commit | started (UTC) | load avg before -> after |"
    out = [head, "|---|---|---|---|"]
    for name, r in named:
        when = str(r.prov.get("date", "?"))
        out.append(
            f"| {name} | {r.prov.get('commit')} | {when[:10]} {when[11:16]} "
            f"| {_load(r.prov, 'load_average_before')} -> {_load(r.prov, 'load_average_after')} |"
        )
    cols = [n for n, _ in named]
    out += [
        "",
        "| figure | " + " | ".join(cols) + " | before: mean (spread) | after: mean (spread) "
        f"| after vs before | kept ({rule.replace(':', ' ')}{'%' if ':' in rule else ''}) |",
        "|---|" + "---|" * (len(cols) + 4),
    ]
    for key in keys:
        values = {n: _value(r.data, key.path) for n, r in named}
        # a run without the figure (null: e.g. a share of no utterances) is left out of its mean
        b = [v for n, v in values.items() if n.startswith("before") and v is not None]
        a = [v for n, v in values.items() if n.startswith("after") and v is not None]
        better = f" ({key.better} is better)" if key.better else ""
        if a and b:
            means = f"{_num(_mean(b))} ({_spread(b)}) | {_num(_mean(a))} ({_spread(a)})"
            verdict = "yes" if _kept(key, _mean(b), _mean(a), rule) else "**no**"
            compared = f"{means} | {_change(_mean(b), _mean(a))} | {verdict}"
        else:
            compared = "n/a | n/a | n/a | n/a (a side without the figure)"
        out.append(
            f"| {key.label}{better} | "
            + " | ".join(_num(values[c]) for c in cols)
            + f" | {compared} |"
        )
    return "\n".join(out) + "\n"
