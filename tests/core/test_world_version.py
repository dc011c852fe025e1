"""The Minecraft version of an external world from the server's status ping (issue 34): a
``world.version`` the file sets must be the server's (one line naming the file, the field and
the server's version; exit 2), an unset one becomes the server's; ``piano join`` speaks the
server's; ``piano server --version`` refuses a version minecraft-data does not know.

The server here is a fake: a loopback socket that answers the status ping as a Minecraft
server does, with the version it is given (tests/server/test_server_version_cli.py pings the
real embedded server)."""

from __future__ import annotations

import argparse
import json
import socket
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_runtime.app.cli import cmd_join, world_version
from agent_runtime.app.cli.cmd_run import apply_cli
from agent_runtime.app.cli.main import main
from agent_runtime.app.world_setup import WorldError
from agent_runtime.config import models
from agent_runtime.config.loader import load_config
from bots import status_ping
from bots.status_ping import served_version


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _read_varint(sock: socket.socket) -> int:
    result = 0
    for i in range(5):
        byte = sock.recv(1)[0]
        result |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return result
    raise ValueError("bad varint")


class FakeServer:
    """Answers every status ping on a loopback port with ``version`` (name and protocol)."""

    def __init__(self, name: str, protocol: int) -> None:
        status = json.dumps({"version": {"name": name, "protocol": protocol}}).encode()
        body = _varint(0) + _varint(len(status)) + status
        answer = _varint(len(body)) + body
        pings: list[int] = []
        self.pings = pings

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                sock: socket.socket = self.request
                sock.settimeout(5)
                for _ in range(2):  # the handshake, then the status request
                    size = _read_varint(sock)
                    while size:
                        size -= len(sock.recv(size))
                pings.append(1)
                sock.sendall(answer)

        self._server = socketserver.TCPServer(("127.0.0.1", 0), Handler)
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def server_1_21_4() -> Iterator[FakeServer]:
    with FakeServer("1.21.4", 769) as server:
        yield server


@pytest.fixture
def server_1_12_2() -> Iterator[FakeServer]:
    """A version minecraft-data and mineflayer know and our bodies do not speak (older than
    every supported version)."""
    assert "1.12.2" not in models.external_versions()
    assert "1.12.2" not in status_ping.PROTOCOLS
    with FakeServer("1.12.2", 340) as server:
        yield server


def village(tmp_path: Path, world: str, name: str = "village.yaml") -> Path:
    path = tmp_path / name
    path.write_text(f"world: {world}\nagents: [{{name: Ann}}]\n")
    return path


def run_args(port: int) -> argparse.Namespace:
    return argparse.Namespace(
        duration=None, llm=None, out=None, world=f"127.0.0.1:{port}", agents=None
    )


def test_a_status_answer_names_the_version_the_bodies_speak() -> None:
    def version(name: str, protocol: object) -> str | None:
        return served_version({"version": {"name": name, "protocol": protocol}}).version

    assert version("1.16.5", 754) == "1.16.5"
    assert version("1.16.4", 754) == "1.16.5"  # the same protocol: the bodies speak it
    assert version("Paper 1.21.4", 769) == "1.21.4"
    assert version("1.20.3", 765) == "1.20.4"  # the same protocol as 1.20.4: spoken
    assert version("1.20", 763) == "1.20"  # not spoken: the release the label names
    assert version("Velocity", 765) == "1.20.4"  # no release named: the newest of its protocol
    assert version("1.21", 767) == "1.21"
    assert version("snapshot", 1) is None
    assert version("1.16.5", "754") is None
    assert served_version({"description": "no version"}).version is None
    shown = served_version({"version": {"name": "Paper 1.21.4", "protocol": 769}}).shown
    assert shown == "Minecraft 1.21.4 (protocol 769)"


