"""The tables of Strategic Initiative, read once from data/units.yaml: unit
and city types, attack multipliers, technology and command points. The
engine asks these; it never tests a unit's name."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

import yaml

# the clock (RULINGS.md): a tick is 15 game-minutes
MINUTES_PER_TICK = 15
TICKS_PER_DAY = 96
MOBILITY_EVERY = 16  # ticks 16, 32, ...: mobility and healing
MOBILITY_MOST = 3  # times the table's mobility
SUPPLY_RANGE = 5
HEAL_IN_CITY = Fraction(40, 100)
HEAL_IN_SUPPLY = Fraction(20, 100)
CAPTURE_HP = 4  # a capture costs this many HP; a unit with no more cannot capture
MEMORY_TICKS = 96  # a unit once seen is remembered this long (subs: SUB_MEMORY_TICKS)
SUB_MEMORY_TICKS = 32
NOTICE_TICKS = 96  # Friendly (or Allied) to Neutral or War takes effect this much later
GAME_TICKS = 960  # the default length
MINIMAL_ATTACK = 2
LEVELS = ("war", "neutral", "friendly", "allied")  # lowest first


@dataclass(frozen=True)
class UnitType:
    key: str
    name: str
    short: str
    domain: str  # land, sea, air, space, missile, amphibious
    built_in: str
    tech: int
    cost: int
    mobility: int
    sight: int | str  # squares, or "radar"
    attack: int
    ammo: int
    flak: int
    hp: int
    attacks: frozenset[str]
    supplies: frozenset[str] = frozenset()
    capital: bool = False
    sees_subs: int | None = None
    carries: tuple[tuple[str, int], ...] = ()
    part: int = 1
    flags: frozenset[str] = field(default_factory=frozenset)  # stealth, light, ...
    watch: tuple[tuple[str, int], ...] = ()  # interception and interdiction ranges (data)
    bombs: int = 0  # a bomber's percentage of remaining HP against a land square (part 2)
    blast: int | None = None  # an ICBM's blast radius (part 2)

    def watches(self, role: str) -> int | None:
        """The range of one of the unit's watches (intercept, ships, subs,
        escort, coast: data/units.yaml), or None if it has none."""
        for name, reach in self.watch:
            if name == role:
                return reach
        return None

    @property
    def land(self) -> bool:
        return self.domain in ("land", "amphibious")

    @property
    def ship(self) -> bool:
        return self.domain == "sea"

    @property
    def power(self) -> int:
        """What it counts toward the power limit (zeppelins nothing)."""
        return 0 if "no_power" in self.flags else self.cost


@dataclass(frozen=True)
class CityType:
    key: str
    name: str
    flak: int
    cannon: int
    sight: int | str  # squares, "radar" or "base_radar"
    supplies: frozenset[str]
    halves_land_damage: bool = False
    technology: bool = False
    command: int = 1  # command points a tick
    builds_nothing: bool = False
    needs_coast: bool = False
    refuels: str = ""  # the air units refuelled there: "all", "light" (part 2), "" none


@dataclass(frozen=True)
class Minimal:
    """One case of the minimal attack (section 5): attackers and defenders
    (unit types), only as a counter-attack, only against a unit over water,
    only by a unit that cannot see submarines; ``why`` names it."""

    attackers: frozenset[str]
    defenders: frozenset[str] | None  # None: any
    counter: bool
    at_sea: bool
    blind: bool
    why: str


@dataclass(frozen=True, eq=False)  # one object, read once: hashed by identity
class Tables:
    units: dict[str, UnitType]
    cities: dict[str, CityType]
    groups: dict[str, frozenset[str]]
    multipliers: tuple[tuple[frozenset[str], frozenset[str], int], ...]
    technology_per_day: tuple[Fraction, ...]
    technology_most: int
    costs: dict[str, int]
    command_start: int
    command_most: int
    per_tick_least: int
    per_tick_most: int
    minimal: tuple[Minimal, ...] = ()

    def unit(self, key: str) -> UnitType:
        return self.units[key]

    def multiplier(self, attacker: str, defender: str) -> int:
        """The largest multiplier of ``attacker``'s type against
        ``defender``'s (1 if none applies)."""
        return _multiplier(self, attacker, defender)

    def technology_gain(self, centres: int) -> Fraction:
        """Technology gained a day with ``centres`` tech centres."""
        table = self.technology_per_day
        return table[min(centres, len(table) - 1)]

    def buildable(self, designation: str) -> list[UnitType]:
        """The unit types a city of ``designation`` builds, cheapest first."""
        if self.cities[designation].builds_nothing:
            return []
        found = [u for u in self.units.values() if u.built_in == designation]
        return sorted(found, key=lambda u: (u.tech, u.cost, u.key))

    def by_name(self, word: str) -> UnitType | None:
        """A unit type by what a player types: its name, key or short id
        prefix, any case, spaces, dashes or underscores alike."""
        return _names(self).get(_word(word))


