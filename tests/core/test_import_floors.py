"""The house's floors: imports run one way, with no circle, counting every import (also
inside functions and under ``TYPE_CHECKING``).

Floors, lowest first: the core (``agent_runtime`` without ``app``) <- ``bots``, ``modules``
(which do not import each other) <- the village assembly (``agent_runtime.app``) <-
``experiments`` <- the CLI (``agent_runtime.app.cli``), the only place that knows every floor.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("agent_runtime", "modules", "bots", "experiments")


def floor(module: str) -> tuple[int, str] | None:
    """(height, name) of a module's floor; None for what is not ours."""
    if module.startswith("agent_runtime.app.cli"):
        return 5, "the CLI"
    if module.startswith("experiments"):
        return 4, "experiments"
    if module.startswith("agent_runtime.app"):
        return 3, "the village assembly"
    if module.startswith("modules"):
        return 2, "modules"
    if module.startswith("bots"):
        return 2, "bots"
    if module.startswith("agent_runtime"):
        return 1, "the core"
    return None


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            if "node_modules" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """Every module of ours that ``name`` imports, anywhere in the file, with its line."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                yield t, node.lineno


def _graph() -> dict[str, dict[str, int]]:
    known = _modules()
    graph: dict[str, dict[str, int]] = defaultdict(dict)
    for name, path in known.items():
        for target, line in _imports(name, path, known):
            graph[name].setdefault(target, line)
    return graph


def _circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles() -> None:
    assert _circles(_graph()) == []


def test_floors_import_only_downwards() -> None:
    upward = []
    for source, targets in _graph().items():
        f = floor(source)
        assert f is not None
        for target, line in targets.items():
            g = floor(target)
            if g is not None and (g[0] > f[0] or (g[0] == f[0] and g[1] != f[1])):
                upward.append(f"{source}:{line} ({f[1]}) imports {target} ({g[1]})")
    assert upward == []


def test_the_check_sees_imports_in_functions_and_type_checking(tmp_path: Path) -> None:
    known = {"agent_runtime.a": tmp_path / "a.py", "agent_runtime.b": tmp_path / "b.py"}
    known["agent_runtime.a"].write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from agent_runtime.b import X\n"
    )
    known["agent_runtime.b"].write_text("def f():\n    from agent_runtime import a\n")
    graph = {n: dict(_imports(n, p, known)) for n, p in known.items()}
    assert _circles(graph) == [["agent_runtime.a", "agent_runtime.b"]]


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def test_the_import_linter_contract_names_floors_not_files() -> None:
    """One contract per floor above the core, naming only packages: the floor it protects and
    the floors above it, which alone may import it (``floor`` above says the same). A new file
    joins its floor by its place; the core imports no floor, as it is no allowed importer."""
    floors: dict[int, set[str]] = defaultdict(set)
    for contract in _contracts():
        assert contract["type"] == "protected"
        protected: str
        (protected,) = contract["protected_modules"]
        height = floor(protected)
        assert height is not None and height[0] > 1, protected
        floors[height[0]].add(protected)
        importers: list[str] = contract["allowed_importers"]
        heights = {h[0] for name in importers if (h := floor(name)) is not None}
        assert len(heights) == len(importers), f"{protected}: {importers}"
        # the CLI lives inside the assembly: allowing the assembly (or being it) allows it
        if 3 in heights or height[0] == 3:
            heights.add(5)
        assert heights == set(range(height[0] + 1, 6)), f"{protected}: {importers}"
    assert floors == {
        5: {"agent_runtime.app.cli"},
        4: {"experiments"},
        3: {"agent_runtime.app"},
        2: {"modules", "bots"},
    }


def test_import_linter_keeps_the_floors() -> None:
    """`lint-imports` (also run by `make lint`) finds the contract kept."""
    exe = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert f"{len(_contracts())} kept, 0 broken" in done.stdout
