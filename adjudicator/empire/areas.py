"""The board's provinces as areas, for the map picture: each province's
outline, where its name, supply centre and unit are drawn, and where a
fleet on each of a split province's coasts stands, with the coast's
name. Read from maps/<map>-areas.yaml (written by tools/empire_areas.py
from its grid of cells); a map without one is drawn as its diagram."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

Point = tuple[float, float]
NAME_SIZE = 16  # of a province's name on the map, in pixels


@dataclass(frozen=True)
class Coast:
    unit: Point  # where a fleet on it stands
    name: Point  # where its name (nc, sc, ec) is written


@dataclass(frozen=True)
class Area:
    abbr: str
    outline: tuple[Point, ...]
    name: Point | None  # the middle of its name (none: land no unit enters)
    unit: Point | None
    dot: Point | None  # its supply centre
    coasts: dict[str, Coast]
    impassable: bool


@dataclass(frozen=True)
class Areas:
    width: float
    height: float
    areas: dict[str, Area]


def _point(xy: list[float] | None) -> Point | None:
    return (float(xy[0]), float(xy[1])) if xy else None


def load_areas(text: str) -> Areas:
    data = yaml.safe_load(text)
    areas = {}
    for abbr, spec in data["areas"].items():
        coasts = {c: Coast(_point(s["unit"]), _point(s["name"]))  # type: ignore[arg-type]
                  for c, s in (spec.get("coasts") or {}).items()}  # fmt: skip
        areas[abbr] = Area(abbr, tuple((float(x), float(y)) for x, y in spec["outline"]),
                           _point(spec.get("name")), _point(spec.get("unit")),
                           _point(spec.get("dot")), coasts,
                           bool(spec.get("impassable", False)))  # fmt: skip
    return Areas(float(data["width"]), float(data["height"]), areas)


@cache
def shipped_areas(name: str) -> Areas | None:
    """The areas of the shipped map ``name``, or None if it has none."""
    path = resources.files("adjudicator.empire").joinpath("maps", f"{name}-areas.yaml")
    if not path.is_file():
        return None
    return load_areas(path.read_text(encoding="utf-8"))


def spots(areas: Areas, to_px: Callable[[float, float], Point]) -> dict[str, Point]:
    """Where each province's unit stands, in pixels, and a fleet on each
    coast of a split province (``spa/sc``)."""
    out: dict[str, Point] = {}
    for abbr, area in areas.areas.items():
        if area.unit:
            out[abbr] = to_px(*area.unit)
        for coast, c in area.coasts.items():
            out[f"{abbr}/{coast}"] = to_px(*c.unit)
    return out
