"""A run folder belongs to one running village at a time, and a stopped or killed run can
be resumed from it.

:class:`RunFolderLock` holds an exclusive ``flock`` on ``<run>/.lock`` (with the owner's pid
in it) for the village's lifetime; the kernel releases it when the process dies, so a
killed run never leaves a stale lock. :func:`resume_config` reads back the config a run
folder was started with, for ``piano run --resume RUN_DIR``: the embedded Redis reloads its
append-only file from ``<run>/redis``, the embedded world its ``<run>/world``, and every
agent continues with its Agent State, memories and module checkpoints.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import IO, Any

from agent_runtime.config.errors import ConfigError, FieldProblem
from agent_runtime.config.loader import load_config
from agent_runtime.config.models import VillageConfig
from agent_runtime.config.urls import public_url

__all__ = ["RunFolderBusy", "RunFolderLock", "resume_config", "shown_config"]


class RunFolderBusy(RuntimeError):
    """Another running village holds the run folder."""


class RunFolderLock:
    def __init__(self, run_dir: Path) -> None:
        self.path = Path(run_dir) / ".lock"
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        f = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            owner = f.read().strip() or "another process"
            f.close()
            raise RunFolderBusy(
                f"run folder {self.path.parent} is in use by pid {owner}; "
                "stop that run first or choose another --run-id"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        self._file = f

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None


def resume_config(run_dir: Path, config_file: str | None) -> VillageConfig:
    """The config to resume ``run_dir`` with: ``config_file`` if given, else the one the run
    folder recorded (which shows service URLs without their secrets, so a run on password
    protected external services must be given its file again)."""
    recorded = Path(run_dir) / "config.resolved.yaml"
    if config_file is not None:
        return load_config(config_file)
    if not recorded.is_file():
        raise ConfigError(
            recorded, [FieldProblem("", "not a run folder (no config.resolved.yaml)")]
        )
    cfg = load_config(recorded)
    if "***" in cfg.services.redis or "***" in cfg.services.mqtt:
        raise ConfigError(
            recorded,
            [FieldProblem("services", "URLs were recorded without their secrets: "
                          "pass the original file, piano run CONFIG --resume RUN_DIR")],
        )  # fmt: skip
    return cfg


def shown_config(cfg: VillageConfig) -> dict[str, Any]:
    """The config as written to the run folder (and Redis): service URLs without secrets."""
    data = cfg.model_dump(mode="json")
    for key in ("redis", "mqtt"):
        data["services"][key] = public_url(data["services"][key])
    if isinstance(data.get("llm", {}).get("base_url"), str):
        data["llm"]["base_url"] = public_url(data["llm"]["base_url"])
    return data
