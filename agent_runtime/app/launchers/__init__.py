"""Where a village's agent workers run: one interface, two implementations.

A :class:`Launcher` starts worker ``k`` (a ``piano worker`` command) and hands back a
:class:`WorkerHandle`; :class:`~agent_runtime.app.workers.WorkerPool` waits on the handles
and, when one ends before the run does, asks the launcher for it again
(:meth:`Launcher.restart`).

- :class:`~agent_runtime.app.launchers.process.ProcessLauncher` (the default): each worker
  is a child process of this one; a dead worker is started again by the pool's backoff.
- :class:`~agent_runtime.app.launchers.ray_launcher.RayLauncher` (``--cluster ray``): each
  worker is a Ray actor (``max_restarts``) that runs its ``piano worker`` as a child; a dead
  worker or a lost node is brought back by Ray, the pool only watches it come back. It also
  runs each embedded world shard's server as an actor (:mod:`.world_shards`), restarted by
  Ray on the same ports.

Ray is imported only by :func:`open_launcher` for ``ray`` clusters, so one machine without
``--cluster`` never needs it.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_runtime.app.launchers.handles import (
    Launcher,
    ServerHandle,
    ServerLauncher,
    WorkerHandle,
)

__all__ = [
    "CLUSTER_HELP",
    "ClusterSpec",
    "Launcher",
    "ServerHandle",
    "ServerLauncher",
    "WorkerHandle",
    "open_launcher",
    "parse_cluster",
]

CLUSTER_HELP = (
    "run the workers on a cluster engine: ray (a local Ray started for this run and shut "
    "down after) or ray://HOST:PORT / ray:auto (an existing Ray cluster); default: child "
    "processes of this one"
)


@dataclass(frozen=True)
class ClusterSpec:
    """``--cluster``: the engine and, for an existing cluster, its address."""

    engine: str  # "ray"
    address: str | None = None  # None: start a local one for this run

    def __str__(self) -> str:
        return self.engine if self.address is None else f"{self.engine}:{self.address}"


def parse_cluster(text: str) -> ClusterSpec:
    """``ray`` | ``ray://HOST:PORT`` (Ray client) | ``ray:ADDRESS`` (``auto`` or the GCS's
    HOST:PORT, as ``ray.init(address=...)`` takes it); ``ValueError`` otherwise."""
    if text == "ray":
        return ClusterSpec("ray")
    if text.startswith("ray://"):
        if len(text) > len("ray://"):
            return ClusterSpec("ray", text)
    elif text.startswith("ray:") and len(text) > len("ray:"):
        return ClusterSpec("ray", text[len("ray:") :])
    raise ValueError(f"cluster {text!r}: use ray, ray://HOST:PORT or ray:auto")


def open_launcher(
    cluster: ClusterSpec | None, *, num_cpus: float = 1.0, server_cpus: float = 1.0
) -> Launcher:
    """The launcher for ``cluster`` (``None``: child processes of this one); on a cluster each
    worker actor asks ``num_cpus`` CPU and each shard actor ``server_cpus`` (the shares their
    measured cost needs: :mod:`.actor_costs`)."""
    if cluster is None:
        from agent_runtime.app.launchers.process import ProcessLauncher

        return ProcessLauncher()
    if cluster.engine == "ray":
        from agent_runtime.app.launchers.ray_launcher import RayLauncher

        return RayLauncher(cluster.address, num_cpus=num_cpus, server_cpus=server_cpus)
    raise ValueError(f"unknown cluster engine {cluster.engine!r}")
