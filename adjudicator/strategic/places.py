"""Where things are, indexed by square, for the war steps of a tick (moving,
attacking, supply): which units stand in a square and which supply sources
stand near one, without scanning every unit for every question.

A tick builds one :class:`Places` after its builds (step 2) and hands it to
every standing order and order it runs; moving and combat keep it up to date
(:meth:`Places.moved`, :meth:`Places.removed`). Built from a state, it holds
unit ids only: what it answers is always read back from the state, so a
unit's HP, ammo or owner need no bookkeeping here.
"""

from __future__ import annotations

from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import State, Unit


class Places:
    """Units by square, and the squares of the units and cities that supply
    each domain (``"land"``, ``"sea"``: the data's ``supplies`` fields)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self._at: dict[int, list[str]] = {}
        self.unit_sources: dict[str, dict[int, list[str]]] = {}
        self.city_sources: dict[str, frozenset[int]] = {}
        kinds = tables().units
        for unit in sorted(state.units.values(), key=lambda u: u.id):
            self._at.setdefault(unit.square, []).append(unit.id)
            for domain in sorted(kinds[unit.kind].supplies):
                self.unit_sources.setdefault(domain, {}).setdefault(unit.square, []).append(unit.id)
        cities = tables().cities
        for domain in ("land", "sea"):
            self.city_sources[domain] = frozenset(
                sq for sq, c in state.cities.items() if domain in cities[c.designation].supplies
            )

    def ids_at(self, square: int) -> list[str]:
        """The ids of the units in a square (do not change the list)."""
        return self._at.get(square, [])

    def units_at(self, square: int) -> list[Unit]:
        """The units in a square, most recently built first (then lowest id)."""
        units = self.state.units
        found = [units[i] for i in self._at.get(square, ()) if i in units]
        return sorted(found, key=lambda u: (-u.built, u.id))

    def moved(self, unit: Unit, old: int) -> None:
        """``unit`` has gone from ``old`` to ``unit.square``."""
        self._take(self._at, unit.id, old)
        self._at.setdefault(unit.square, []).append(unit.id)
        for domain in sorted(tables().unit(unit.kind).supplies):
            by_square = self.unit_sources[domain]
            self._take(by_square, unit.id, old)
            by_square.setdefault(unit.square, []).append(unit.id)

    def removed(self, unit: Unit) -> None:
        """``unit`` has left the board (destroyed)."""
        self._take(self._at, unit.id, unit.square)
        for domain in sorted(tables().unit(unit.kind).supplies):
            self._take(self.unit_sources[domain], unit.id, unit.square)

    @staticmethod
    def _take(by_square: dict[int, list[str]], unit_id: str, square: int) -> None:
        ids = by_square.get(square)
        if ids and unit_id in ids:
            ids.remove(unit_id)
            if not ids:
                del by_square[square]
