"""The launcher interface: ``--cluster`` parsing, and one machine without ``--cluster``
needs no Ray (nothing on that path imports it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_runtime.app.launchers import ClusterSpec, open_launcher, parse_cluster
from agent_runtime.app.launchers.process import ProcessLauncher


def test_parse_cluster() -> None:
    assert parse_cluster("ray") == ClusterSpec("ray")
    assert parse_cluster("ray://head:10001") == ClusterSpec("ray", "ray://head:10001")
    assert parse_cluster("ray:auto") == ClusterSpec("ray", "auto")
    assert parse_cluster("ray:10.0.0.1:6379") == ClusterSpec("ray", "10.0.0.1:6379")
    for bad in ("", "ray:", "ray://", "dask", "k8s://x"):
        with pytest.raises(ValueError):
            parse_cluster(bad)


def test_without_a_cluster_the_workers_are_child_processes() -> None:
    assert isinstance(open_launcher(None), ProcessLauncher)


def test_one_machine_imports_no_ray() -> None:
    code = (
        "import sys\n"
        "import agent_runtime.app.cli.main, agent_runtime.app.coordinator\n"
        "import agent_runtime.app.cli.cmd_run, agent_runtime.app.cli.cmd_worker\n"
        "import agent_runtime.app.cli.bench_runtime, agent_runtime.app.cli.bench_workers\n"
        "import agent_runtime.app.workers, agent_runtime.app.village\n"
        "from agent_runtime.app.launchers import open_launcher\n"
        "open_launcher(None)\n"
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout
