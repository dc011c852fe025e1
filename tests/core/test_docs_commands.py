"""The README's quick start and the pages under docs/ cannot drift from the CLI: every command
in their ``bash`` blocks is read from the Markdown (tests/core/docs_commands.py) and checked
against the code, and every link resolves to a file.

How each command is shortened (each page says so too):

- every ``piano`` line is parsed by piano's own parser (a flag it does not know fails);
- ``piano validate`` and ``piano plan`` lines run as written;
- ``piano run`` lines resolve their village file with their flags applied, as ``piano run``
  does before it starts anything (``--workers``, ``--cluster`` included); the README's lines
  on the heuristic brain without ``--cluster`` then run for real, shortened to
  ``--world none --duration 3``;
- ``piano worker`` lines resolve the file as the worker does; ``piano experiment`` lines
  validate the experiment's file and the conditions they name; ``piano llm check`` lines load
  the file they name; ``piano join`` lines check their ``--server`` and ``--version``;
- ``make`` lines run as ``make -n`` (the target exists and its recipe expands);
- any file a line reads (``*.yaml``, ``*.json``, not after ``--json-out``/``--out``) exists.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_runtime.app.cli.cmd_join import HELP
from agent_runtime.app.cli.cmd_run import apply_cli
from agent_runtime.app.cli.cmd_worker import worker_config
from agent_runtime.app.cli.main import build_parser, main
from agent_runtime.app.launchers import parse_cluster
from agent_runtime.app.workers import ADMIN_URL_ENV, parse_shard, worker_count
from agent_runtime.config.loader import load_config, resolve_agents
from agent_runtime.config.models import SUPPORTED_VERSIONS
from experiments.registry import default_config
from experiments.spec import load_experiment_file
from tests.core.docs_commands import DOCS, ROOT, Command, commands, links

COMMANDS = [c for doc in DOCS for c in commands(doc)]
PIANO = [c for c in COMMANDS if c.argv[0] == "piano"]
#: flags whose file a command writes, so it need not exist
WRITTEN = {"--json-out", "--out", "--log"}


def _parse(c: Command) -> argparse.Namespace:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return build_parser().parse_args(c.argv[1:])
    except SystemExit:
        raise AssertionError(f"{c}\n  piano does not take it: {err.getvalue().strip().splitlines()[-1]}") from None


def _ran(c: Command, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, f"{c}\n  exit {code}: {(out.err or out.out)[-1500:]}"


def test_the_pages_have_commands_and_the_readme_keeps_its_two() -> None:
    readme = [str(c).split(": ", 1)[1] for c in COMMANDS if c.doc.name == "README.md"]
    assert readme[:2] == ["make village", "make test"]
    assert len(readme) >= 10
    pages = {c.doc.name for c in COMMANDS}
    assert {"village.md", "join.md", "llm.md", "machines.md", "experiments.md"} <= pages


def test_commands_spanning_lines_and_comments_are_read_whole(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    text = "a\n```bash\npiano run a.yaml \\\n    --duration 5   # short\nray start &\n```\n"
    text += "```yaml\npiano: no\n```\n```bash\n.venv/bin/piano server --port 1 &\n```\n"
    got = [(c.line, c.argv) for c in commands(doc, text)]
    assert got == [(3, ("piano", "run", "a.yaml", "--duration", "5")),
                   (11, ("piano", "server", "--port", "1"))]  # fmt: skip


@pytest.mark.parametrize("c", PIANO, ids=str)
def test_every_piano_command_parses_and_what_it_names_holds(
    c: Command, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = _parse(c)
    for before, word in zip(c.argv, c.argv[1:], strict=False):
        if before in WRITTEN:
            continue
        if re.fullmatch(r"[\w./-]+\.(ya?ml|json)", word) and not word.startswith("/"):
            assert (ROOT / word).is_file(), f"{c}\n  no file {word}"
    match args.command:
        case "validate" | "plan":
            _ran(c, list(c.argv[1:]), capsys)
        case "run" if args.resume is None:
            cfg = apply_cli(load_config(args.config), args, args.config)
            worker_count(args.workers, len(resolve_agents(cfg)))
            if args.cluster is not None:
                parse_cluster(args.cluster)
        case "worker":
            parse_shard(args.shard)
            monkeypatch.setenv(ADMIN_URL_ENV, "http://piano:x@127.0.0.1:1")  # no server ping
            worker_config(args)
        case "experiment":
            exp = load_experiment_file(Path(args.config) if args.config else default_config(args.name))
            unknown = set(filter(None, (args.conditions or "").split(","))) - {
                cond.name for cond in exp.conditions
            }
            assert not unknown, f"{c}\n  no such conditions {sorted(unknown)}"
            _ran(c, ["validate", str(args.config or default_config(args.name))], capsys)
        case "llm" if args.config:
            load_config(args.config)
        case "join":
            assert re.fullmatch(r"[\w.-]+:\d{1,5}", args.server), f"{c}\n  --server HOST:PORT"
            assert args.version in (None, *SUPPORTED_VERSIONS), f"{c}\n  --version"


def _runnable(c: Command) -> bool:
    """A README village on the heuristic brain, without Ray (read while collecting: a line
    that does not parse or resolve is not run here, the test above names it)."""
    if c.doc.name != "README.md" or c.argv[1] != "run" or "--cluster" in c.argv:
        return False
    try:
        args = _parse(c)
        cfg = apply_cli(load_config(args.config), args, args.config)
    except Exception:  # the parse-and-resolve test reports it
        return False
    return cfg.llm.provider == "heuristic"


@pytest.mark.services
@pytest.mark.parametrize("c", [c for c in PIANO if _runnable(c)], ids=str)
def test_the_readmes_heuristic_villages_run(c: Command, tmp_path: Path) -> None:
    short = ["--world", "none", "--duration", "3", "--no-web", "--quiet", "--out", str(tmp_path)]
    argv = [sys.executable, "-m", "agent_runtime.app.cli.main", *c.argv[1:], *short]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=100)
    assert done.returncode == 0, f"{c}\n  {done.stderr[-2000:]}"
    assert "stopped (duration reached)" in done.stdout


@pytest.mark.parametrize("c", [c for c in COMMANDS if c.argv[0] == "make"], ids=str)
def test_every_make_command_is_a_target(c: Command) -> None:
    done = subprocess.run(
        ["make", "-n", *c.argv[1:]], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, f"{c}\n  {done.stderr[-1000:]}"


def test_every_link_resolves_to_a_file() -> None:
    broken = [
        f"{doc.relative_to(ROOT)}:{n}: {target}"
        for doc in DOCS
        for n, target in links(doc)
        if not (doc.parent / target).exists()
    ]
    assert broken == []


def test_the_join_page_lists_the_commands_piano_join_prints() -> None:
    page = (ROOT / "docs/join.md").read_text()
    for line in filter(str.strip, HELP.splitlines()):
        assert line.strip() in page, f"docs/join.md lacks piano join's {line.strip()!r}"


def test_the_readme_is_short_and_links_every_page() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    linked = {target for _, target in links(ROOT / "README.md")}
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert pages <= linked, f"pages the README does not link: {sorted(pages - linked)}"
