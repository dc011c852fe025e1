"""The kinds of YAML file the repository ships, told apart by what their data holds, and the
check of the one kind the runtime does not load itself (Kubernetes manifests).

- ``experiment``: a mapping with ``experiment:`` (``experiments/<name>/config.yaml`` and the
  copies of it in results folders);
- ``topic``: a mapping with ``lexicon:`` and no agents (``experiments/*/topics/*.yaml``);
- ``manifest``: documents with ``apiVersion:`` and ``kind:`` (``configs/kuberay/``), or any
  file of several documents: the cluster checks them whole (``kubectl apply --dry-run=server``);
  here only their shape (:func:`check_manifests`);
- ``village``: any other mapping (``configs/*.yaml``, a run's or a benchmark's village).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from agent_runtime.config.errors import ConfigError, FieldProblem
from agent_runtime.config.problems import did_you_mean

__all__ = ["FileKind", "check_manifests", "file_kind"]

FileKind = Literal["village", "experiment", "topic", "manifest"]

#: the top-level fields of the Kubernetes objects a manifest here may hold
_MANIFEST_FIELDS = ("apiVersion", "kind", "metadata", "spec", "data", "stringData", "type")
#: an object's name (RFC 1123: lower case letters, digits and '-', at most 63)
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_API_VERSION = re.compile(r"^([a-z0-9.-]+/)?v[0-9]+((alpha|beta)[0-9]+)?$")


def file_kind(documents: list[Any]) -> FileKind:
    """The kind of a YAML file from its documents (:func:`~.loader.read_yaml_documents`)."""
    present = [d for d in documents if d is not None]
    if len(present) > 1 or any(isinstance(d, Mapping) and "apiVersion" in d for d in present):
        return "manifest"
    data = present[0] if present else None
    if isinstance(data, Mapping):
        if "experiment" in data:
            return "experiment"
        if "lexicon" in data and not {"agents", "agent_templates"} & data.keys():
            return "topic"
    return "village"


def check_manifests(path: Path | str, documents: list[Any]) -> list[str]:
    """``KIND NAME`` of each object of a manifest file; a :class:`ConfigError` listing every
    document whose shape is wrong (``documents[i].field``)."""
    problems: list[FieldProblem] = []
    objects: list[str] = []
    for i, doc in enumerate(documents):
        at = f"documents[{i}]"
        if doc is None:
            continue  # an empty document (a trailing ---)
        if not isinstance(doc, Mapping):
            problems.append(FieldProblem(at, "a Kubernetes object is a mapping"))
            continue
        for key in doc:
            if key not in _MANIFEST_FIELDS:
                hint = did_you_mean(str(key), _MANIFEST_FIELDS)
                problems.append(FieldProblem(f"{at}.{key}", f"unknown field{hint}"))
        api, kind = doc.get("apiVersion"), doc.get("kind")
        if not isinstance(api, str) or not _API_VERSION.match(api):
            problems.append(FieldProblem(f"{at}.apiVersion", f"want GROUP/VERSION, got {api!r}"))
        if not isinstance(kind, str) or not kind[:1].isupper():
            problems.append(
                FieldProblem(f"{at}.kind", f"want a kind such as RayCluster, got {kind!r}")
            )
        meta = doc.get("metadata")
        name = meta.get("name") if isinstance(meta, Mapping) else None
        if not isinstance(name, str) or not _NAME.match(name):
            problems.append(
                FieldProblem(
                    f"{at}.metadata.name",
                    f"want a name of lower-case letters, digits and '-', got {name!r}",
                )
            )
        objects.append(f"{kind} {name}")
    if not objects and not problems:
        problems.append(FieldProblem("", "the file holds no object"))
    if problems:
        raise ConfigError(path, problems, "Kubernetes manifest")
    return objects
