"""What a Ray started for a run (``--cluster ray`` without an address, or ``--ray-nodes``)
runs beside our actors: only what the run needs.

A local 2-node Ray (Ray 2.60.0) starts, before any actor: the GCS, the autoscaler's monitor,
the dashboard's API server and the log monitor on the head; on each node a raylet, a
dashboard agent (it also exports metrics), a runtime-env agent and prestarted idle workers.
Measured idle on a 2-core machine over 30 s (psutil over the cluster's processes, while a
test run loaded the machine): 12 processes, 3.1% of one core,
836 MB resident, of which the 2 idle workers 158 MB, the dashboard's API server 89 MB, the
autoscaler's monitor 81 MB and the log monitor 78 MB (0.6% of a core); with these settings
8 processes (the dashboard's API server, agents and runtime-env agents stay: Ray starts
them always).

Turned off here (the figures each setting saves while the bench runs are in
agent_runtime/app/BENCH.md, "a village with bodies on Ray actors"):

- ``include_dashboard=False``: the API server starts without the dashboard's modules;
  ``PIANO_RAY_DASHBOARD=1`` turns it back on (http://127.0.0.1:8265);
- ``include_log_monitor=False``: it copies the actors' output to the driver, which a run does
  not take (``log_to_driver=False``); our workers and servers write to the run folder;
- ``no_monitor=True``: the autoscaler's monitor has nothing to scale on a fixed local cluster;
- ``enable_worker_prestart`` / ``prestart_worker_first_driver`` off: each node otherwise
  starts idle Python workers up front, and every actor of ours gets a worker of its own;
- ``enable_metrics_collection`` off: the metrics the dashboard agents export are read by no
  one in a run;
- ``worker_niceness=0``: Ray starts its workers at niceness 15, and the actors' children (a
  shard's Minecraft server, a worker's body hosts) inherit it: on a saturated machine a
  server at 15 loses every contest for a core and its players time out.

A cluster of one's own (``--cluster ray:ADDRESS``) is configured by whoever started it.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["DASHBOARD_ENV", "SYSTEM_CONFIG", "dashboard_wanted", "head_args", "node_args"]

#: set to 1 to have a Ray started for the run serve its dashboard
DASHBOARD_ENV = "PIANO_RAY_DASHBOARD"

#: Ray's own config (set on the head, taken by every node from the GCS)
SYSTEM_CONFIG: dict[str, Any] = {
    "worker_niceness": 0,
    "enable_worker_prestart": False,
    "prestart_worker_first_driver": False,
    "enable_metrics_collection": False,
}


def dashboard_wanted() -> bool:
    return os.environ.get(DASHBOARD_ENV, "") not in ("", "0")


def head_args() -> dict[str, Any]:
    """``ray.cluster_utils.Cluster``'s head node arguments (``RayParams``)."""
    return {
        **node_args(),
        "include_dashboard": dashboard_wanted(),
        "no_monitor": True,
        "_system_config": dict(SYSTEM_CONFIG),
    }


def node_args() -> dict[str, Any]:
    """Any node's arguments (``RayParams``)."""
    return {"include_log_monitor": False}
