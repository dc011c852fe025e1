"""``piano join NAME [--server HOST:PORT]``: a terminal client for people without the game.

It logs in as a player (offline mode) through the same mineflayer body the agents use, at the
Minecraft version the server's status ping answers (``--version`` must agree with it), prints
chat, whispers and who is nearby, and reads commands from standard input:

    hello everyone            say something in chat
    /w Ann can I have bread?  whisper to a player
    /go Ann                   walk to a player      /go 10 64 -5   walk to coordinates
    /give Ann bread 2         give (toss) items to a player
    /who                      nearby players        /inv   your inventory
    /quit                     leave
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from typing import Any

from agent_runtime.app.cli.world_version import server_version
from agent_runtime.app.world_setup import WorldError
from agent_runtime.config.models import SUPPORTED_VERSIONS
from agent_runtime.interfaces import Body, BotSpec
from agent_runtime.tasks import cancel_and_wait
from agent_runtime.world import SkillCall

HELP = __doc__.split("commands from standard input:", 1)[1] if __doc__ else ""


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("join", help="join a village as a human player from the terminal")
    p.add_argument("name", help="your player name (3-16 letters, digits, _)")
    p.add_argument(
        "--server", default="127.0.0.1:25565", help="HOST:PORT (default 127.0.0.1:25565)"
    )
    p.add_argument(
        "--version",
        default=None,
        help="the Minecraft version to speak (default: the server's, from its status ping; "
        "one the server does not speak: one line, exit 2)",
    )


def parse_command(line: str) -> SkillCall | str | None:
    """A line of input -> a skill call, a local command name ("who", "inv", "quit", "help"), or None."""
    line = line.strip()
    if not line:
        return None
    if not line.startswith("/"):
        return SkillCall(skill="chat", args={"message": line[:256]})
    parts = line[1:].split()
    cmd, args = parts[0].lower(), parts[1:]
    if cmd in ("who", "inv", "quit", "help", "exit"):
        return "quit" if cmd == "exit" else cmd
    if cmd in ("w", "tell", "msg") and len(args) >= 2:
        return SkillCall(
            skill="whisper", args={"player": args[0], "message": " ".join(args[1:])[:256]}
        )
    if cmd == "go" and len(args) == 1:
        return SkillCall(skill="go_to", args={"player": args[0]})
    if cmd == "go" and len(args) == 3 and all(re.fullmatch(r"-?\d+(\.\d+)?", a) for a in args):
        x, y, z = (float(a) for a in args)
        return SkillCall(skill="go_to", args={"x": x, "y": y, "z": z})
    if cmd == "give" and len(args) in (2, 3):
        count = int(args[2]) if len(args) == 3 and args[2].isdigit() else 1
        return SkillCall(skill="give", args={"player": args[0], "item": args[1], "count": count})
    return "help"


async def join_version(host: str, port: int, asked: str | None) -> str:
    """The version to join ``host:port`` with: the server's (its status ping), which ``asked``
    (``--version``) must agree with; raises :class:`WorldError` (one line) otherwise."""
    from bots.status_ping import protocol_of

    served = await server_version(host, port)
    if asked is not None:
        try:
            same = protocol_of(asked) == served.protocol
        except ValueError as err:
            raise WorldError(f"--version {asked}: {err}") from None
        if not same:
            raise WorldError(
                f"--version {asked} but the server at {host}:{port} runs {served.shown}: "
                "leave --version out to speak the server's"
            )
        return asked
    if served.version is None:
        raise WorldError(
            f"the server at {host}:{port} runs {served.shown}, which minecraft-data does not know"
        )
    if served.version not in SUPPORTED_VERSIONS:
        tested = ", ".join(SUPPORTED_VERSIONS)
        _print(f"note: the server runs Minecraft {served.version}; bodies are tested at {tested}")
    return served.version


def _print(text: str) -> None:
    print(text, flush=True)


async def _pump_events(body: Body) -> None:
    async for ev in body.events():
        d: dict[str, Any] = ev.data
        if ev.kind == "chat":
            _print(f"<{d.get('sender') or d.get('username')}> {d.get('message')}")
        elif ev.kind == "whisper":
            _print(f"[{d.get('sender') or d.get('username')} whispers] {d.get('message')}")
        elif ev.kind in ("player_joined", "player_left"):
            _print(f"* {d.get('player')} {'joined' if ev.kind == 'player_joined' else 'left'}")
        elif ev.kind in ("death", "kicked", "disconnected", "reconnected", "respawn"):
            _print(f"* {ev.kind} {d}")


async def _session(args: argparse.Namespace) -> int:
    from bots.transport import JSPyBridgeTransport

    host, _, port = args.server.rpartition(":")
    if not host or not port.isdigit():
        _print("--server must be HOST:PORT")
        return 2
    try:
        version = await join_version(host, int(port), args.version)
    except WorldError as err:
        _print(f"piano join: {err}")
        return 2
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with JSPyBridgeTransport() as transport:
        body = await transport.connect(
            BotSpec(name=args.name, host=host, port=int(port), version=version)
        )
        _print(
            f"joined {args.server} (Minecraft {version}) as {args.name}; type /help for commands"
        )
        events = asyncio.create_task(_pump_events(body), name="join.events")
        try:
            while True:
                raw = await reader.readline()
                if not raw:
                    break
                cmd = parse_command(raw.decode(errors="replace"))
                if cmd is None:
                    continue
                if cmd == "quit":
                    break
                if cmd == "help":
                    _print(HELP)
                elif cmd == "who":
                    obs = await body.observe()
                    _print(
                        "nearby: "
                        + (
                            ", ".join(f"{p.name} ({p.distance:.0f} m)" for p in obs.players)
                            or "nobody"
                        )
                    )
                elif cmd == "inv":
                    obs = await body.observe()
                    _print(
                        "inventory: "
                        + (", ".join(f"{k} x{v}" for k, v in obs.inventory.items()) or "empty")
                    )
                elif isinstance(cmd, SkillCall):
                    out = await body.run_skill(cmd)
                    if cmd.skill not in ("chat", "whisper") or not out.success:
                        _print(f"* {cmd.describe()}: {'done' if out.success else out.reason}")
        finally:
            await cancel_and_wait(events)
    return 0


def run(args: argparse.Namespace) -> int:
    from agent_runtime.config.models import check_minecraft_name

    try:
        check_minecraft_name(args.name)
    except ValueError as err:
        _print(f"piano join: {err}")
        return 2
    return asyncio.run(_session(args))
