"""``piano server``: run the embedded Minecraft server on a generated village, in the foreground.

Prints the address a Minecraft client of ``--version`` (default {default}, as
``world.version``'s) can join, the admin API URL and the village's named places; Ctrl-C (or
SIGTERM) stops the server cleanly (players and world saved). Starting again on the same
``--world-dir`` continues the world. Any version minecraft-data knows is served; a village on
the embedded world runs at {supported} (bots/README.md, "Versions").

``--host 0.0.0.0`` (or this machine's address) lets players on other computers join; the
server runs in offline mode, so anyone who can reach the port can join under any name.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import signal
import socket
import sys
from pathlib import Path

from agent_runtime.config.models import DEFAULT_VERSION, SUPPORTED_VERSIONS
from agent_runtime.tasks import cancel_and_wait

#: the module's docstring with the versions filled in (``--help`` prints it)
DESCRIPTION = (__doc__ or "").format(
    default=DEFAULT_VERSION, supported=", ".join(SUPPORTED_VERSIONS)
)


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "server",
        help="run the embedded Minecraft server (generated village) in the foreground",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--port", type=int, default=25565, help="Minecraft port (default 25565; 0 = any)"
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every "
        "interface, for players on other computers)",
    )
    p.add_argument("--seed", type=int, default=0, help="world seed (default 0)")
    p.add_argument(
        "--world-dir", type=Path, default=Path("world"), help="world folder (default ./world)"
    )
    p.add_argument(
        "--admin-port", type=int, default=0, help="admin API port on 127.0.0.1 (0 = any)"
    )
    p.add_argument("--no-admin", action="store_true", help="do not start the admin API")
    p.add_argument("--max-players", type=int, default=60)
    p.add_argument("--view-distance", type=int, default=6)
    p.add_argument("--log", type=Path, default=None, help="also write the server log to this file")
    p.add_argument(
        "--version",
        default=DEFAULT_VERSION,
        help=f"the Minecraft version served (default {DEFAULT_VERSION}; tested: "
        f"{', '.join(SUPPORTED_VERSIONS)}, see bots/README.md)",
    )


async def _serve(args: argparse.Namespace) -> int:
    from bots.server_host import EmbeddedServer, EmbeddedServerError
    from bots.server_options import ServerOptions

    options = ServerOptions(
        host=args.host,
        port=args.port,
        admin_port=args.admin_port,
        admin=not args.no_admin,
        version=args.version,
        seed=args.seed,
        max_players=args.max_players,
        view_distance=args.view_distance,
    )
    log_path = args.log if args.log is not None else args.world_dir / "server.log"
    server = EmbeddedServer(args.world_dir, options, log_path=log_path)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        async with server:
            host = "localhost" if options.host in ("127.0.0.1", "0.0.0.0") else options.host
            print(
                f"Minecraft {options.version} server ready: join {host}:{server.port}", flush=True
            )
            print(reach(options.host, server.port), flush=True)
            if options.version not in SUPPORTED_VERSIONS:
                print(
                    f"note: our bodies are not tested at {options.version} yet "
                    "(bots/README.md, Versions)",
                    flush=True,
                )
            if server.admin_address:
                print(
                    f"admin API: {server.admin_address} (Authorization: Bearer <the token in "
                    f"{server.admin_token_file}>)",
                    flush=True,
                )
            print(f"world: {args.world_dir.resolve()} (seed {server.info.get('seed')})")
            for place in server.places.values():
                print(f"  {place.name:15} {place.x:5} {place.y:4} {place.z:5}  {place.description}")
            print("Ctrl-C to stop", flush=True)
            stopped = asyncio.create_task(server.wait_stopped(), name="server.wait_stopped")
            interrupted = asyncio.create_task(stop.wait(), name="server.interrupt")
            done, pending = await asyncio.wait(
                {stopped, interrupted}, return_when=asyncio.FIRST_COMPLETED
            )
            for task in pending:
                await cancel_and_wait(task)
            if stopped in done:
                print(f"server exited unexpectedly (code {stopped.result()})", file=sys.stderr)
                return 1
            print("stopping...", flush=True)
    except EmbeddedServerError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
    print("stopped", flush=True)
    return 0


def reach(host: str, port: int) -> str:
    """Who can join a server listening on ``host``: this machine only (loopback), or other
    computers too, and then at which address and with what risk."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if loopback:
        return f"listening on {host} (loopback): only this machine can join (--host 0.0.0.0: all)"
    shown = lan_address() if host in ("0.0.0.0", "::") else host
    return (
        f"listening on {host}, not loopback: other computers can join at {shown}:{port}; "
        "the server is in offline mode, so anyone who can reach this port joins under any name"
    )


def lan_address() -> str:
    """This machine's address on its default route (no packet is sent), or a placeholder."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: routing only decides the local address
            return str(s.getsockname()[0])
        except OSError:
            return "<this machine's address>"


def run(args: argparse.Namespace) -> int:
    from bots.status_ping import protocol_of

    try:
        protocol_of(args.version)  # what EmbeddedServer accepts
    except (ValueError, OSError) as err:  # OSError: minecraft-data not installed (make setup)
        print(f"piano server: --version {args.version}: {err}", file=sys.stderr)
        return 2
    return asyncio.run(_serve(args))
