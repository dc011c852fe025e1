"""The KubeRay example (configs/kuberay/raycluster.yaml) asks for what the runtime needs:
the Ray version the project pins, every pod with the same shared run folder, and Ray's
dashboard on the head's loopback (reached by port-forward, as our own page is)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def documents() -> list[dict[str, Any]]:
    text = (ROOT / "configs/kuberay/raycluster.yaml").read_text()
    return [d for d in yaml.safe_load_all(text) if d]


def pods(cluster: dict[str, Any]) -> list[dict[str, Any]]:
    spec = cluster["spec"]
    return [spec["headGroupSpec"]["template"]["spec"]] + [
        g["template"]["spec"] for g in spec["workerGroupSpecs"]
    ]


def test_the_ray_version_is_the_one_the_project_pins() -> None:
    pinned = re.search(r'"ray==([0-9.]+)"', (ROOT / "pyproject.toml").read_text())
    assert pinned is not None
    (cluster,) = [d for d in documents() if d["kind"] == "RayCluster"]
    assert cluster["spec"]["rayVersion"] == pinned.group(1)


def test_every_pod_mounts_the_same_shared_run_folder_at_the_same_path() -> None:
    docs = documents()
    (cluster,) = [d for d in docs if d["kind"] == "RayCluster"]
    claims = {d["metadata"]["name"]: d for d in docs if d["kind"] == "PersistentVolumeClaim"}
    mounts = set()
    for pod in pods(cluster):
        volumes = {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"]}
        for c in pod["containers"]:
            for m in c["volumeMounts"]:
                mounts.add((volumes[m["name"]], m["mountPath"]))
    assert len(mounts) == 1
    ((claim, _),) = mounts
    assert claims[claim]["spec"]["accessModes"] == ["ReadWriteMany"]


def test_the_dashboard_listens_on_the_heads_loopback_only() -> None:
    (cluster,) = [d for d in documents() if d["kind"] == "RayCluster"]
    params = cluster["spec"]["headGroupSpec"]["rayStartParams"]
    assert params["dashboard-host"] == "127.0.0.1"
