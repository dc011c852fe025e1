"""``piano run --model M --base-url U``: the flags replace the file's model and endpoint, and the
running village's requests reach that endpoint asking for that model (the shipped local-model
file against the fake OpenAI-compatible server, no world)."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import pytest

from agent_runtime.app.cli.cmd_run import apply_cli
from agent_runtime.app.cli.main import build_parser
from agent_runtime.config.loader import load_config
from agent_runtime.llm import FakeOpenAIServer, RecordedRequest
from tests.core.helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]
LOCAL = ROOT / "configs/village_local_llm.yaml"
SMALL = ROOT / "configs/village_small.yaml"


def _applied(file: Path, *flags: str) -> tuple[str, str | None, str]:
    args = build_parser().parse_args(["run", str(file), *flags])
    llm = apply_cli(load_config(file), args, str(file)).llm
    return llm.model, llm.base_url, llm.provider


def test_model_and_base_url_replace_the_files_and_imply_openai() -> None:
    assert _applied(LOCAL) == ("gemma3-270m", "http://127.0.0.1:8765/v1", "openai")
    assert _applied(LOCAL, "--model", "qwen", "--base-url", "http://127.0.0.1:9/v1") == (
        "qwen", "http://127.0.0.1:9/v1", "openai",
    )  # fmt: skip
    # the heuristic village on a model: the flags switch its provider
    assert _applied(SMALL, "--model", "llama3.2")[1:] == (None, "openai")
    # unless --llm says otherwise
    assert _applied(SMALL, "--model", "llama3.2", "--llm", "heuristic")[2] == "heuristic"


def _asked_for(req: RecordedRequest) -> str | None:
    model = req.body.get("model") if isinstance(req.body, dict) else None
    return model if isinstance(model, str) else None


@pytest.mark.services
@pytest.mark.timeout(120)
async def test_the_running_village_asks_the_endpoint_and_model_the_flags_name(
    tmp_path: Path,
) -> None:
    async with FakeOpenAIServer(models=("flag-model",)) as server:  # answers 500: heuristic then
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "agent_runtime.app.cli.main", "run", str(LOCAL),
            "--world", "none", "--duration", "60", "--no-web", "--quiet",
            "--out", str(tmp_path), "--model", "flag-model", "--base-url", server.base_url,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            await wait_until(
                lambda: bool(server.chat_requests()) or proc.returncode is not None,
                limit=90,
                what="a chat request at the --base-url endpoint",
            )
            assert proc.returncode is None, "piano run ended before asking the endpoint"
            assert {_asked_for(r) for r in server.chat_requests()} == {"flag-model"}
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            async with asyncio.timeout(60):
                _, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()[-2000:]
