"""Supply and ammunition (rules, sections 8 and 9, with RULINGS.md).

A ship or land unit is in supply within 5 squares (Chebyshev, wrapping) of
a source for its domain, owned by its own nation or one allied with it:
the data's ``supplies`` fields say which city types and unit types supply
which domain (ports and bases and supply ships supply ships; every city,
supply ships, transports and engineers supply land units). A unit that
supplies does so only while it has ammo aboard, and never supplies itself.
A unit whose type is ``always_supplied`` (the patrol boat) counts as in
supply everywhere. Air units have no supply (part 2 gives them refuelling
places instead): :func:`in_supply` says False for them.

A unit in supply is topped up to full ammo from the nearest source (cities
have unlimited ammo; a unit gives from its own, then tops itself up from
its own nearest source, so ammo is pulled along a chain of supply ships
back to a port).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache, lru_cache

from adjudicator.strategic.grid import Grid
from adjudicator.strategic.places import CELL, Places, cells_across, window
from adjudicator.strategic.reach import spread
from adjudicator.strategic.rules import SUPPLY_RANGE, UnitType, tables
from adjudicator.strategic.state import City, State, Unit


def supply_domain(kind: UnitType) -> str | None:
    """Which sources supply units of this type: "sea" for ships, "land"
    for land units (engineers too), None for air, space and missiles."""
    if kind.ship:
        return "sea"
    if kind.land:
        return "land"
    return None


def always_supplied(kind: UnitType) -> bool:
    """The patrol boat "does not require supply" (RULINGS.md: it always
    counts as in supply, and its ammo is refilled wherever it is)."""
    return "always_supplied" in kind.flags


def in_supply(state: State, unit: Unit, places: Places | None = None) -> bool:
    """Whether ``unit`` is in supply where it stands (False for air units:
    they have no supply, part 2 refuels them instead)."""
    domain = _needs(unit.kind)
    if domain is None or domain is True:
        return domain is True
    return _any_source(state, places or Places(state), unit, domain)


@cache
def _needs(key: str) -> str | bool | None:
    """What a unit type needs to be in supply: True if nothing (always in
    supply), None if it has no supply, else the domain of its sources."""
    kind = tables().unit(key)
    return True if always_supplied(kind) else supply_domain(kind)


def supplied(state: State, places: Places | None = None) -> frozenset[str]:
    """The ids of every unit in supply (for healing and the views: one
    index for all). A unit within range of a city of its nation or an ally
    is found in that nation's reach from its cities (:func:`_city_reach`,
    kept while the cities stay as they are); the others are asked of the
    units that supply near them, once a nation, domain and square (units
    stand together), and a unit that is itself a source, which does not
    supply itself, once a unit. ``places`` is not needed."""
    reach = _Reach(state)
    found: list[str] = []
    farther: list[tuple[Unit, str, bool]] = []  # beyond its cities' reach
    near_cities: dict[tuple[str, str], frozenset[int]] = {}
    types: dict[str, tuple[str | None, bool, tuple[str, ...]]] = {}
    for unit in state.units.values():  # one pass: the sources noted, the cities' reach asked
        asks = types.get(unit.kind)
        if asks is None:
            asks = types[unit.kind] = (*_asks(unit.kind), _supplies(unit.kind))
        domain, gives, supplies = asks
        if supplies and unit.ammo > 0:
            reach.add(unit, supplies)
        if domain is None:
            if gives:  # always in supply
                found.append(unit.id)
            continue
        owner = unit.owner
        squares = near_cities.get((owner, domain))
        if squares is None:
            squares = near_cities[owner, domain] = reach.cities(owner, domain)
        if unit.square in squares:
            found.append(unit.id)
        else:
            farther.append((unit, domain, gives))
    known: dict[tuple[str, str, int], bool] = {}
    for unit, domain, gives in farther:
        if gives:
            if reach.other_source(unit, domain):
                found.append(unit.id)
            continue
        key = (unit.owner, domain, unit.square)
        answer = known.get(key)
        if answer is None:
            answer = known[key] = reach.other_source(unit, domain)
        if answer:
            found.append(unit.id)
    return frozenset(found)


class _Reach:
    """Where the sources of a state supply: the squares within range of
    each nation's cities and its allies', by domain; and the units that
    supply, with ammo aboard, by cell of the board (as :class:`Places`
    keeps them), looked at around a square once all are added."""

    def __init__(self, state: State) -> None:
        self.state = state
        grid = state.grid
        self._owned = _city_reach(grid, _city_key(state))
        self._reach: dict[tuple[str, str], frozenset[int]] = {}
        self._allies: dict[str, tuple[str, ...]] = {}
        self._width, self._across = grid.width, cells_across(grid.width)
        self._columns, self._rows = window(grid.width), window(grid.height)
        self._cells: dict[str, dict[int, list[Unit]]] = {"land": {}, "sea": {}}

    def add(self, unit: Unit, domains: tuple[str, ...]) -> None:
        """``unit``, with ammo aboard, supplies ``domains``."""
        row, column = divmod(unit.square, self._width)
        cell = (row // CELL) * self._across + column // CELL
        for domain in domains:
            self._cells.setdefault(domain, {}).setdefault(cell, []).append(unit)

    def allies(self, nation: str) -> tuple[str, ...]:
        """The nations whose sources supply ``nation``'s units: itself and
        those it is allied toward."""
        found = self._allies.get(nation)
        if found is None:
            state = self.state
            others = sorted(state.nations) if nation in state.nations else []
            found = (nation, *(o for o in others if o != nation and _shares(state, nation, o)))
            self._allies[nation] = found
        return found

    def cities(self, nation: str, domain: str) -> frozenset[int]:
        """The squares in range of the cities of ``nation`` and its allies
        that supply ``domain``."""
        key = (nation, domain)
        found = self._reach.get(key)
        if found is None:
            allies, owned = self.allies(nation), self._owned
            if len(allies) == 1:
                found = owned.get((nation, domain), frozenset())
            else:
                found = frozenset().union(*(owned.get((a, domain), ()) for a in allies))
            self._reach[key] = found
        return found

    def other_source(self, unit: Unit, domain: str) -> bool:
        """Whether a unit of ``unit``'s nation or an ally that supplies
        ``domain``, other than ``unit``, with ammo aboard, is in range."""
        distance, square = self.state.grid.distance, unit.square
        allies, by_cell, across = self.allies(unit.owner), self._cells[domain], self._across
        row, column = divmod(square, self._width)
        columns = self._columns[column]
        for r in self._rows[row]:
            for c in columns:
                for src in by_cell.get(r * across + c, ()):
                    if (
                        src is not unit
                        and src.owner in allies
                        and distance(square, src.square) <= SUPPLY_RANGE
                    ):
                        return True
        return False


def _city_key(state: State) -> tuple[tuple[int, str, str], ...]:
    """What decides where cities supply: each owned city's square, owner
    and designation."""
    return tuple(
        (c.square, c.owner, c.designation) for c in state.cities.values() if c.owner is not None
    )


@lru_cache(maxsize=4)
def _city_reach(
    grid: Grid, cities: tuple[tuple[int, str, str], ...]
) -> dict[tuple[str, str], frozenset[int]]:
    """The squares within supply range of each nation's cities, by nation
    and domain (kept for the next ticks: cities seldom change hands)."""
    centres: dict[tuple[str, str], list[int]] = {}
    designations = tables().cities
    for square, owner, designation in cities:
        for domain in designations[designation].supplies:
            centres.setdefault((owner, domain), []).append(square)
    return {key: frozenset(spread(grid, squares, SUPPLY_RANGE)) for key, squares in centres.items()}


@cache
def _asks(key: str) -> tuple[str | None, bool]:
    """What :func:`supplied` asks of a unit type: the domain of its sources
    (None: always in supply, or no supply), and whether it is itself a
    source of that domain (for None: whether always in supply)."""
    domain = _needs(key)
    if domain is None or domain is True:
        return None, domain is True
    return domain, _gives(key, domain)


@cache
def _supplies(key: str) -> tuple[str, ...]:
    """The domains a unit type is a source for."""
    return tuple(sorted(tables().unit(key).supplies))


@cache
def _gives(key: str, domain: str) -> bool:
    """Whether a unit type is a source of supply for ``domain``."""
    return domain in tables().unit(key).supplies


def top_up(state: State, unit: Unit, places: Places | None = None) -> int:
    """Fill ``unit``'s ammo from the nearest source in range if it is in
    supply; a unit that gives ammo then tops itself up the same way.
    Returns the ammo ``unit`` gained."""
    kind = tables().unit(unit.kind)
    if unit.ammo >= kind.ammo:
        return 0
    if always_supplied(kind):
        gained = kind.ammo - unit.ammo
        unit.ammo = kind.ammo
        return gained
    domain = supply_domain(kind)
    if domain is None:
        return 0
    return _pull(state, places or Places(state), unit, kind.ammo, domain, frozenset())


def top_up_all(state: State, places: Places | None = None) -> None:
    """Step 1 of a tick: every unit in supply short of ammo is topped up,
    in the order of unit ids."""
    places = places or Places(state)
    units = tables().units
    for unit_id in sorted(state.units):
        unit = state.units.get(unit_id)
        if unit is not None and unit.ammo < units[unit.kind].ammo:
            top_up(state, unit, places)


def _pull(
    state: State, places: Places, unit: Unit, full: int, domain: str, chain: frozenset[str]
) -> int:
    """Take ammo for ``unit`` from its nearest sources until full or none
    is left in range; ``chain`` holds the units already pulling (a unit
    never pulls back from one it is giving to)."""
    chain = chain | {unit.id}
    gained = 0
    while unit.ammo < full:
        source = _nearest(state, places, unit, domain, chain)
        if source is None:
            break
        give = full - unit.ammo if isinstance(source, City) else min(full - unit.ammo, source.ammo)
        unit.ammo += give
        gained += give
        if isinstance(source, Unit):
            source.ammo -= give
            kind = tables().unit(source.kind)
            if not always_supplied(kind):
                _pull(state, places, source, kind.ammo, supply_domain(kind) or domain, chain)
    return gained


def _nearest(
    state: State, places: Places, unit: Unit, domain: str, chain: Collection[str]
) -> City | Unit | None:
    """The nearest source in range of ``unit`` for ``domain`` (a city before
    a unit at the same distance, then by square and id), or None: the
    least of their keys, kept while looking, no list made and sorted."""
    distance, square, owner = state.grid.distance, unit.square, unit.owner
    best: tuple[int, int, int, str] | None = None
    nearest: City | Unit | None = None
    cities, designations = state.cities, tables().cities
    for sq in places.cities_near(square):
        city = cities.get(sq)
        if city is None or city.owner is None or not _shares(state, owner, city.owner):
            continue
        if domain not in designations[city.designation].supplies:
            continue
        d = distance(square, sq)
        if d <= SUPPLY_RANGE and (best is None or (d, 0, sq, "") < best):
            best, nearest = (d, 0, sq, ""), city
    units = state.units
    for uid in places.suppliers_near(domain, square):
        src = units.get(uid)
        if src is None or uid == unit.id or uid in chain or src.ammo <= 0:
            continue
        d = distance(square, src.square)
        if d <= SUPPLY_RANGE and _shares(state, owner, src.owner):
            key = (d, 1, src.square, uid)
            if best is None or key < best:
                best, nearest = key, src
    return nearest


def _any_source(state: State, places: Places, unit: Unit, domain: str) -> bool:
    """Whether any source for ``domain`` is in range (the first found):
    the cities near it first, then the units that supply."""
    distance, square, owner = state.grid.distance, unit.square, unit.owner
    cities, designations = state.cities, tables().cities
    for sq in places.cities_near(square):
        city = cities.get(sq)
        if city is None or city.owner is None:
            continue
        if city.owner != owner and not _shares(state, owner, city.owner):
            continue  # its own nation's cities always share
        if domain in designations[city.designation].supplies:
            if distance(square, sq) <= SUPPLY_RANGE:
                return True
    units, relations = state.units, None
    for uid in places.suppliers_near(domain, square):
        src = units.get(uid)
        if src is None or uid == unit.id or src.ammo <= 0:
            continue
        if src.owner != owner:  # _shares(), inline: most sources near are others'
            if relations is None:
                relations = state.nations[owner].relations
            if relations.get(src.owner, "neutral") != "allied":
                continue
        if distance(square, src.square) <= SUPPLY_RANGE:
            return True
    return False


def _shares(state: State, nation: str, owner: str) -> bool:
    """Allies share supply (section 15); a nation supplies itself (what
    ``state.relation`` says, read here without the call: a tick asks this
    of thousands of sources)."""
    return nation == owner or state.nations[nation].relations.get(owner, "neutral") == "allied"
