"""Child process for the orphan tests: connect bodies, print the Node pids, then either
wait to be killed (``wait``) or return without closing the transport (``leave``)."""

from __future__ import annotations

import asyncio
import json
import sys

from agent_runtime.interfaces import BotSpec
from bots.transport import HostTransport, JSPyBridgeTransport, StdioTransport


async def main(port: int, per_process: int, prefix: str, mode: str, kind: str) -> None:
    cls: type[HostTransport] = StdioTransport if kind == "stdio" else JSPyBridgeTransport
    transport = cls(bots_per_process=per_process)
    await transport.__aenter__()
    for i in range(2):
        await transport.connect(BotSpec(f"{prefix}{i}", port=port))
    info = await transport.info()
    print(json.dumps({"bridge": info["pid"], "workers": info["worker_pids"]}), flush=True)
    if mode == "wait":
        await asyncio.Event().wait()  # until SIGKILL
    # mode "leave": return with live bots and an open transport; the interpreter must
    # still exit promptly and take Node with it.


if __name__ == "__main__":
    kind = sys.argv[5] if len(sys.argv) > 5 else "jspybridge"
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], kind))
