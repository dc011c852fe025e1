"""The village layout: the small ``world.layout`` section of a village YAML.

The embedded server's world generator (``bots/server/generator``) reads this
model (serialised with :meth:`VillageLayout.to_generator`) and builds a
deterministic village from it and the seed. Every field has a default, so
``VillageLayout()`` is a complete village. Positions are offsets in blocks from
the village centre (``centre_x``, ``centre_z``); +x is east, +z is south.

The generator reports the named places it built as :class:`Place` objects
(with the real surface height); they go into agents' location memories.

This module imports only pydantic, the standard library and the name type
(``config/game_names.py``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_runtime.config.game_names import ItemName

__all__ = ["AREA_NAMES", "Circle", "Place", "Rect", "VillageLayout"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")

AREA_NAMES = ("town_hall", "farm", "pasture", "forest", "hills", "lake")


class Rect(BaseModel):
    """An axis-aligned rectangle: north-west corner offset and size in blocks."""

    model_config = _FROZEN

    dx: int
    dz: int
    width: int = Field(ge=5, le=64)
    depth: int = Field(ge=5, le=64)

    def bounds(self) -> tuple[int, int, int, int]:
        """(min_dx, min_dz, max_dx, max_dz), inclusive."""
        return (self.dx, self.dz, self.dx + self.width - 1, self.dz + self.depth - 1)


class Circle(BaseModel):
    """A round area: centre offset and radius in blocks."""

    model_config = _FROZEN

    dx: int
    dz: int
    radius: int = Field(ge=4, le=96)

    def bounds(self) -> tuple[int, int, int, int]:
        """(min_dx, min_dz, max_dx, max_dz) of the bounding square, inclusive."""
        r = self.radius
        return (self.dx - r, self.dz - r, self.dx + r, self.dz + r)


class Place(BaseModel):
    """A named place in the generated world (absolute block coordinates)."""

    model_config = _FROZEN

    name: str
    x: int
    y: int
    z: int
    description: str = ""


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return not (a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1])


class VillageLayout(BaseModel):
    """Where the village's parts are; the seed decides the details."""

    model_config = _FROZEN

    centre_x: int = 0
    centre_z: int = 0
    ground_level: int = Field(64, ge=40, le=120)
    town_hall: Rect = Rect(dx=-7, dz=-22, width=15, depth=9)
    community_chests: int = Field(4, ge=0, le=8)
    farm: Rect = Rect(dx=12, dz=-6, width=13, depth=13)
    crops: tuple[ItemName, ...] = ("wheat", "carrots", "potatoes")
    pasture: Rect = Rect(dx=-28, dz=-6, width=15, depth=15)
    animals: dict[str, int] = Field(
        default_factory=lambda: {"cow": 3, "sheep": 3, "pig": 2, "chicken": 3}
    )
    forest: Circle = Circle(dx=0, dz=34, radius=20)
    tree_species: tuple[str, ...] = ("oak", "birch")
    forest_density: float = Field(0.55, ge=0.0, le=1.0)
    sparse_tree_density: float = Field(0.04, ge=0.0, le=1.0)
    hills: Circle = Circle(dx=40, dz=26, radius=18)
    hill_height: int = Field(22, ge=6, le=60)
    cave: bool = True
    lake: Circle = Circle(dx=-32, dz=30, radius=9)
    roads: bool = True

    @model_validator(mode="after")
    def _check(self) -> VillageLayout:
        allowed = {"wheat", "carrots", "potatoes", "beetroots"}
        bad = [c for c in self.crops if c not in allowed]
        if bad:
            raise ValueError(f"crops: unknown crop(s) {bad}; allowed: {sorted(allowed)}")
        if not self.crops:
            raise ValueError("crops: at least one crop is needed")
        if any(s not in {"oak", "birch", "spruce"} for s in self.tree_species) or not (
            self.tree_species
        ):
            raise ValueError("tree_species: use oak, birch and/or spruce")
        animals = {"cow", "sheep", "pig", "chicken"}
        for name, count in self.animals.items():
            if name not in animals:
                raise ValueError(f"animals: unknown animal {name!r}; allowed: {sorted(animals)}")
            if not 0 <= count <= 20:
                raise ValueError(f"animals.{name}: count must be 0..20")
        areas = {name: getattr(self, name).bounds() for name in AREA_NAMES}
        names = list(areas)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                if _overlap(areas[a], areas[b]):
                    raise ValueError(f"layout: {a} overlaps {b}")
        plaza = (-4, -4, 4, 4)
        for name, box in areas.items():
            if _overlap(box, plaza):
                raise ValueError(f"layout: {name} overlaps the village centre (spawn plaza)")
        return self

    def to_generator(self) -> dict[str, Any]:
        """The JSON-able form the Node generator reads (same field names)."""
        return self.model_dump(mode="json")
