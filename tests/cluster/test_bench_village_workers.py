"""``piano bench village --workers N [--cluster ray[...]]``: the bench's village on workers
through ``piano run``'s path (the coordinator and its launchers), its arguments, and one
short real run over two worker processes and two embedded world shards."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.app.cli import bench_village
from agent_runtime.app.cli.bench_village_workers import (
    body_events,
    body_reasons,
    body_stalls,
    server_stalls,
)
from agent_runtime.app.launchers import ClusterSpec


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    bench_village.add_parser(sub)
    return parser.parse_args(["village", *argv])


def test_one_worker_without_a_cluster_is_the_one_process_village() -> None:
    args = parse("--agents", "4")
    assert bench_village.where(args) is None
    assert args.workers == 1


def test_a_cluster_means_at_least_two_workers_as_piano_run_does() -> None:
    args = parse("--cluster", "ray")
    assert bench_village.where(args) == ClusterSpec("ray")
    assert args.workers == 2
    args = parse("--cluster", "ray:127.0.0.1:6379", "--workers", "3")
    assert bench_village.where(args) == ClusterSpec("ray", "127.0.0.1:6379")
    assert args.workers == 3


@pytest.mark.parametrize(
    "argv",
    [
        ("--cluster", "spark"),
        ("--ray-nodes", "2"),  # a local Ray's nodes without a local Ray
        ("--cluster", "ray:auto", "--ray-nodes", "2"),  # an existing cluster has its nodes
        ("--workers", "0"),
    ],
)
def test_wrong_arguments_are_one_error_line_and_status_2(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench_village.run(parse("--agents", "4", *argv)) == 2
    assert "error" in json.loads(capsys.readouterr().out)


def test_crossing_shards_needs_the_one_process_village(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_village.run(parse("--workers", "2", "--cross", "1")) == 2
    assert "--cross" in json.loads(capsys.readouterr().out)["error"]


def test_kicks_are_the_bodies_records_of_that_kind_within_the_window() -> None:
    records = [
        {"t": 10.0, "type": "body_event", "kind": "kicked"},
        {"t": 20.0, "type": "body_event", "kind": "kicked"},
        {"t": 20.5, "type": "body_event", "kind": "disconnected"},
        {"t": 21.0, "type": "decision", "kind": "kicked"},
        {"t": 40.0, "type": "body_event", "kind": "kicked"},
    ]
    assert body_events(records, "kicked", 15.0, 30.0) == 1
    assert body_events(records, "disconnected", 15.0, 30.0) == 1
    assert body_events(records, "kicked", 0.0, float("inf")) == 3


def test_kick_reasons_are_counted_by_the_server_s_message_most_first() -> None:
    def kicked(t: float, reason: str) -> dict[str, Any]:
        return {"t": t, "type": "body_event", "kind": "kicked", "data": {"reason": reason}}

    records = [
        kicked(10.0, '{"text":"KeepAliveTimeout"}'),
        kicked(11.0, "You are already connected"),
        kicked(12.0, "You are already connected"),
        kicked(50.0, "Server stopped"),
        {"t": 12.5, "type": "body_event", "kind": "kicked"},
        {"t": 13.0, "type": "body_event", "kind": "disconnected", "data": {"reason": "x"}},
    ]
    got = body_reasons(records, "kicked", 0.0, 40.0)
    assert list(got.items()) == [
        ("You are already connected", 2),
        ("?", 1),
        ('{"text":"KeepAliveTimeout"}', 1),
    ]
    assert body_reasons(records, "kicked", 0.0, float("inf"))["Server stopped"] == 1


def test_the_bodies_and_the_servers_say_where_a_connection_stalled(tmp_path: Path) -> None:
    def ended(last: float, queued: int) -> dict[str, Any]:
        data = {"reason": "keepAliveError", "last_packet_s": last, "queued_kb": queued}
        return {"t": 1.0, "type": "body_event", "kind": "disconnected", "data": data}

    records = [ended(30.2, 0), ended(31.0, 12), ended(0.1, 0)]
    records.append({"t": 2.0, "type": "body_event", "kind": "disconnected", "data": {}})
    assert body_stalls(records) == {
        "count": 3, "last_packet_s_median": 30.2, "last_packet_s_max": 31.0, "queued_kb_max": 12
    }  # fmt: skip
    assert body_stalls([]) == {"count": 0}
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "server-shard0.log").write_text(
        "Nov 27 [INFO]: Wren connected\n"
        "[piano] stall: Wren timed out (KeepAliveTimeout): 1834 KB queued to it\n"
        "[piano] stall: event loop delay max 1200 ms\n"
    )
    (logs / "server-shard1.log").write_text("[piano] stall: Ada timed out (KeepAliveTimeout)\n")
    got = server_stalls(tmp_path, keep=2)
    assert got["count"] == 3
    assert got["first"] == [
        "server-shard0: Wren timed out (KeepAliveTimeout): 1834 KB queued to it",
        "server-shard0: event loop delay max 1200 ms",
    ]


@pytest.mark.services
@pytest.mark.minecraft
@pytest.mark.timeout(240)
async def test_a_short_village_on_two_worker_processes_reports_the_workers_figures(
    tmp_path: Path,
) -> None:
    out = tmp_path / "result.json"
    argv = [
        sys.executable, "-m", "agent_runtime.app.cli.main", "bench", "village",
        "--agents", "4", "--shards", "2", "--duration", "20", "--workers", "2",
        "--json-out", str(out),
    ]  # fmt: skip
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        async with asyncio.timeout(200):
            stdout, stderr = await proc.communicate()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, stderr.decode()[-2000:]
    got: dict[str, Any] = json.loads(stdout)
    assert json.loads(out.read_text())["provenance"]["commit"]
    assert got["launcher"] == "process" and got["workers"] == 2 and got["cluster"] is None
    assert got["agents"] == 4 and sum(got["bots_per_shard"].values()) == 4
    assert len(got["bots_per_shard"]) == 2
    assert got["decisions"] > 0 and got["decisions_per_agent_minute"] > 0
    assert set(got["sched_lag_ms"]) == {"p50", "p90", "p99"}
    assert all(isinstance(v, float) for v in got["sched_lag_ms"].values())
    assert len(got["sched_lag_ms_per_worker"]) == 2
    assert got["measured_seconds"] >= 20
    # this process, 2 workers, 2 shard servers, Redis, the broker, the bodies' hosts
    assert got["all_processes"]["processes"] >= 7 and got["all_processes"]["cpu_percent"] > 0
    for zero in ("kicks", "unresponsive_agents_end", "unresponsive_agents_peak", "errors",
                 "worker_restarts", "server_restarts"):  # fmt: skip
        assert got[zero] == 0, (zero, got)
