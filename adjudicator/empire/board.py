"""The Diplomacy map: provinces, coasts, who may move where.

A *location* is where a unit stands: a province (``par``), or for a fleet in
a province with several coasts, the province and its coast (``spa/sc``).
Armies move along ``army`` links between land provinces; fleets along
``fleet`` links between seas and coasts. Links are read once and hold both
ways. The map file is ours (maps/standard.yaml)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from importlib import resources

import yaml

from adjudicator.base import GameError

COAST_WORDS = {
    "nc": "nc", "north coast": "nc", "north": "nc",
    "sc": "sc", "south coast": "sc", "south": "sc",
    "ec": "ec", "east coast": "ec", "east": "ec",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Province:
    abbr: str
    name: str
    kind: str  # land, coast, sea
    supply: bool
    coasts: tuple[str, ...]
    aliases: tuple[str, ...]
    x: float
    y: float


@dataclass(frozen=True)
class Power:
    name: str
    adjective: str
    letter: str
    homes: tuple[str, ...]
    units: tuple[tuple[str, str], ...]  # (A or F, location)


@dataclass(frozen=True)
class Board:
    name: str
    title: str
    powers: tuple[Power, ...]
    provinces: tuple[Province, ...]
    army_links: tuple[tuple[str, str], ...]
    fleet_links: tuple[tuple[str, str], ...]

    @cached_property
    def province(self) -> dict[str, Province]:
        return {p.abbr: p for p in self.provinces}

    @cached_property
    def power(self) -> dict[str, Power]:
        return {p.name: p for p in self.powers}

    @cached_property
    def army_adj(self) -> dict[str, frozenset[str]]:
        adj: dict[str, set[str]] = {p.abbr: set() for p in self.provinces}
        for a, b in self.army_links:
            adj[a].add(b)
            adj[b].add(a)
        return {k: frozenset(v) for k, v in adj.items()}

    @cached_property
    def fleet_adj(self) -> dict[str, frozenset[str]]:
        adj: dict[str, set[str]] = {}
        for a, b in self.fleet_links:
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)
        return {k: frozenset(v) for k, v in adj.items()}

    @cached_property
    def supply_centres(self) -> tuple[str, ...]:
        return tuple(sorted(p.abbr for p in self.provinces if p.supply))

    @cached_property
    def home_of(self) -> dict[str, str]:
        return {h: p.name for p in self.powers for h in p.homes}

    @cached_property
    def names(self) -> dict[str, str]:
        """Every way to write a province: abbreviation, name, aliases."""
        out: dict[str, str] = {}
        for p in self.provinces:
            for word in (p.abbr, p.name, *p.aliases):
                out[_key(word)] = p.abbr
        return out

    def lookup(self, text: str) -> str | None:
        """The province a typed name means, or None."""
        return self.names.get(_key(text))

    def label(self, province: str) -> str:
        """A province for people: "Liverpool (LVP)"."""
        return f"{self.province[province].name} ({province.upper()})"

    def locations(self, province: str) -> tuple[str, ...]:
        p = self.province[province]
        return tuple(f"{p.abbr}/{c}" for c in p.coasts) or (p.abbr,)

    def can_move(self, kind: str, origin: str, target: str) -> bool:
        """Whether a unit of ``kind`` (A, F) at location ``origin`` may move
        to location ``target`` in one step (no convoy)."""
        if kind == "A":
            a, b = province_of(origin), province_of(target)
            return self.province[b].kind != "sea" and b in self.army_adj.get(a, ())
        return target in self.fleet_adj.get(origin, ())

    def fleet_reaches(self, origin: str, province: str) -> tuple[str, ...]:
        """The locations of ``province`` a fleet at ``origin`` can move to."""
        return tuple(
            loc for loc in self.locations(province) if loc in self.fleet_adj.get(origin, ())
        )

    def reaches(self, kind: str, origin: str, province: str) -> bool:
        """Whether a unit could move to (or support into) ``province``."""
        if kind == "A":
            return self.can_move("A", origin, province)
        return bool(self.fleet_reaches(origin, province))


def province_of(location: str) -> str:
    return location.split("/")[0]


def _key(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def load_board(text: str, source: str = "map") -> Board:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise GameError(f"{source}: not valid YAML: {exc}") from None
    provinces = []
    for abbr, spec in data["provinces"].items():
        x, y = spec["at"]
        provinces.append(
            Province(
                abbr,
                spec["name"],
                spec["type"],
                bool(spec.get("supply", False)),
                tuple(spec.get("coasts", ())),
                tuple(spec.get("aliases", ())),
                float(x),
                float(y),
            )
        )
    known = {p.abbr: p for p in provinces}
    problems: list[str] = []

    def links(block: str, fleet: bool) -> tuple[tuple[str, str], ...]:
        out = []
        for line in block.strip().splitlines():
            head, _, rest = line.partition(":")
            for other in rest.split():
                for loc in (head.strip(), other):
                    prov, _, coast = loc.partition("/")
                    if prov not in known or (coast and coast not in known[prov].coasts):
                        problems.append(f"{source}: unknown location {loc!r}")
                    elif fleet and not coast and known[prov].coasts:
                        problems.append(f"{source}: a fleet link to {prov} needs its coast")
                out.append((head.strip(), other))
        return tuple(out)

    army = links(data["army"], False)
    fleet = links(data["fleet"], True)
    powers = tuple(
        Power(
            name,
            spec["adjective"],
            spec["letter"],
            tuple(spec["homes"]),
            tuple((u.split()[0], u.split()[1]) for u in spec["units"]),
        )
        for name, spec in data["powers"].items()
    )
    if problems:
        raise GameError("\n".join(problems))
    return Board(data["name"], data["title"], powers, tuple(provinces), army, fleet)


def shipped_maps() -> tuple[str, ...]:
    files = resources.files("adjudicator.empire").joinpath("maps")
    names = (p.name for p in files.iterdir())  # a map's areas are not a map
    return tuple(sorted(n[:-5] for n in names if n.endswith(".yaml") and "-areas" not in n))


_CACHE: dict[str, Board] = {}


def shipped_board(name: str = "standard") -> Board:
    if name not in shipped_maps():
        raise GameError(f"no map named {name!r}; shipped maps: {', '.join(shipped_maps())}")
    if name not in _CACHE:
        path = resources.files("adjudicator.empire").joinpath("maps", f"{name}.yaml")
        _CACHE[name] = load_board(path.read_text(encoding="utf-8"), f"{name}.yaml")
    return _CACHE[name]
