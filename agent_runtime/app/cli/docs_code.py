"""Figures in the docs rendered from the code itself (``piano docs``): a setting's default, a
constant, each experiment's default runs. The block names the Python file it reads, so a
changed default changes the page (``piano docs --check`` names the block until re-rendered).

    <!-- figures: settings ../agent_runtime/config/models.py model=WorldSettings section=world fields=host -->
    <!-- figures: settings ../agent_runtime/config/models.py constants=SUPPORTED_VERSIONS -->
    <!-- figures: experiment-defaults ../experiments/registry.py -->
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agent_runtime.app.doc_figures import markdown_table

ROOT = Path(__file__).resolve().parents[3]

#: renderers whose source is code, not a result file (the doc-figures test allows them outside
#: a ``results/`` folder)
CODE_RENDERERS = frozenset({"settings", "experiment-defaults"})


def _module(source: Path) -> Any:
    rel = source.resolve().relative_to(ROOT).with_suffix("")
    return importlib.import_module(".".join(rel.parts))


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, BaseModel):
        return "{" + ", ".join(f"{k}: {_plain(v)}" for k, v in value.model_dump().items()) + "}"
    return value


def _shown(value: Any) -> str:
    if isinstance(value, tuple | list):
        return ", ".join(f"`{_plain(v)}`" for v in value)
    return "`null`" if value is None else f"`{_plain(value)}`"


def render_settings(source: Path, options: Mapping[str, str]) -> str:
    """``model=CLASS section=S fields=a,b``: each field's default as ``S.a``;
    ``constants=A,B``: module-level values. One row each, in the order named."""
    mod = _module(source)
    rows = []
    if "model" in options:
        fields = getattr(mod, options["model"]).model_fields
        prefix = f"{options['section']}." if options.get("section") else ""
        for name in options.get("fields", "").split(","):
            if name not in fields:
                raise KeyError(f"{options['model']} has no field {name!r}")
            rows.append(f"| `{prefix}{name}` | {_shown(fields[name].get_default(call_default_factory=True))} |")
    for name in filter(None, options.get("constants", "").split(",")):
        rows.append(f"| `{name}` | {_shown(getattr(mod, name))} |")
    if not rows:
        raise ValueError("name model=CLASS fields=a,b or constants=A,B")
    rel = source.resolve().relative_to(ROOT)
    return markdown_table(f"| setting | default (read from `{rel}`) |", rows)


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def render_experiment_defaults(source: Path, options: Mapping[str, str]) -> str:
    """One row per experiment ``piano experiment`` knows (``source``: its registry), from what
    ``piano validate`` answers for its shipped file."""
    from experiments.registry import default_config
    from experiments.validation import validate_experiment_file

    rows = []
    for name in _module(source).EXPERIMENTS:
        d = validate_experiment_file(default_config(name))
        counts = set(d.agents.values())
        agents = str(counts.pop()) if len(counts) == 1 else ", ".join(
            f"{c}: {n}" for c, n in d.agents.items()
        )
        rows.append(
            f"| `{name}` | {agents} | {len(d.agents)}: {', '.join(d.agents)} | "
            f"{d.repeats} | {d.runs} | {_duration(d.run_s)} | {_duration(d.wall_s)} |"
        )
    head = (
        "| experiment | agents a run | conditions | repeats | runs | one run | all runs "
        "(`--time-scale 1`, start-ups apart) |"
    )
    return markdown_table(head, rows)
