"""A Ray cluster of several nodes on this machine, on 127.0.0.1 (benchmarks: ``piano bench
village --cluster ray --ray-nodes N``), as the cluster tests build theirs.

Each node is its own raylet and object store (``ray.cluster_utils.Cluster``), so actors
spread over nodes as they would over machines, while every process shares this machine's
cores. Ray turns a loopback address given to ``ray.init`` into the machine's own address
unless clusters are off for this platform; the switch is set for the life of the cluster
(this process only) and put back after.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import ray
from ray import cluster_utils
from ray._private import ray_constants

from agent_runtime.app.launchers import ClusterSpec
from agent_runtime.app.launchers.ray_settings import head_args, node_args

__all__ = ["local_ray_cluster"]

log = logging.getLogger(__name__)


@contextlib.contextmanager
def local_ray_cluster(nodes: int, cpus_per_node: int = 2) -> Iterator[ClusterSpec]:
    """Start ``nodes`` Ray nodes on 127.0.0.1 (``cpus_per_node`` logical CPUs each), yield
    the ``--cluster`` that joins them, and shut every node down after."""
    if nodes < 1:
        raise ValueError("a cluster needs at least one node")
    saved = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    loopback: dict[str, Any] = {"num_cpus": cpus_per_node, "node_ip_address": "127.0.0.1"}
    # only what a run needs beside its actors (no dashboard unless asked, no log monitor, no
    # autoscaler, no prestarted workers, workers at niceness 0): ray_settings.py
    cluster = cluster_utils.Cluster(
        initialize_head=True, head_node_args={**loopback, **head_args()}
    )
    try:
        for _ in range(nodes - 1):
            cluster.add_node(**loopback, **node_args())
        cluster.wait_for_nodes(timeout=60)
        log.info("local Ray cluster of %d nodes at %s", nodes, cluster.address)
        yield ClusterSpec("ray", cluster.address)
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()  # type: ignore[no-untyped-call]
        ray_constants.ENABLE_RAY_CLUSTER = saved
