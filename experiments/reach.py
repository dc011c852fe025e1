"""Do a protocol's windows fit the world? The time to walk from where the agents live to a
window's target, against the window's length in wall seconds.

``--time-scale`` scales every protocol time, but not walking: a 20 s tax season at scale 0.2
is open 4 wall seconds, while the walk from the village square to the town hall's chests takes
as long as at scale 1. :func:`check` compares each window an agent must act in with the walk
from each agent's home (its ``spawn_location``, else the square where the embedded server
spawns everybody: the layout's centre, jittered by up to 3 blocks, ``bots/server/plugins/
village.js``) to the farthest of the window's targets, at the walking pace measured by the
skills bench; a runner logs a warning and emits a ``protocol_window_short`` event for each
window that does not fit, and its report says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from agent_runtime.config.models import VillageConfig

__all__ = ["ACT_S", "SPAWN_JITTER", "WALK_BLOCKS_PER_S", "Window", "check", "homes", "walk_s"]

#: walking pace of a body, blocks per wall second: ``bots/body/BENCH.md``, session 3, goto_100
#: p50 22.3 s for 100 blocks (one agent; goto_50 10.7 s at 5 agents, session 8, is the same
#: pace). Straight-line distance at this pace is a lower bound on a walk (paths bend).
WALK_BLOCKS_PER_S = 100 / 22.3
#: wall seconds a body needs at the target besides walking (open a chest, move the items):
#: our estimate, not a measurement
ACT_S = 2.0
#: the embedded server spawns a player up to this many blocks off the square's centre in x and z
SPAWN_JITTER = 3


def walk_s(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Wall seconds to walk the straight line from ``a`` to ``b`` (x, z) at the bench's pace."""
    return math.dist(a, b) / WALK_BLOCKS_PER_S


def homes(cfg: VillageConfig) -> dict[str, tuple[float, float]]:
    """Where each agent lives: its ``spawn_location``, else the village square (the corner of
    the server's spawn jitter that is farthest from the town hall's side is not known here,
    so the jitter is added to the distance in :func:`check`)."""
    lay = cfg.world.layout
    return {a.name: ((a.spawn_location.x, a.spawn_location.z) if a.spawn_location else
                     (float(lay.centre_x), float(lay.centre_z))) for a in cfg.agents}


@dataclass(frozen=True)
class Window:
    name: str  # e.g. "tax season"
    wall_s: float  # how long it is open, in wall seconds (the protocol's length x time scale)
    targets: tuple[tuple[float, float], ...]  # where an agent must go to act (x, z); () = nowhere
    walk_s: float = math.nan  # the longest walk from a home to the farthest target (+ ACT_S)
    farthest_agent: str = ""
    fits: bool = True
    note: str = ""

    def as_row(self) -> dict[str, Any]:
        d = asdict(self)
        d["targets"] = [list(t) for t in self.targets]
        return d


def check(windows: Iterable[Window], cfg: VillageConfig) -> list[Window]:
    """Each window with the longest walk from any agent's home to its farthest target (plus
    :data:`ACT_S` at the target) and whether it fits in the window's wall seconds. A window
    with no target (decided from the member's own view: no body action) always fits."""
    where = homes(cfg)
    jitter = {a.name: (0.0 if a.spawn_location else SPAWN_JITTER * math.sqrt(2))
              for a in cfg.agents}
    out = []
    for w in windows:
        if not w.targets or not where:
            out.append(Window(w.name, w.wall_s, w.targets, 0.0, "", True,
                              w.note or "no walk: no body action"))
            continue
        name, dist = max(((n, max(math.dist(h, t) for t in w.targets) + jitter[n])
                          for n, h in where.items()), key=lambda x: x[1])
        need = dist / WALK_BLOCKS_PER_S + ACT_S
        fits = need <= w.wall_s
        note = w.note or (
            f"{dist:.0f} blocks from {name}'s home to the farthest target: {need:.1f} s "
            f"(walk at {WALK_BLOCKS_PER_S:.2f} blocks/s + {ACT_S:.0f} s at the target) "
            f"{'<=' if fits else '>'} the {w.wall_s:.1f} s window")
        out.append(Window(w.name, w.wall_s, w.targets, round(need, 2), name, fits, note))
    return out


def shortfalls(checked: Sequence[Window]) -> list[Window]:
    return [w for w in checked if not w.fits]