def _word(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


@cache
def _names(t: Tables) -> dict[str, UnitType]:
    out: dict[str, UnitType] = {}
    for u in t.units.values():
        for w in (u.key, u.name, u.short if u.short != "icbm" else u.key):
            out.setdefault(_word(w), u)
        out.setdefault(_word(u.name) + "s", u)  # plural
    return out


@cache
def _multiplier(t: Tables, attacker: str, defender: str) -> int:
    best = 1
    for a, d, factor in t.multipliers:
        if attacker in a and defender in d:
            best = max(best, factor)
    return best


def _unit(key: str, row: dict[str, Any]) -> UnitType:
    known = {"name", "short", "domain", "built_in", "tech", "cost", "mobility", "sight",
             "attack", "ammo", "flak", "hp", "attacks", "supplies", "capital", "sees_subs",
             "carries", "part", "watch", "bombs", "blast"}  # fmt: skip
    flags = frozenset(k for k, v in row.items() if k not in known and v)
    return UnitType(
        key=key,
        name=row["name"],
        short=row["short"],
        domain=row["domain"],
        built_in=row["built_in"],
        tech=int(row["tech"]),
        cost=int(row["cost"]),
        mobility=int(row["mobility"]),
        sight=row["sight"],
        attack=int(row["attack"]),
        ammo=int(row["ammo"]),
        flak=int(row.get("flak", 0)),
        hp=int(row["hp"]),
        attacks=frozenset(row.get("attacks") or ()),
        supplies=frozenset(row.get("supplies") or ()),
        capital=bool(row.get("capital")),
        sees_subs=row.get("sees_subs"),
        carries=tuple(sorted((row.get("carries") or {}).items())),
        part=int(row.get("part", 1)),
        flags=flags,
        watch=tuple(sorted((row.get("watch") or {}).items())),
        bombs=int(row.get("bombs", 0)),
        blast=None if row.get("blast") is None else int(row["blast"]),
    )


def _city(key: str, row: dict[str, Any]) -> CityType:
    return CityType(
        key=key,
        name=row["name"],
        flak=int(row.get("flak", 0)),
        cannon=int(row.get("cannon", 0)),
        sight=row["sight"],
        supplies=frozenset(row.get("supplies") or ()),
        halves_land_damage=bool(row.get("halves_land_damage")),
        technology=bool(row.get("technology")),
        command=int(row.get("command", 1)),
        builds_nothing=bool(row.get("builds_nothing")),
        needs_coast=bool(row.get("needs_coast")),
        refuels=str(row.get("refuels", "")),
    )


@cache
def tables() -> Tables:
    """The tables, read once."""
    text = resources.files("adjudicator.strategic").joinpath("data", "units.yaml").read_text()
    data = yaml.safe_load(text)
    units = {k: _unit(k, v) for k, v in data["units"].items()}
    groups = {k: frozenset(v) for k, v in data["groups"].items()}

    def members(word: str) -> frozenset[str]:
        return groups.get(word, frozenset({word}))

    multipliers = tuple(
        (members(m["attacker"]), members(m["defender"]), int(m["factor"]))
        for m in data["multipliers"]
    )
    command = data["command"]
    minimal = tuple(
        Minimal(
            members(m["attacker"]),
            members(m["defender"]) if "defender" in m else None,
            bool(m.get("counter")),
            bool(m.get("at_sea")),
            bool(m.get("blind")),
            str(m["why"]),
        )
        for m in data.get("minimal_attacks") or ()
    )
    return Tables(
        units=units,
        cities={k: _city(k, v) for k, v in data["cities"].items()},
        groups=groups,
        multipliers=multipliers,
        technology_per_day=tuple(Fraction(str(x)) for x in data["technology_per_day"]),
        technology_most=int(data["technology_most"]),
        costs=dict(command["costs"]),
        command_start=int(command["start"]),
        command_most=int(command["most"]),
        per_tick_least=int(command["per_tick_least"]),
        per_tick_most=int(command["per_tick_most"]),
        minimal=minimal,
    )
