"""``ServerOptions``: how the embedded server starts, checked when made.

One frozen value per server, the same for every restart: where it listens, the
world it generates and the limits it keeps. A bad value raises pydantic's
``ValidationError`` (a ``ValueError``) naming the field, before anything starts.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent_runtime.config.layout import VillageLayout
from agent_runtime.config.models import DEFAULT_VERSION

__all__ = ["ServerOptions"]

_NAMED_HOSTS = {"localhost", "::1"}


class ServerOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = "127.0.0.1"  # an IP address, or localhost; 0.0.0.0 = every interface
    port: int | None = Field(default=None, ge=0, le=65535)  # None or 0: a free port
    admin_port: int | None = Field(default=None, ge=0, le=65535)  # None: a free port
    admin: bool = True  # serve the admin API (loopback only, token-protected)
    version: str = DEFAULT_VERSION  # any version minecraft-data knows
    seed: int = Field(default=0, ge=-(2**31), lt=2**32)
    layout: VillageLayout = Field(default_factory=VillageLayout)
    pregen_radius: int = Field(default=4, ge=0, le=16)  # chunks generated before ready
    motd: str = "PIANO village"
    max_players: int = Field(default=60, ge=1, le=1000)
    view_distance: int = Field(default=6, ge=2, le=32)
    furnace_cook_ticks: int = Field(default=200, ge=1, le=2000)
    #: vanilla's network-compression-threshold: packets of this many bytes or more are deflated,
    #: -1 none; None: -1 on a loopback host (nothing to save on the wire), 256 on any other
    compression_threshold: int | None = Field(default=None, ge=-1)
    start_timeout: float = Field(default=60.0, gt=0)  # seconds until a client can join
    stop_timeout: float = Field(default=10.0, gt=0)  # seconds from SIGTERM to SIGKILL
    #: the run's body key (bots/body_key.py); None: the server keeps its own in its world folder
    body_key_file: Path | None = None
    #: names only a body holding the body key may use, in any letter case (the run's agents)
    agent_names: tuple[str, ...] = ()

    @field_validator("host")
    @classmethod
    def _address(cls, v: str) -> str:
        if v not in _NAMED_HOSTS and not v.replace(".", "").isdigit():
            raise ValueError(f"not an IP address or localhost: {v!r}")
        return v
