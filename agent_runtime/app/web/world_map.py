"""The static layer of the map: named places, village areas and chests.

Built from what the embedded server tells about its village (``GET /places`` of the admin
API: places, chests and the layout the generator used) or, for a replay, from the
``world_started`` record of ``events.jsonl`` (places only). Areas are drawn from the
layout's own shapes (``town_hall``/``farm``/``pasture`` rectangles, ``forest``/``hills``/
``lake`` circles, the plaza), the same numbers the generator built the terrain from
(see ``bots/server/generator/plan.js``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["WORLD_FILE", "world_layer"]

#: The map layer of a run, kept in its run folder by the live page (read by replays).
WORLD_FILE = "world_map.json"

RECTS = ("town_hall", "farm", "pasture")
CIRCLES = ("forest", "hills", "lake")


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _places(raw: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if isinstance(raw, dict):  # {name: [x, y, z]}
        raw = [{"name": k, "x": v[0], "y": v[1], "z": v[2]} for k, v in raw.items() if len(v) == 3]
    for p in raw or []:
        if isinstance(p, dict) and _num(p.get("x")) is not None and _num(p.get("z")) is not None:
            out.append(
                {
                    "name": str(p.get("name", "")),
                    "x": float(p["x"]),
                    "y": float(p.get("y") or 0),
                    "z": float(p["z"]),
                }
            )
    return out


def _areas(layout: dict[str, Any]) -> list[dict[str, Any]]:
    cx = _num(layout.get("centre_x")) or 0.0
    cz = _num(layout.get("centre_z")) or 0.0
    areas: list[dict[str, Any]] = [
        {"kind": "plaza", "shape": "rect", "x0": cx - 4, "z0": cz - 4, "x1": cx + 5, "z1": cz + 5}
    ]
    for name in RECTS:
        r = layout.get(name)
        if not isinstance(r, dict):
            continue
        dx, dz, w, d = (_num(r.get(k)) for k in ("dx", "dz", "width", "depth"))
        if None in (dx, dz, w, d):
            continue
        assert dx is not None and dz is not None and w is not None and d is not None
        areas.append(
            {"kind": name, "shape": "rect", "x0": cx + dx, "z0": cz + dz}
            | {"x1": cx + dx + w, "z1": cz + dz + d}
        )
    for name in CIRCLES:
        c = layout.get(name)
        if not isinstance(c, dict):
            continue
        dx, dz, r = (_num(c.get(k)) for k in ("dx", "dz", "radius"))
        if None in (dx, dz, r):
            continue
        assert dx is not None and dz is not None and r is not None
        areas.append({"kind": name, "shape": "circle", "x": cx + dx, "z": cz + dz, "r": r})
    return areas


def world_layer(info: dict[str, Any]) -> dict[str, Any]:
    """``{places, areas, chests}`` from a ``GET /places`` answer or a ``world_started`` record."""
    layout = info.get("layout")
    chests = [
        [float(c["x"]), float(c.get("y") or 0), float(c["z"])]
        for c in info.get("chests") or []
        if isinstance(c, dict) and _num(c.get("x")) is not None and _num(c.get("z")) is not None
    ]
    return {
        "places": _places(info.get("places")),
        "areas": _areas(layout) if isinstance(layout, dict) else [],
        "chests": chests,
    }
