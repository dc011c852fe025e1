"""PNG plots shared by the experiments (matplotlib, Agg backend, one figure per call).

Every function takes the output path first, writes one PNG and closes the
figure; matplotlib is imported on first use (no import-time side effects).
Empty data still gives a picture that says "no data".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "bars",
    "graph",
    "heatmap",
    "histogram",
    "lines",
    "role_timeline",
    "scatter_fit",
]


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    _plt().close(fig)
    return path


def _no_data(ax: Any) -> None:
    ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)


def _finish(fig: Any, ax: Any, path: Path, drawn: bool, **labels: str) -> Path:
    """Label the axes, say "no data" on them if nothing was drawn, save the figure."""
    if not drawn:
        _no_data(ax)
    ax.set(**labels)
    return _save(fig, path)


def lines(
    path: Path,
    series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    bands: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
) -> Path:
    """One line per series (x, y); optional shaded (lo, hi) band per series."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    drawn = False
    for name, (xs, ys) in series.items():
        if len(xs) == 0:
            continue
        (line,) = ax.plot(xs, ys, label=name)
        drawn = True
        if bands and name in bands:
            lo, hi = bands[name]
            ax.fill_between(xs, lo, hi, alpha=0.2, color=line.get_color())
    if drawn and len(series) <= 12:
        ax.legend(fontsize=7)
    return _finish(fig, ax, path, drawn, title=title, xlabel=xlabel, ylabel=ylabel)


def bars(
    path: Path,
    groups: Mapping[str, Mapping[str, float]],
    *,
    title: str,
    ylabel: str,
    errors: Mapping[str, Mapping[str, tuple[float, float]]] | None = None,
) -> Path:
    """Grouped bars: ``groups[group][label] = value``; errors as (lo, hi) absolute bounds."""
    plt = _plt()
    labels = sorted({k for g in groups.values() for k in g})
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(labels) * max(1, len(groups))), 4))
    if not labels:
        _no_data(ax)
    width = 0.8 / max(1, len(groups))
    x = np.arange(len(labels))
    for i, (gname, vals) in enumerate(groups.items()):
        ys = np.array([vals.get(k, 0.0) for k in labels], dtype=float)
        yerr = None
        if errors and gname in errors:
            e = errors[gname]
            lo = [ys[j] - e[k][0] if k in e and math.isfinite(e[k][0]) else 0.0
                  for j, k in enumerate(labels)]
            hi = [e[k][1] - ys[j] if k in e and math.isfinite(e[k][1]) else 0.0
                  for j, k in enumerate(labels)]
            yerr = np.array([lo, hi])
        ax.bar(x + i * width - 0.4 + width / 2, np.nan_to_num(ys), width, label=gname, yerr=yerr,
               capsize=3)
    ax.set_xticks(x, labels, rotation=45, ha="right", fontsize=8)
    ax.set(title=title, ylabel=ylabel)
    if len(groups) > 1:
        ax.legend(fontsize=7)
    return _save(fig, path)


def heatmap(
    path: Path,
    matrix: npt.ArrayLike,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    title: str,
    xlabel: str = "",
    ylabel: str = "",
) -> Path:
    plt = _plt()
    m = np.asarray(matrix, dtype=float)
    fig, ax = plt.subplots(figsize=(max(5, 0.55 * len(cols) + 2), max(3, 0.4 * len(rows) + 1.5)))
    if m.size == 0:
        _no_data(ax)
    else:
        im = ax.imshow(m, aspect="auto", cmap="viridis")
        fig.colorbar(im, ax=ax)
        ax.set_xticks(range(len(cols)), cols, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(rows)), rows, fontsize=8)
        if m.size <= 200:
            for (i, j), v in np.ndenumerate(m):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6, color="w")
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    return _save(fig, path)


def histogram(
    path: Path, values: Sequence[float], *, bins: int, title: str, xlabel: str
) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    vals = [v for v in values if math.isfinite(v)]
    if vals:
        ax.hist(vals, bins=bins, color="tab:blue", edgecolor="k")
    return _finish(fig, ax, path, bool(vals), title=title, xlabel=xlabel, ylabel="count")


def scatter_fit(
    path: Path,
    x: Sequence[float],
    y: Sequence[float],
    *,
    slope: float,
    intercept: float,
    title: str,
    xlabel: str,
    ylabel: str,
) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 5))
    if len(x):
        ax.scatter(x, y, s=18)
        if math.isfinite(slope) and math.isfinite(intercept):
            xs = np.linspace(min(x), max(x), 10)
            ax.plot(xs, slope * xs + intercept, color="tab:red")
    return _finish(fig, ax, path, len(x) > 0, title=title, xlabel=xlabel, ylabel=ylabel)


def role_timeline(
    path: Path,
    agents: Sequence[str],
    times: Sequence[float],
    roles: Sequence[Sequence[str | None]],
    *,
    title: str,
) -> Path:
    """A categorical agent x time picture: ``roles[i][j]`` = role of agent i at time j."""
    plt = _plt()
    labels = sorted({r for row in roles for r in row if r})
    index = {r: i for i, r in enumerate(labels)}
    m = np.full((len(agents), len(times)), np.nan)
    for i, row in enumerate(roles):
        for j, r in enumerate(row):
            if r:
                m[i, j] = index[r]
    fig, ax = plt.subplots(figsize=(8, max(3, 0.22 * len(agents) + 1.5)))
    if not labels or not len(times):
        _no_data(ax)
    else:
        cmap = plt.get_cmap("tab20", max(1, len(labels)))
        extent = (float(times[0]), float(times[-1]) if len(times) > 1 else float(times[0]) + 1,
                  len(agents) - 0.5, -0.5)
        im = ax.imshow(m, aspect="auto", cmap=cmap, vmin=-0.5, vmax=len(labels) - 0.5,
                       interpolation="nearest", extent=extent)
        cb = fig.colorbar(im, ax=ax, ticks=range(len(labels)))
        cb.ax.set_yticklabels(labels, fontsize=7)
        ax.set_yticks(range(len(agents)), agents, fontsize=6)
    ax.set(title=title, xlabel="time (protocol s)")
    return _save(fig, path)


def graph(
    path: Path,
    nodes: Sequence[str],
    edges: Mapping[str, Mapping[str, float]],
    *,
    title: str,
    node_values: Mapping[str, float] | None = None,
) -> Path:
    """Directed graph on a circle; edge colour = weight (0..10 sentiment: blue low, red high),
    node colour = value."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 7))
    n = len(nodes)
    if n == 0:
        _no_data(ax)
        return _save(fig, path)
    angle = np.linspace(0, 2 * np.pi, n, endpoint=False)
    pos = {name: (math.cos(a), math.sin(a)) for name, a in zip(nodes, angle, strict=True)}
    cmap = plt.get_cmap("coolwarm_r")
    for a, outs in edges.items():
        for b, w in outs.items():
            if a not in pos or b not in pos:
                continue
            (x0, y0), (x1, y1) = pos[a], pos[b]
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                        arrowprops={"arrowstyle": "->", "color": cmap(1 - w / 10), "alpha": 0.6,
                                    "shrinkA": 6, "shrinkB": 6})
    vals = [node_values.get(k, 0.0) if node_values else 0.5 for k in nodes]
    ax.scatter([pos[k][0] for k in nodes], [pos[k][1] for k in nodes], c=vals, cmap="viridis",
               s=80, zorder=3)
    for k in nodes:
        ax.text(pos[k][0] * 1.1, pos[k][1] * 1.1, k, fontsize=6, ha="center", va="center")
    ax.set_axis_off()
    ax.set_title(title)
    return _save(fig, path)
