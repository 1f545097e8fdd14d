"""Territory maps: states with a name a person can type, a place on the
picture, the troops each starts with (a neutral state regenerates up to
these) and its production per tick. Commands may target any state of the
map (RULINGS.md: armies travel across it), so a map has no connections.

Maps are YAML files (maps/france.yaml: 30 states) or generated
deterministically from a count and a seed (:func:`generate`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import Any

from adjudicator import yamltext
from adjudicator.base import GameError, Rng

NAME = re.compile(r"^[A-Za-z][A-Za-z' -]{0,30}[A-Za-z]$")


@dataclass(frozen=True, slots=True)
class Place:
    name: str
    x: float
    y: float
    troops: int  # at the start, and the most a neutral state regenerates to
    production: int  # troops per tick


@dataclass(frozen=True)
class Map:
    name: str
    title: str
    states: tuple[Place, ...]

    @cached_property
    def state(self) -> dict[str, Place]:
        return {s.name: s for s in self.states}

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.states)

    @cached_property
    def _keys(self) -> dict[str, str]:
        return {s.name.lower(): s.name for s in self.states}

    def lookup(self, word: str) -> tuple[str | None, tuple[str, ...]]:
        """(the state a typed name means, or None; the candidates): the
        name in any case, or a prefix only one state has."""
        w = " ".join(word.strip().lower().split())
        if w in self._keys:
            return self._keys[w], ()
        starts = tuple(sorted(v for k, v in self._keys.items() if k.startswith(w)))
        if len(starts) == 1:
            return starts[0], ()
        return None, starts

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "states": [[s.name, s.x, s.y, s.troops, s.production] for s in self.states],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Map:
        return cls(data["name"], data["title"], tuple(Place(*s) for s in data["states"]))


def load_map(text: str, source: str = "map") -> Map:
    try:
        data = yamltext.load(text)
    except yamltext.YamlError as exc:
        raise GameError(f"{source}, line {exc.line}: not valid YAML: {exc.message}") from None
    problems: list[str] = []

    def bad(where: Any, key: Any, message: str) -> None:
        problems.append(f"{source}, line {yamltext.line_of(where, key)}: {message}")

    if not isinstance(data, dict):
        raise GameError(f"{source}: a map is a mapping with name, title and states")
    raw = data.get("states")
    if not isinstance(raw, dict) or len(raw) < 7:
        raise GameError(f"{source}: states must map at least 7 state names to their data")
    places = []
    seen: set[str] = set()
    for name, spec in raw.items():
        if not isinstance(name, str) or not NAME.match(name):
            bad(raw, name, f"{name!r} is not a state name a player can type")
            continue
        if name.lower() in seen:
            bad(raw, name, f"{name} is listed twice")
        seen.add(name.lower())
        if not isinstance(spec, dict):
            bad(raw, name, f"{name}: give at, troops and production")
            continue
        at, troops, prod = spec.get("at"), spec.get("troops"), spec.get("production")
        if not (
            isinstance(at, list) and len(at) == 2 and all(isinstance(v, int | float) for v in at)
        ):
            bad(spec, "at", f"{name}: at must be [x, y]")
            continue
        if not isinstance(troops, int) or isinstance(troops, bool) or not 0 <= troops <= 10_000:
            bad(spec, "troops", f"{name}: troops must be a whole number from 0 to 10000")
            continue
        if not isinstance(prod, int) or isinstance(prod, bool) or not 0 <= prod <= 1000:
            bad(spec, "production", f"{name}: production must be a whole number from 0 to 1000")
            continue
        places.append(Place(name, float(at[0]), float(at[1]), troops, prod))
    if problems:
        raise GameError("\n".join(problems))
    return Map(str(data.get("name", source)), str(data.get("title", source)), tuple(places))


def shipped_maps() -> tuple[str, ...]:
    files = resources.files("adjudicator.territory").joinpath("maps")
    return tuple(sorted(p.name[:-5] for p in files.iterdir() if p.name.endswith(".yaml")))


def shipped_map(name: str) -> Map:
    if name not in shipped_maps():
        raise GameError(f"no map named {name!r}; shipped maps: {', '.join(shipped_maps())}")
    path = resources.files("adjudicator.territory").joinpath("maps", f"{name}.yaml")
    return load_map(path.read_text(encoding="utf-8"), source=f"{name}.yaml")


_SYLLABLES = (
    "ar bel cor dun el fal gar hol is jor kel lor".split()
    + "mar nor os pel quin ros sal tor ur val wen zar".split()
)


def generate(count: int, seed: int) -> Map:
    """A map of ``count`` states (7 to 500), deterministic in the seed:
    names from syllables, places on a jittered grid, troops 5 to 25,
    production 1 to 3."""
    if not 7 <= count <= 500:
        raise GameError(f"a generated Territory map has 7 to 500 states, not {count}")
    rng = Rng(seed)
    side = 1
    while side * side < count:
        side += 1
    cells = rng.shuffled([(i, j) for i in range(side) for j in range(side)])[:count]
    names: set[str] = set()
    places = []
    for i, j in cells:
        name = ""
        while not name or name.lower() in names:
            name = "".join(rng.choice(_SYLLABLES) for _ in range(2 + rng.below(2))).capitalize()
        names.add(name.lower())
        x = round((i + 0.2 + rng.below(60) / 100) * 100 / side, 1)
        y = round((j + 0.2 + rng.below(60) / 100) * 100 / side, 1)
        places.append(Place(name, x, y, 5 + rng.below(21), 1 + rng.below(3)))
    return Map(f"generated-{count}-{seed}", f"A land of {count} states", tuple(places))
