"""Shares of a body process's CPU profile samples under the frames the cell memo touches.

``python profile_shares.py LABEL DIR [LABEL DIR ...]``: for each directory of ``.cpuprofile``
files (``PIANO_BODY_CPU_PROF_DIR``), the samples of all its body processes together, and of
them the share under each frame (inclusive: a sample counts once for a frame anywhere in its
stack). Prints one line per frame with a column per directory.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

FRAMES = {
    "idle": ("(idle)", ""),
    "garbage collector": ("(garbage collector)", ""),
    "physics tick (mineflayer)": ("tickPhysics", "plugins/physics.js"),
    "pathfinder per tick": ("monitorMovement", "mineflayer-pathfinder/index.js"),
    "A* search": ("compute", "mineflayer-pathfinder/lib/astar.js"),
    "look-ahead (straight line)": ("canStraightLine", "body/lib/look_ahead.js"),
    "simulated ticks (prismarine-physics)": (
        "Physics.physics.simulatePlayer",
        "prismarine-physics/index.js",
    ),
    "path search block reads": ("Movements.getBlock", "body/lib/light_blocks.js"),
    "physics block reads": ("getBlock", "body/lib/light_blocks.js"),
    "collect's target scan": ("candidates", "skills/collect.js"),
}


def shares(directory: Path) -> tuple[int, dict[str, float]]:
    total = 0
    hits: Counter[str] = Counter()
    for path in sorted(directory.glob("*.cpuprofile")):
        profile = json.loads(path.read_text())
        nodes = {n["id"]: n for n in profile["nodes"]}
        parent = {c: n["id"] for n in profile["nodes"] for c in n.get("children", [])}
        stacks: dict[int, set[str]] = {}
        for sample in profile["samples"]:
            if sample not in stacks:
                names: set[str] = set()
                node_id: int | None = sample
                while node_id is not None:
                    frame = nodes[node_id]["callFrame"]
                    for label, (function, url) in FRAMES.items():
                        if frame["functionName"] == function and frame["url"].endswith(url):
                            names.add(label)
                    node_id = parent.get(node_id)
                stacks[sample] = names
            total += 1
            hits.update(stacks[sample])
    return total, {label: 100.0 * hits[label] / total for label in FRAMES} if total else {}


def main(argv: list[str]) -> None:
    pairs = list(zip(argv[0::2], argv[1::2], strict=True))
    results = [(label, *shares(Path(d))) for label, d in pairs]
    lines = ["frame".ljust(40) + "".join(label.rjust(14) for label, _, _ in results)]
    lines.append("samples".ljust(40) + "".join(str(n).rjust(14) for _, n, _ in results))
    for frame in FRAMES:
        lines.append(frame.ljust(40) + "".join(f"{s[frame]:13.1f}%" for _, _, s in results))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
