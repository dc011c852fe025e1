"""Count the A* searches of a village's bodies by why they started, from the file the bodies
wrote with ``PIANO_DEBUG_REPLANS`` (bots/body/lib/replans.js: one line per finished search,
``ms name why status wall_ms nodes slices``, and ``kept`` lines for a path kept through a
block change), over the run's whole time (its JSON's provenance ``date`` to ``finished``).

    python replans.py replans-before-1.txt village-50-before-1.json replans-before-1.json
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path


def main(lines_file: str, village_file: str, out_file: str) -> None:
    village = json.loads(Path(village_file).read_text())
    prov = village["provenance"]
    start = datetime.fromisoformat(prov["date"].replace("Z", "+00:00")).timestamp() * 1000
    end = datetime.fromisoformat(prov["finished"].replace("Z", "+00:00")).timestamp() * 1000
    body_minutes = village["agents"] * (end - start) / 60000
    why: Counter[str] = Counter()
    status: Counter[str] = Counter()
    nodes = 0
    kept = 0
    for line in Path(lines_file).read_text().splitlines():
        ms, _name, cause, st, _wall, visited, _slices = line.split()
        if not start <= int(ms) <= end:
            continue
        if st == "kept":
            kept += 1
            continue
        why[cause] += 1
        status[st] += 1
        nodes += int(visited)
    searches = sum(why.values())
    out = {
        "searches": searches,
        "searches_per_body_minute": round(searches / body_minutes, 2),
        "by_cause": dict(why.most_common()),
        "block_update_searches_per_body_minute": round(why["block_updated"] / body_minutes, 2),
        "paths_kept_per_body_minute": round(kept / body_minutes, 2),
        "new_goal_searches_per_body_minute": round(why["goal_updated"] / body_minutes, 2),
        "by_status": dict(status.most_common()),
        "astar_nodes_per_body_minute": round(nodes / body_minutes, 1),
        "body_minutes": round(body_minutes, 1),
        "provenance": {**prov, "source": [lines_file, village_file]},
    }
    Path(out_file).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
