"""``piano bench hostile``: the hostile-client suite at every supported version.

For each version a fresh embedded server (temporary world) is started and every cheat of
the catalogue (``bots/hostile/cheats``: raw-packet clients doing what a modified game
client can) runs against it back to back; each says, from the server's own state, whether
it was refused. Prints one JSON object (``--json-out FILE`` also writes it, with its
provenance): per cheat what it does, what vanilla does, and per version its result.
``render_hostile`` makes the table of bots/README.md from such a file (``piano docs``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_runtime.app.bench_output import Measurement, add_json_out, emit, measured_on
from agent_runtime.app.doc_figures import markdown_table
from agent_runtime.config.models import SUPPORTED_VERSIONS


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "hostile",
        help="cheating raw-packet clients against the embedded server, every version",
        description=__doc__,
    )
    p.add_argument(
        "--versions",
        nargs="+",
        default=list(SUPPORTED_VERSIONS),
        choices=list(SUPPORTED_VERSIONS),
        help="Minecraft versions (default: every supported one)",
    )
    p.add_argument("--cheats", nargs="+", help="cheat ids (default: the whole catalogue)")
    p.add_argument("--per-cheat-timeout", type=float, default=60.0, help="seconds per cheat")
    add_json_out(p)


async def _one_version(
    version: str, cheats: Sequence[str] | None, per_cheat: float
) -> list[dict[str, Any]]:
    from bots.hostile import run_cheats
    from bots.server_host import EmbeddedServer
    from bots.server_options import ServerOptions

    with tempfile.TemporaryDirectory(prefix=f"piano-bench-hostile-{version}-") as tmp:
        server = EmbeddedServer(
            Path(tmp) / "world", ServerOptions(version=version), log_path=Path(tmp) / "server.log"
        )
        async with server:
            results = await run_cheats(server, cheats, per_cheat_timeout=per_cheat)
    return [r.to_json() for r in results]


async def _bench(args: argparse.Namespace) -> dict[str, Any]:
    cheats: dict[str, dict[str, Any]] = {}
    for version in args.versions:
        for r in await _one_version(version, args.cheats, args.per_cheat_timeout):
            entry = cheats.setdefault(
                r["id"], {"id": r["id"], "what": r["what"], "vanilla": r["vanilla"], "results": {}}
            )
            entry["results"][version] = {
                k: r[k] for k in ("refused", "skipped", "error", "detail", "ms")
            }
    totals = {
        v: {
            "cheats": sum(1 for c in cheats.values() if not c["results"][v]["skipped"]),
            "refused": sum(1 for c in cheats.values() if c["results"][v]["refused"] is True),
        }
        for v in args.versions
    }
    return {
        "versions": args.versions,
        "totals": totals,
        "cheats": sorted(cheats.values(), key=_key),
    }


def _key(c: Mapping[str, Any]) -> str:
    return str(c["id"])


def run(args: argparse.Namespace) -> int:
    since = Measurement()
    result = asyncio.run(_bench(args))
    emit(result, args, since)
    return 0 if all(t["cheats"] == t["refused"] for t in result["totals"].values()) else 1


def _cell(r: Mapping[str, Any] | None) -> str:
    if r is None:
        return "not run"
    if r.get("skipped"):
        return "n/a"
    if r.get("error"):
        return "**failed to run**"
    return "refused" if r.get("refused") else "**accepted**"


def _text(s: object) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_hostile(source: Path, options: Mapping[str, str]) -> str:
    """The table "each cheat, what vanilla does, what our server does, per version"."""
    data = json.loads(source.read_text())
    versions = [str(v) for v in data["versions"]]
    head = "| cheat | what the client does | vanilla | " + " | ".join(versions) + " |"
    rows = [
        f"| `{c['id']}` | {_text(c['what'])} | {_text(c['vanilla'])} | "
        + " | ".join(_cell(c["results"].get(v)) for v in versions)
        + " |"
        for c in data["cheats"]
    ]
    totals = data["totals"]
    on = measured_on(data)
    summary = ", ".join(
        f"{v}: {totals[v]['refused']} of {totals[v]['cheats']} refused" for v in versions
    )
    return (
        markdown_table(head, rows)
        + f"\n{summary} (measured {on.when} UTC, commit {on.commit}, `{source.name}`).\n"
    )
