"""`piano llm check` against the fake OpenAI server (the real server: test_real_server.py)."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest

from agent_runtime.app.cli.main import main as piano
from agent_runtime.llm import FakeOpenAIServer, FakeReply, RecordedRequest
from agent_runtime.llm.check import CheckReport, check_endpoint, recommend, render_table

from .test_negotiation import LLAMA_CPP_500


def llama_like(req: RecordedRequest) -> FakeReply:
    text = json.dumps(req.messages)
    usage = (300, 1) if req.body.get("max_tokens") == 1 else (40, 60)
    if req.body.get("max_tokens") == 1:
        return FakeReply.text("Note", usage=usage)
    if "whole numbers" in text:
        return FakeReply.json({"numbers": list(range(1, 21))}, usage=usage)
    return FakeReply.json({"answer": 5}, usage=(30, 6))


def _serve(server: FakeOpenAIServer) -> None:
    server.default = llama_like
    server.models = ["gemma3-270m"]
    server.reject_response_formats.add("json_schema")
    server.reject_status = 500
    server.reject_message = LLAMA_CPP_500


async def test_check_finds_the_working_mode_and_speeds() -> None:
    async with FakeOpenAIServer(delay_s=0.3) as server:
        _serve(server)
        report = await check_endpoint(server.base_url, "gemma3-270m", seed=1)
    assert report.ok and report.reachable and report.model_listed
    assert [(m.mode, m.status) for m in report.modes] == [
        ("json_schema", "rejected"),
        ("json_object_schema", "works"),
        ("json_object", "works"),
        ("prompt", "works"),
    ]
    assert report.working_mode == "json_object_schema"
    assert report.prompt_tokens_per_s and report.generation_tokens_per_s
    assert report.parallel_speedup and report.parallel_speedup > 1.4  # the fake serves 2 at once
    assert report.recommendation["structured_output"] == "json_object_schema"
    assert report.recommendation["concurrency"] >= 2
    table = render_table(report)
    assert "working mode             json_object_schema" in table
    assert "\n" not in report.modes[0].detail  # one line per mode


async def test_check_sees_a_server_that_serves_one_request_at_a_time() -> None:
    lock = asyncio.Lock()

    async def one_at_a_time(req: RecordedRequest) -> FakeReply:
        async with lock:
            await asyncio.sleep(0.2)  # emulating a slow model, not synchronising
        return llama_like(req)

    async with FakeOpenAIServer() as server:
        _serve(server)
        server.default = one_at_a_time
        report = await check_endpoint(server.base_url, "gemma3-270m", seed=1)
    assert report.parallel_speedup is not None and report.parallel_speedup < 1.2
    assert report.recommendation["concurrency"] == 1


def test_cli_prints_json_and_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    async def serve(argv: list[str]) -> int:
        async with FakeOpenAIServer() as server:
            _serve(server)
            args = [*argv, "--base-url", server.base_url, "--model", "gemma3-270m"]
            return await asyncio.to_thread(piano, args)

    assert asyncio.run(serve(["llm", "check", "--json"])) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["working_mode"] == "json_object_schema" and report["ok"] is True
    assert asyncio.run(serve(["llm", "check"])) == 0
    assert "recommended" in capsys.readouterr().out


def test_unreachable_endpoint_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = piano(["llm", "check", "--base-url", f"http://127.0.0.1:{port}/v1", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and not report["reachable"]
    assert "not reachable" in report["recommendation"]["summary"]


def test_recommendation_follows_the_speed() -> None:
    def rec(call_s: float, speedup: float) -> dict[str, object]:
        report = CheckReport("u", "m", reachable=True, working_mode="json_object_schema")
        report.controller_call_s, report.parallel_speedup = call_s, speedup
        return recommend(report)

    assert rec(2, 3.0)["concurrency"] == 4
    assert rec(2, 1.0)["modules_on_heuristic"] == []
    assert rec(8, 1.0)["modules_on_heuristic"] == ["reflection", "memory"]
    assert rec(15, 1.0)["modules_on_model"] == ["cognitive_controller", "talking"]
    assert rec(40, 1.0)["modules_on_model"] == []


def test_cli_reads_the_village_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async def serve() -> int:
        async with FakeOpenAIServer() as server:
            _serve(server)
            village = tmp_path / "village.yaml"
            village.write_text(
                "llm:\n"
                "  provider: openai\n"
                f"  base_url: {server.base_url}\n"
                "  model: gemma3-270m\n"
                "  api_key_env: null\n"
                "agents:\n"
                "  - name: Ann\n",
                encoding="utf-8",
            )
            return await asyncio.to_thread(piano, ["llm", "check", str(village), "--json"])

    assert asyncio.run(serve()) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["model"], report["working_mode"]) == ("gemma3-270m", "json_object_schema")