def test_a_version_the_file_sets_must_be_the_servers(
    tmp_path: Path, server_1_21_4: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line naming the file, the field and the server's version; exit 2, before any
    service, world or body is started."""
    path = village(tmp_path, "{kind: external, version: 1.16.5}")
    out = tmp_path / "runs"
    code = main(["run", str(path), "--world", f"127.0.0.1:{server_1_21_4.port}", "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    line = err[0]
    assert line.startswith(f"piano run: {path}: world.version is 1.16.5 but"), line
    assert "Minecraft 1.21.4 (protocol 769)" in line, line
    assert server_1_21_4.pings == [1]
    assert not out.exists()  # nothing started


def test_an_unset_version_the_bodies_do_not_speak_is_one_line(
    tmp_path: Path, server_1_12_2: FakeServer
) -> None:
    path = village(tmp_path, "{kind: external}")
    cfg = load_config(path)
    assert not world_version.version_set_in(cfg)
    cfg = apply_cli(cfg, run_args(server_1_12_2.port), str(path))
    with pytest.raises(WorldError) as err:
        world_version.resolve_external_version(cfg, path, version_set=False)
    assert str(err.value).startswith(f"{path}: world.version is unset and the Minecraft server")
    assert "Minecraft 1.12.2 (protocol 340), which our bodies do not speak" in str(err.value)
    assert "our bodies' code starts at 1.16.5" in str(err.value)


@pytest.mark.parametrize(("name", "protocol"), [("1.21.8", 772), ("1.21.9", 773), ("1.19.4", 762)])
def test_an_external_server_at_a_version_mineflayer_speaks_is_joined(
    tmp_path: Path, name: str, protocol: int
) -> None:
    """Not refused before any body joins: the bodies take the server's version (set in the file
    it must be the server's); the embedded world refuses it, naming where it is spoken."""
    assert name in models.external_versions() and name not in models.SUPPORTED_VERSIONS
    unset = load_config(village(tmp_path, "{kind: external}"))
    set_ = load_config(village(tmp_path, f"{{kind: external, version: '{name}'}}", "set.yaml"))
    with FakeServer(name, protocol) as server:
        cfg = apply_cli(unset, run_args(server.port), "v.yaml")
        assert (
            world_version.resolve_external_version(cfg, "v.yaml", version_set=False).world.version
            == name
        )
        cfg = apply_cli(set_, run_args(server.port), "set.yaml")
        assert (
            world_version.resolve_external_version(cfg, "set.yaml", version_set=True).world.version
            == name
        )
    with pytest.raises(ValueError, match=rf"Minecraft {name} is not supported.*external server"):
        models.WorldSettings(kind="embedded", version=name)


def test_an_unset_version_becomes_the_servers(tmp_path: Path) -> None:
    """The file leaves world.version unset (its model defaults it to DEFAULT_VERSION): the bodies log
    in at the server's version; the file setting 1.16.5 keeps it (and is refused)."""
    unset = load_config(village(tmp_path, "{kind: external}"))
    set_ = load_config(village(tmp_path, "{kind: external, version: 1.16.5}", "set.yaml"))
    assert not world_version.version_set_in(unset) and world_version.version_set_in(set_)
    with FakeServer("Paper 1.20.4", 765) as server:
        args = run_args(server.port)
        cfg = apply_cli(unset, args, "v.yaml")  # re-validated: every field is set after it
        cfg = world_version.resolve_external_version(cfg, "v.yaml", version_set=False)
        assert cfg.world.version == "1.20.4"
        cfg = apply_cli(set_, args, "v.yaml")
        with pytest.raises(WorldError, match=r"world\.version is 1\.16\.5 but"):
            world_version.resolve_external_version(cfg, "v.yaml", version_set=True)


def test_an_unreachable_server_is_left_to_the_villages_own_check(tmp_path: Path) -> None:
    """(It writes the run folder first and says "cannot reach": tests/core/test_startup_errors.)"""
    with FakeServer("1.21.4", 769) as server:
        port = server.port
    cfg = apply_cli(load_config(village(tmp_path, "{kind: external}")), run_args(port), "v.yaml")
    assert world_version.resolve_external_version(cfg, "v.yaml", version_set=False) is cfg


async def test_join_speaks_the_servers_version(server_1_21_4: FakeServer) -> None:
    port = server_1_21_4.port
    assert await cmd_join.join_version("127.0.0.1", port, None) == "1.21.4"
    assert await cmd_join.join_version("127.0.0.1", port, "1.21.4") == "1.21.4"
    with pytest.raises(WorldError, match=r"--version 1\.16\.5 but .* runs Minecraft 1\.21\.4"):
        await cmd_join.join_version("127.0.0.1", port, "1.16.5")
    with pytest.raises(WorldError, match=r"--version 9\.9: minecraft-data knows no"):
        await cmd_join.join_version("127.0.0.1", port, "9.9")


def test_join_with_another_version_than_the_servers_is_one_line_and_exit_2(
    server_1_21_4: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server = f"127.0.0.1:{server_1_21_4.port}"
    assert main(["join", "Ann", "--server", server, "--version", "1.16.5"]) == 2
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("piano join: --version 1.16.5 but"), out


def test_server_refuses_a_version_minecraft_data_does_not_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = tmp_path / "world"
    assert main(["server", "--version", "1.99", "--world-dir", str(world)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["piano server: --version 1.99: minecraft-data knows no Minecraft 1.99"]
    assert not world.exists()


def test_a_worker_checks_the_external_servers_version_too(
    tmp_path: Path, server_1_21_4: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker of a run on an external server reads the same version as its coordinator; on
    the coordinator's embedded world (admin URL given) it pings nothing."""
    from agent_runtime.app.cli.cmd_worker import worker_config
    from agent_runtime.app.workers import ADMIN_URL_ENV

    monkeypatch.delenv(ADMIN_URL_ENV, raising=False)
    path = village(tmp_path, "{kind: none, version: 1.16.5}")
    args = argparse.Namespace(
        config=str(path), llm=None, world=f"127.0.0.1:{server_1_21_4.port}", agents=None,
        redis="redis://127.0.0.1:1/0", mqtt="mqtt://127.0.0.1:2", duration=None, admin_url=None,
    )  # fmt: skip
    with pytest.raises(WorldError, match=r"world\.version is 1\.16\.5 but .* Minecraft 1\.21\.4"):
        worker_config(args)
    assert server_1_21_4.pings == [1]
    args.admin_url = "http://piano:token@127.0.0.1:1"
    assert worker_config(args).world.version == "1.16.5"
    assert server_1_21_4.pings == [1]
