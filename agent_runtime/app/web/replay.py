"""A finished run folder as a timeline: the scene at any time ``t``.

``events.jsonl`` is read once and sorted by time. ``scene_at(t)`` applies the events up
to ``t`` to a scene; keyframes (a copy of the scene every ``KEYFRAME`` events) make a
jump backwards cheap, and moving forwards continues from where the last answer stopped.
Agents' positions come from the ``positions`` of the village's progress records and are
interpolated between two records, so markers glide when the slider moves. The world's
map layer comes from ``world_map.json`` (kept by the live page), else the places of the
``world_started`` record; the final social graph from
``metrics.json`` when the records carry none.
"""

from __future__ import annotations

import bisect
import copy
import json
import threading
from pathlib import Path
from typing import Any

from agent_runtime.app.web.scene import Scene
from agent_runtime.app.web.world_map import WORLD_FILE

__all__ = ["ReplayError", "ReplaySource"]

KEYFRAME = 1000


class ReplayError(RuntimeError):
    """The folder is not a run folder (no readable ``events.jsonl``)."""


def _read_events(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise ReplayError(f"{path} does not exist: not a run folder")
    out: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut by a crash
            if isinstance(rec, dict) and isinstance(rec.get("t"), int | float):
                out.append(rec)
    out.sort(key=lambda r: float(r["t"]))
    return out


class ReplaySource:
    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.events = _read_events(run_dir / "events.jsonl")
        if not self.events:
            raise ReplayError(f"{run_dir / 'events.jsonl'} holds no events")
        self.times = [float(r["t"]) for r in self.events]
        self.t0, self.t1 = self.times[0], self.times[-1]
        self.run_id = str(
            next((r.get("run_id") for r in self.events if r.get("run_id")), run_dir.name)
        )
        self.graph = self._final_graph()
        self.tracks = self._tracks()
        self._lock = threading.Lock()
        first = Scene(self.run_id)
        first.world = self._world_layer()
        self._keyframes: list[tuple[int, Scene]] = [(0, first)]
        self._scene = copy.deepcopy(self._keyframes[0][1])
        self._done = 0  # events applied to self._scene

    def _world_layer(self) -> dict[str, Any]:
        try:
            layer = json.loads((self.run_dir / WORLD_FILE).read_text())
        except (OSError, ValueError):
            layer = None
        if isinstance(layer, dict) and isinstance(layer.get("areas"), list):
            return layer
        return {"places": [], "areas": [], "chests": []}

    def _final_graph(self) -> dict[str, dict[str, float]]:
        try:
            metrics = json.loads((self.run_dir / "metrics.json").read_text())
        except (OSError, ValueError):
            return {}
        graph = metrics.get("social_graph") if isinstance(metrics, dict) else None
        return graph if isinstance(graph, dict) else {}

    def _tracks(self) -> dict[str, tuple[list[float], list[list[float]]]]:
        tracks: dict[str, tuple[list[float], list[list[float]]]] = {}
        for r in self.events:
            positions = r.get("positions") if r.get("type") == "progress" else None
            if not isinstance(positions, dict):
                continue
            for name, pos in positions.items():
                if isinstance(pos, list) and len(pos) == 3:
                    times, points = tracks.setdefault(str(name), ([], []))
                    times.append(float(r["t"]))
                    points.append([float(v) for v in pos])
        return tracks

    def position(self, name: str, t: float) -> list[float] | None:
        track = self.tracks.get(name)
        if track is None:
            return None
        times, points = track
        i = bisect.bisect_right(times, t)
        if i == 0:
            return points[0]
        if i >= len(times):
            return points[-1]
        a, b = times[i - 1], times[i]
        f = (t - a) / (b - a) if b > a else 1.0
        p, q = points[i - 1], points[i]
        return [p[k] + f * (q[k] - p[k]) for k in range(3)]

    def info(self) -> dict[str, Any]:
        return {
            "mode": "replay",
            "run_id": self.run_id,
            "t0": self.t0,
            "t1": self.t1,
            "events": len(self.events),
            "agents": sorted({str(r["agent"]) for r in self.events if r.get("agent")}),
        }

    def scene_at(self, t: float) -> Scene:
        """The scene after every event up to ``t`` (the returned object is shared: read it)."""
        with self._lock:
            n = bisect.bisect_right(self.times, t)
            if n < self._done:
                k = bisect.bisect_right([i for i, _ in self._keyframes], n) - 1
                start, frame = self._keyframes[k]
                self._scene, self._done = copy.deepcopy(frame), start
            scene = self._scene
            for i in range(self._done, n):
                scene.on_event(self.events[i])
                if (i + 1) % KEYFRAME == 0 and (i + 1) > self._keyframes[-1][0]:
                    self._keyframes.append((i + 1, copy.deepcopy(scene)))
            self._done = n
            scene.t = t
            for name in self.tracks:  # every agent of the run is on the map from the start
                scene.agent(name)
            for name, view in scene.agents.items():
                view.pos = self.position(name, t) or view.pos
            return scene

    def snapshot(self, t: float, agent: str | None) -> dict[str, Any]:
        t = min(max(t, self.t0), self.t1)
        scene = self.scene_at(t)
        with self._lock:
            out = scene.summary(t)
            out["detail"] = scene.detail(agent) if agent else None
        if self.graph and t >= self.t1:  # the final social graph, at the end of the timeline
            out["edges"] = [
                {"from": a, "to": b, "sentiment": s}
                for a, row in self.graph.items()
                for b, s in row.items()
                if abs(float(s) - 5.0) >= 0.5
            ][:300]
            if out["detail"] is not None:
                out["detail"]["sentiments"] = dict(self.graph.get(out["detail"]["name"], {}))
        out["mode"] = "replay"
        return out
