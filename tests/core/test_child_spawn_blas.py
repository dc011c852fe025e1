"""Starting a child while other threads multiply matrices does not hang.

With a ``preexec_fn`` CPython fork()s with every atfork handler, and OpenBLAS's handler
waits for its thread pool while another thread is inside a BLAS call: a village encoding
memories with numpy in worker threads hung for good in ``blas_thread_shutdown_`` while
it started a child (CI: ``piano experiment`` stuck starting its Redis). The script below
hangs at once with ``preexec_fn``; a hang in the main thread cannot be interrupted from
inside, so it runs in its own interpreter with a timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import asyncio, threading
    import numpy as np
    from agent_runtime.services.process import ChildProcess

    stop = threading.Event()

    def multiply() -> None:
        a = np.ones((256, 384), dtype=np.float32)
        b = np.ones((384, 1536), dtype=np.float32)
        while not stop.is_set():
            a @ b

    async def main() -> None:
        threads = [threading.Thread(target=multiply, daemon=True) for _ in range(2)]
        for t in threads:
            t.start()
        for i in range(60):
            child = ChildProcess(f"true{i}", ["true"])
            async with child:
                assert child.proc is not None
                await child.proc.wait()
        stop.set()
        print("started 60")

    asyncio.run(main())
    """
)


def test_children_start_while_threads_use_blas() -> None:
    # OpenBLAS with its thread pool (agent_runtime defaults to one thread, which would hide
    # the hang this test is about)
    done = _python(SCRIPT, {**os.environ, "OPENBLAS_NUM_THREADS": "4"})
    assert done.returncode == 0, done.stderr
    assert "started 60" in done.stdout


def test_numpy_runs_one_blas_thread_under_the_runtime() -> None:
    """Importing the runtime before numpy leaves OpenBLAS without a thread pool: no threads
    of its own beside the interpreter's (two or more on a multi-core machine otherwise)."""
    script = "import agent_runtime, numpy, os; print(len(os.listdir('/proc/self/task')))"
    done = _python(script, {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


def _python(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, env=env
    )
