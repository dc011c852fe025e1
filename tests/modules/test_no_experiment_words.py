"""Modules know no experiment: the words of every experiment's topics (its name, the words
that make a line a request about it, the lines its agents say for or against it) are data
the experiment hands its village (``experiments/*/topics/*.yaml``), never in the modules'
code or their own lexicons. Docstrings and comments may name an experiment as an example.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from agent_runtime.config.loader import load_topic
from agent_runtime.config.topics import Topic

ROOT = Path(__file__).resolve().parents[2]
#: files the check skips (none: the memory heuristic's topic words come from the topics too)
LEFT: set[str] = set()


def experiment_topics() -> list[Topic]:
    return [load_topic(p) for p in sorted(ROOT.glob("experiments/*/topics/*.yaml"))]


def _code_strings(path: Path) -> list[str]:
    """Identifiers (split at "_") and string constants of a Python file, docstrings apart."""
    tree = ast.parse(path.read_text("utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            out.append(node.value)
        elif isinstance(node, ast.Name):
            out.append(node.id.replace("_", " "))
        elif isinstance(node, ast.Attribute):
            out.append(node.attr.replace("_", " "))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.append(node.name.replace("_", " "))
    return out


def _lexicon_lines(path: Path) -> list[str]:
    return [line for line in path.read_text("utf-8").splitlines() if not line.startswith("#")]


def found_in_modules(topics: list[Topic], root: Path = ROOT) -> dict[str, list[str]]:
    words = sorted({w.lower() for t in topics for w in (t.name, *t.request_words)})
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")(?:e?s)?\b", re.I)
    lines = {line for t in topics for line in (*t.say_for, *t.say_against)}
    hits: dict[str, list[str]] = {}
    for path in sorted((root / "modules").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel in LEFT or not path.is_file():
            continue
        if path.suffix == ".py":
            texts = _code_strings(path)
        elif path.suffix in (".txt", ".md") and path.name != "README.md":
            texts = _lexicon_lines(path)
        else:
            continue
        bad = [
            t for t in texts if pattern.search(t.replace("_", " ")) or any(x in t for x in lines)
        ]
        if bad:
            hits[rel] = bad
    return hits


def test_the_experiments_hand_over_topics() -> None:
    names = {t.name for t in experiment_topics()}
    assert {"tax", "religion"} <= names


def test_no_experiment_topic_word_in_the_modules() -> None:
    assert found_in_modules(experiment_topics()) == {}


def test_the_check_finds_a_topic_word(tmp_path: Path) -> None:
    """The check is not blind: a modules file with an experiment's word is reported."""
    (tmp_path / "modules").mkdir()
    (tmp_path / "modules" / "clean.py").write_text('"""The tax, in a docstring."""\n', "utf-8")
    (tmp_path / "modules" / "probe.py").write_text('"""A probe."""\n\nTOPIC = "tax"\n', "utf-8")
    (tmp_path / "modules" / "goals.py").write_text("ACTIVITIES = {'pay_tax': 1}\n", "utf-8")
    hits = found_in_modules(experiment_topics(), tmp_path)
    assert sorted(hits) == ["modules/goals.py", "modules/probe.py"]
