"""Small experiment files derived from the shipped ones (short protocols, few agents)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from experiments.registry import default_config


@pytest.fixture
def small_config(tmp_path: Path) -> Callable[..., Path]:
    """``small_config(name, protocol={...}, **top)`` writes a modified copy of the shipped file."""

    def make(
        name: str, protocol: dict[str, Any] | None = None,
        world: dict[str, Any] | None = None, **top: Any,
    ) -> Path:
        data = yaml.safe_load(default_config(name).read_text())
        data["protocol"].update(protocol or {})
        data["village"].setdefault("world", {}).update(world or {"port": 0})  # a free port
        data.update(top)
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        return path

    return make
