"""Progress of long commands: live figures of a village and a terminal progress bar.

``village_figures(village)`` is what the village adds to each ``progress`` record (and
so to ``events.jsonl``, the live page and ``piano replay``): scheduling lag of the
recent steps, LLM calls and tokens, coherence of the recent utterances and agent
positions. It reads counters the
village already keeps; it is called once per progress tick, never per step.

``ProgressBar`` renders those records: on a terminal, ``rich``'s progress bar redrawn in
place (bar, percentage, elapsed, time left, then ``agents 5  decisions 12  errors 0``);
elsewhere (CI, a pipe, a log file) a plain line per record.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, InitVar, dataclass
from typing import IO, Any

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from agent_runtime import gc_settings
from agent_runtime.app.village_view import RunningVillage
from agent_runtime.run.coherence import CoherenceTracker

__all__ = [
    "ProgressBar",
    "RunView",
    "bench_counters",
    "default_web_port",
    "format_duration",
    "tick",
    "village_figures",
]

#: How many of the newest lag samples the live figure is computed from.
RECENT_LAGS = 5000
#: How many of the newest utterances the live coherence figure is computed from.
RECENT_LINES = 1000


def village_figures(v: RunningVillage) -> dict[str, Any]:
    """Figures for one progress record (cheap: O(recent samples + agents))."""
    out: dict[str, Any] = {}
    lags = v.metrics.lags_ms[-RECENT_LAGS:]
    if lags:
        arr = np.asarray(lags, dtype=np.float64)
        out["lag_ms_p50"] = round(float(np.percentile(arr, 50)), 2)
        out["lag_ms_p95"] = round(float(np.percentile(arr, 95)), 2)
    svc = v.services
    llm = getattr(svc, "llm", None)
    accounting = getattr(llm, "accounting", None)
    if accounting is not None:
        total = accounting.stats()
        out["llm_calls"] = int(total.calls)
        out["llm_tokens"] = int(total.total_tokens)
        out["llm_cost_usd"] = round(float(total.cost_usd), 6)
    if llm is not None and getattr(llm, "uses_llm", False):
        # the model's share and every fallback, so a failing endpoint never reads "errors 0"
        p = llm.progress()
        for key in ("model_share", "fallbacks", "shed", "failed", "attempt_errors"):
            out[f"llm_{key}"] = p[key]
        out["llm_text"] = llm.progress_text()
        # per module, for the page's calls / tokens / dollars per agent-hour
        out["llm_modules"] = (
            {
                m: {
                    "calls": int(st["calls"]),
                    "tokens": int(st["total_tokens"]),
                    "cost_usd": round(float(st["cost_usd"]), 6),
                }
                for m, st in accounting.summary().items()
            }
            if accounting is not None
            else {}
        )
    # over the newest utterances only: the full summary grows with the run (metrics.json has it)
    c = v.coherence
    recent = CoherenceTracker(
        window_s=c.window_s, speeches=c.speeches[-RECENT_LINES:], skills=c.skills, ended=c.ended
    )
    out["coherence"] = recent.summary().get("kept_share")
    if v.store is not None:
        positions: dict[str, list[float]] = {}
        for name in v.agents:
            obs = getattr(v.store.agent(name).raw("perception"), "observation", None)
            pos = getattr(obs, "position", None)
            if pos is not None:
                positions[name] = [round(pos.x, 2), round(pos.y, 2), round(pos.z, 2)]
        out["positions"] = positions
    return out


def bench_counters(v: RunningVillage) -> dict[str, Any]:
    """Running totals a benchmark takes deltas of between two progress records of one
    process: messages this process published (each one goes to the broker), and per
    module the timed steps, the agents running it and its configured mean interval (so a
    benchmark over workers reports each module's cadence as the one-process bench does)."""
    totals = v.metrics.module_totals()
    return {
        "bus_published": int(getattr(v.bus, "published", 0)),
        "module_timed": {k: int(m["timed"]) for k, m in totals.items()},
        "module_agents": {k: int(m["agents"]) for k, m in totals.items()},
        "module_interval": dict(v.metrics.expected_interval),
        "gc": gc_settings.STATS.figures(),
    }


def format_duration(seconds: float) -> str:
    s = max(0, int(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class ProgressBar:
    """Renders progress records of a command that runs ``total_s`` seconds (None: open-ended).

    ``update(info)`` takes a progress record (``elapsed_s``, ``agents``, ``decisions``,
    ``errors`` and whatever else is known); ``close()`` ends the display. On a terminal it is
    ``rich``'s progress bar (percentage, elapsed, time left) with the record's figures beside
    it, redrawn in place; elsewhere one plain line per record (:meth:`line`).
    """

    WIDTH = 24

    def __init__(
        self,
        label: str,
        total_s: float | None,
        *,
        stream: IO[str] | None = None,
        tty: bool | None = None,
        fields: tuple[str, ...] = ("agents", "decisions", "speech", "errors"),
    ) -> None:
        self.label = label
        self.total_s = total_s if total_s and total_s > 0 else None
        self.stream = stream if stream is not None else sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        self.fields = fields
        self.started = time.monotonic()
        self._elapsed = 0.0  # the records' clock, which rich's columns read
        self._live: Progress | None = None
        self._task: TaskID | None = None

    def figures(self, info: Mapping[str, Any]) -> list[str]:
        parts = [f"{key} {info[key]}" for key in self.fields if info.get(key) is not None]
        if info.get("lag_ms_p95") is not None:
            parts.append(f"lag p95 {info['lag_ms_p95']:.0f} ms")
        if info.get("llm_model_share") is not None:
            share = float(info.get("llm_model_share") or 0.0)
            parts.append(f"model {share:.0%} fallbacks {info.get('llm_fallbacks', 0)}")
        return parts

    def line(self, info: Mapping[str, Any]) -> str:
        """The record as one plain line (a pipe, a log file, CI)."""
        elapsed = float(info.get("elapsed_s", time.monotonic() - self.started))
        parts = [self.label]
        if self.total_s is not None:
            frac = min(1.0, elapsed / self.total_s)
            parts.append(f"{100 * frac:3.0f}%")
            parts.append(f"{format_duration(elapsed)} elapsed")
            parts.append(f"{format_duration(self.total_s - elapsed)} left")
        else:
            parts.append(f"{format_duration(elapsed)} elapsed")
        return "  ".join(parts + self.figures(info))

    def _open(self) -> tuple[Progress, TaskID]:
        if self._live is None or self._task is None:
            columns: list[ProgressColumn] = [TextColumn(escape(self.label))]
            if self.total_s is not None:
                columns += [
                    BarColumn(bar_width=self.WIDTH),
                    TaskProgressColumn(),
                    TimeElapsedColumn(),
                    TimeRemainingColumn(),
                ]
            else:
                columns.append(TimeElapsedColumn())
            columns.append(TextColumn("{task.fields[figures]}"))
            console = Console(file=self.stream, force_terminal=True, soft_wrap=True)
            self._live = Progress(
                *columns, console=console, auto_refresh=False, get_time=lambda: self._elapsed
            )
            self._live.start()
            self._task = self._live.add_task(self.label, total=self.total_s, figures="")
        return self._live, self._task

    def update(self, info: Mapping[str, Any]) -> None:
        if not self.tty:
            self.stream.write(self.line(info) + "\n")
            self.stream.flush()
            return
        live, task = self._open()  # its clock starts at 0 s: the records' elapsed_s
        self._elapsed = float(info.get("elapsed_s", time.monotonic() - self.started))
        done = min(self._elapsed, self.total_s) if self.total_s is not None else self._elapsed
        live.update(task, completed=done, figures=escape("  ".join(self.figures(info))))
        live.refresh()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()  # leaves the last bar on its own line
            self._live = self._task = None


async def tick(
    v: RunningVillage, total_s: float | None, label: str, *, stream: IO[str] | None = None
) -> None:
    """Show a village's progress on ``stream`` (default stderr) until cancelled.

    For commands whose stdout is their result (benchmarks print JSON): every 2 s on a
    terminal, every 10 s as a plain line elsewhere. Reads counters only.
    """
    bar = ProgressBar(label, total_s, stream=stream if stream is not None else sys.stderr)
    started = time.monotonic()
    try:
        while True:
            await asyncio.sleep(2.0 if bar.tty else 10.0)
            bar.update(
                {
                    "elapsed_s": time.monotonic() - started,
                    "agents": len(v.agents),
                    "decisions": v.events.counts.get("decision", 0),
                    "errors": v.events.counts.get("module_error", 0),
                }
            )
    finally:
        bar.close()


def default_web_port() -> int | None:
    """The live page's port for runs that other commands start (experiments).

    ``PIANO_WEB_PORT``: ``off`` (no page) or a port (0: a free one); unset: a free port
    when stdout is a terminal (someone is watching), no page otherwise (CI, tests).
    """
    raw = os.environ.get("PIANO_WEB_PORT", "").strip().lower()
    if raw in ("off", "none", "no", "0ff"):
        return None
    if raw.isdigit():
        return int(raw)
    return 0 if sys.stdout.isatty() else None


@dataclass(eq=False)
class RunView:
    """The live page and the progress display of one run of a longer command.

    ``options()`` goes into ``VillageOptions`` (``web_port``, ``progress``); ``started``
    tells the page's address once the village is up; ``close`` ends the progress bar.
    ``say`` is the command's own printer (None: quiet).
    """

    label: str
    wall_s: InitVar[float | None]
    say: Callable[[str], None] | None
    _: KW_ONLY
    web_port: int | None = None
    line_every: float = 10.0

    def __post_init__(self, wall_s: float | None) -> None:
        self.bar = ProgressBar(self.label, wall_s)
        self._said = -self.line_every

    def options(self) -> dict[str, Any]:
        return {"web_port": self.web_port, "progress": self.progress if self.say else None}

    def progress(self, info: dict[str, Any]) -> None:
        if self.bar.tty:
            self.bar.update(info)
            return
        now = time.monotonic()  # plain lines at most every ``line_every`` seconds
        if self.say is not None and now - self._said >= self.line_every:
            self._said = now
            self.say(self.bar.line(info))

    def started(self, village: RunningVillage) -> None:
        web = village.web
        if web is not None and self.say is not None:
            self.say(f"{self.label}: live view {web.url or web.error}")

    def close(self) -> None:
        self.bar.close()
