"""The orders of Strategic Initiative, as values. Reading them from the
words players write comes in orders_text.py; running them, in the tick."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudicator.base import Order


@dataclass(frozen=True, slots=True)
class Build(Order):
    """Set a city's current build (``next`` False: the designation follows
    the unit type and the progress is lost) or its next build."""

    city: str = ""
    kind: str = ""  # a key of the unit table, or a designation (base); "" clears the next build
    next: bool = False

    @property
    def unit(self) -> str | None:
        return f"city:{self.city.lower()}:{'next' if self.next else 'build'}"

    def canonical(self) -> str:
        if not self.kind:
            return f"clear next build in {self.city}"
        return f"{'next ' if self.next else ''}build {self.kind.replace('_', ' ')} in {self.city}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "build", "city": self.city, "kind": self.kind, "next": self.next}


@dataclass(frozen=True, slots=True)
class Move(Order):
    """Move units (one or a group) to a square; beyond today's mobility the
    rest becomes a standing order."""

    units: tuple[str, ...] = ()
    target: int = 0
    target_name: str = ""
    left_out: tuple[str, ...] = ()  # named, but launched, never moved: left out at receipt

    @property
    def unit(self) -> str | None:
        return None  # received order: every move runs, in order

    def canonical(self) -> str:
        return f"move {' '.join(self.units)} to {self.target_name}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "move", "units": list(self.units), "target": self.target_name}


@dataclass(frozen=True, slots=True)
class Attack(Order):
    """Attack a square with a group of units: each moves next to it, then
    attacks, one unit after another."""

    units: tuple[str, ...] = ()
    target: int = 0
    target_name: str = ""
    left_out: tuple[str, ...] = ()  # named, but never attack (attack 0): left out at receipt

    @property
    def unit(self) -> str | None:
        return None

    def canonical(self) -> str:
        return f"attack {self.target_name} with {' '.join(self.units)}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "attack", "units": list(self.units), "target": self.target_name}


@dataclass(frozen=True, slots=True)
class Cancel(Order):
    """Drop the standing order of a unit."""

    of: str = ""  # a unit id

    @property
    def unit(self) -> str | None:
        return None

    def canonical(self) -> str:
        return f"cancel {self.of}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "cancel", "unit": self.of}


@dataclass(frozen=True, slots=True)
class Declare(Order):
    """Declare a relation (war, neutral, friendly, allied) toward a nation."""

    toward: str = ""
    level: str = "neutral"

    @property
    def unit(self) -> str | None:
        return None

    def canonical(self) -> str:
        if self.level == "war":  # as players write it
            return f"declare war on {self.toward}"
        return f"declare {self.level} toward {self.toward}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "declare", "toward": self.toward, "level": self.level}


@dataclass(frozen=True, slots=True)
class Status(Order):
    """Ask for a full situation report at the next tick."""

    @property
    def unit(self) -> str | None:
        return "status"

    def canonical(self) -> str:
        return "status"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "status"}


# -- carrying and engineers (part 2: carrying.py, engineering.py) -----------------


@dataclass(frozen=True, slots=True)
class Load(Order):
    """Units board a carrier in their square or next to it (``carrier``
    "": the one unit of theirs there that can carry them); an ICBM goes
    aboard an engineer or submarine in its square."""

    units: tuple[str, ...] = ()
    carrier: str = ""

    @property
    def unit(self) -> str | None:
        return None

    def canonical(self) -> str:
        on = f" on {self.carrier}" if self.carrier else ""
        return f"load {' '.join(self.units)}{on}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "load", "units": list(self.units), "carrier": self.carrier}


@dataclass(frozen=True, slots=True)
class Unload(Order):
    """Carried units (a carrier: all it carries) leave it: set down in its
    square (``target_name`` ""), or moved to a square."""

    units: tuple[str, ...] = ()
    target: int = 0
    target_name: str = ""

    @property
    def unit(self) -> str | None:
        return None

    def canonical(self) -> str:
        to = f" to {self.target_name}" if self.target_name else ""
        return f"unload {' '.join(self.units)}{to}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "unload", "units": list(self.units), "target": self.target_name}


@dataclass(frozen=True, slots=True)
class Terrain(Order):
    """An engineer turns its square from land to water or water to land
    (``to``: "land", "water", or "" for the other kind)."""

    engineer: str = ""
    to: str = ""

    @property
    def unit(self) -> str | None:
        return None

    def canonical(self) -> str:
        return f"{self.engineer} makes {self.to}" if self.to else f"terrain {self.engineer}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "terrain", "unit": self.engineer, "to": self.to}


@dataclass(frozen=True, slots=True)
class NewCity(Order):
    """An engineer founds a city on its square (``name`` "": one is made
    up)."""

    engineer: str = ""
    name: str = ""

    @property
    def unit(self) -> str | None:
        return None

    def canonical(self) -> str:
        return f"new city {self.name + ' ' if self.name else ''}with {self.engineer}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "new_city", "unit": self.engineer, "name": self.name}


# -- air units (part 2: air.py, refuelling.py) -------------------------------------


@dataclass(frozen=True, slots=True)
class Refuel(Order):
    """Send air units each to the nearest place it can refuel within its
    fuel (air.py)."""

    units: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()  # named, but need no fuel: left out at receipt

    @property
    def unit(self) -> str | None:
        return None

    def canonical(self) -> str:
        return f"refuel {' '.join(self.units)}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "refuel", "units": list(self.units)}


# -- launching (part 2: launch.py) --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Launch(Order):
    """Launch a spy satellite or an ICBM at a square (once: the unit leaves
    the board)."""

    of: str = ""  # a unit id
    target: int = 0
    target_name: str = ""

    @property
    def unit(self) -> str | None:
        return None

    def canonical(self) -> str:
        return f"launch {self.of} at {self.target_name}"

    def to_dict(self) -> dict[str, Any]:
        return {"order": "launch", "unit": self.of, "target": self.target_name}
