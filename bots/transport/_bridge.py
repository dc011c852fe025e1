"""The process-wide JSPyBridge Node process: started lazily, shared, terminated explicitly.

JSPyBridge (PyPI ``javascript``) keeps one Node process per interpreter in module
globals and starts it *when the package is imported*. This module owns that
lifecycle: :func:`acquire` imports (or re-initialises) the bridge with our Node
22 binary, :func:`release` terminates it when the last user is gone, so that a
test suite can start and stop transports many times in one interpreter.

All functions here block; call them from a worker thread, never from the event
loop.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import logging
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any

from bots.node import node_executable, require_node_modules

logger = logging.getLogger(__name__)

__all__ = ["BridgeHandle", "acquire", "is_alive", "release"]

_lock = threading.Lock()
_refs = 0
_handle: BridgeHandle | None = None


@dataclass(frozen=True, slots=True)
class BridgeHandle:
    """The root JS proxy (``globalThis`` scope of bridge.js) and the Node process id."""

    root: Any
    pid: int


def _javascript() -> Any:
    """Import JSPyBridge (this starts Node) or re-initialise it after a terminate."""
    if "javascript" not in sys.modules:
        # connection.py reads NODE_BIN once, at import: point it at the pinned Node 22.
        os.environ["NODE_BIN"] = str(node_executable())
        # With a replaced sys.stdout (pytest, IDEs) JSPyBridge pipes Node's stdout
        # into a thread that busy-prints empty lines once Node has exited. Our
        # Node code never writes to stdout, so let it inherit the real one.
        replaced, real = sys.stdout, sys.__stdout__
        if real is not None:
            sys.stdout = real
        try:
            return importlib.import_module("javascript")
        finally:
            sys.stdout = replaced
    js = sys.modules["javascript"]
    js.connection.notebook = False
    js.connection.stdout = subprocess.DEVNULL
    js.init()
    return js


def _start() -> BridgeHandle:
    require_node_modules()
    js = _javascript()
    proc = js.connection.proc
    root = js.config.global_jsi
    if proc is None or root is None:
        raise RuntimeError("JSPyBridge did not start a Node process")
    logger.info("JSPyBridge Node process started (pid %d)", proc.pid)
    return BridgeHandle(root=root, pid=proc.pid)


def _terminate() -> None:
    """Stop the Node process and the bridge's threads so that a later start is clean."""
    js = sys.modules.get("javascript")
    if js is None:
        return
    config, connection = js.config, js.connection
    loop = config.event_loop
    loop_thread = config.event_thread
    proc: subprocess.Popen[bytes] | None = connection.proc
    com_thread = connection.com_thread
    if loop is not None:
        loop.active = False
        with contextlib.suppress(Exception):
            atexit.unregister(loop.on_exit)
    connection.stop()  # SIGTERM to Node; resets config.event_loop / global_jsi
    if proc is not None:
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            logger.warning("JSPyBridge Node (pid %d) ignored SIGTERM; killing it", proc.pid)
            proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=2)
    if loop is not None:
        loop.queue.put("exit")  # wake the bridge's event thread so that it sees active=False
        executor = loop.callbackExecutor
        executor.running = False
        executor.jobs.put([None, None, lambda _args: None, None])  # wake the callback thread
    for thread in (loop_thread, com_thread):
        if thread is not None and thread.is_alive():
            thread.join(timeout=3)
    # Anything queued for the dead process must not be replayed into the next one.
    connection.sendQ.clear()
    connection.com_items = []
    logger.info("JSPyBridge Node process stopped")


def is_alive(handle: BridgeHandle) -> bool:
    """Whether the Node process of ``handle`` is still running (cheap; no bridge call)."""
    js = sys.modules.get("javascript")
    proc = js.connection.proc if js is not None else None
    return bool(proc is not None and proc.pid == handle.pid and proc.poll() is None)


def acquire() -> BridgeHandle:
    """Return the running bridge, starting it if needed; pair with :func:`release`."""
    global _refs, _handle
    with _lock:
        js = sys.modules.get("javascript")
        alive = (
            _handle is not None
            and js is not None
            and js.connection.proc is not None
            and js.connection.proc.poll() is None
        )
        if not alive:
            if _handle is not None:
                logger.warning("JSPyBridge Node process died; restarting it")
                _terminate()
            _handle = _start()
        _refs += 1
        assert _handle is not None
        return _handle


def release() -> None:
    """Drop one reference; the last one terminates the Node process."""
    global _refs, _handle
    with _lock:
        _refs = max(0, _refs - 1)
        if _refs == 0 and _handle is not None:
            _handle = None
            _terminate()
