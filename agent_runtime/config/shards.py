"""World shards: the ``world.shards`` list of a village YAML.

A village may live in several Minecraft worlds at once. Each shard is one
server (``embedded``: started by the runtime on its own free loopback port with its own
admin API token; ``external``: a server someone else runs) that holds one rectangular
**region** of a single global x/z coordinate frame, with its own town (``layout``) and a
bot budget (``max_bots``)::

    world:
      kind: embedded            # the default kind of every shard
      shards:
        - {name: west, region: {x_min: -400, x_max: 0, z_min: -200, z_max: 200}, max_bots: 50}
        - {name: east, region: {x_min: 0, x_max: 400, z_min: -200, z_max: 200}, max_bots: 50}

Coordinates are global and every shard's server uses them as they are: a point (x, y, z)
is the same block coordinate on whichever server holds it (no translation between frames).
A shard's town is built at its ``layout`` centre, which defaults to the middle of its
region; all embedded shards share the world seed, so the terrain matches across borders.
Regions must not overlap; a point in no region belongs to the nearest one.

This module imports only pydantic and the standard library.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_runtime.config.layout import VillageLayout

__all__ = ["Region", "ShardSettings", "check_shards"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Region(BaseModel):
    """A rectangle of the global x/z frame: ``x_min <= x < x_max`` and ``z_min <= z < z_max``."""

    model_config = _FROZEN

    x_min: float
    x_max: float
    z_min: float
    z_max: float

    @model_validator(mode="after")
    def _ordered(self) -> Region:
        if self.x_min >= self.x_max:
            raise ValueError(f"x_min ({self.x_min}) must be below x_max ({self.x_max})")
        if self.z_min >= self.z_max:
            raise ValueError(f"z_min ({self.z_min}) must be below z_max ({self.z_max})")
        return self

    def contains(self, x: float, z: float) -> bool:
        return self.x_min <= x < self.x_max and self.z_min <= z < self.z_max

    def distance(self, x: float, z: float) -> float:
        """Blocks from (x, z) to the region (0 inside)."""
        dx = max(self.x_min - x, 0.0, x - self.x_max)
        dz = max(self.z_min - z, 0.0, z - self.z_max)
        return float((dx * dx + dz * dz) ** 0.5)

    def clamp(self, x: float, z: float, margin: float = 0.0) -> tuple[float, float]:
        """The point of the region (``margin`` blocks inside its edges) nearest to (x, z)."""
        m_x = min(margin, (self.x_max - self.x_min) / 2)
        m_z = min(margin, (self.z_max - self.z_min) / 2)
        return (
            min(max(x, self.x_min + m_x), self.x_max - m_x),
            min(max(z, self.z_min + m_z), self.z_max - m_z),
        )

    def overlaps(self, other: Region) -> bool:
        return not (
            self.x_max <= other.x_min
            or other.x_max <= self.x_min
            or self.z_max <= other.z_min
            or other.z_max <= self.z_min
        )

    def centre(self) -> tuple[int, int]:
        return int((self.x_min + self.x_max) // 2), int((self.z_min + self.z_max) // 2)


class ShardSettings(BaseModel):
    """One world of a sharded village. Unset fields take ``world``'s value."""

    model_config = _FROZEN

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,23}$")
    kind: Literal["embedded", "external"] | None = None
    host: str | None = None
    port: int | None = Field(default=None, ge=0, le=65535)  # embedded: None/0 = a free port
    admin_port: int | None = Field(default=None, ge=0, le=65535)
    admin_url: str | None = Field(
        default=None,
        description="external: the admin API (http://piano:TOKEN@host:port) used to teleport "
        "arriving bodies; without it a body arrives where the server spawns it",
    )
    region: Region
    layout: VillageLayout | None = None  # None: the world's layout, centred on the region
    max_bots: int = Field(default=50, ge=1, le=1000)

    @model_validator(mode="after")
    def _admin(self) -> ShardSettings:
        if self.admin_url is not None and not self.admin_url.startswith(("http://", "https://")):
            raise ValueError("admin_url must be an http:// URL")
        return self


def check_shards(shards: tuple[ShardSettings, ...], world_kind: str) -> None:
    """Raise ValueError (naming the shard) when the list cannot make one village."""
    if not shards:
        return
    if world_kind == "none":
        raise ValueError("world.kind 'none' has no servers to shard; use embedded or external")
    names = [s.name for s in shards]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"shard names must be unique: {dup}")
    for i, a in enumerate(shards):
        for b in shards[i + 1 :]:
            if a.region.overlaps(b.region):
                raise ValueError(f"the regions of shards {a.name!r} and {b.name!r} overlap")
        kind = a.kind or world_kind
        if kind == "external" and not a.port:
            raise ValueError(f"shard {a.name!r} is external and needs its server's port")
        if a.layout is not None and not a.region.contains(a.layout.centre_x, a.layout.centre_z):
            raise ValueError(f"shard {a.name!r}: its layout centre lies outside its region")
