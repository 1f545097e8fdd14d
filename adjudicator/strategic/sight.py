"""The fog of war: what each nation sees, what it remembers, and the view of
the position it is given (rules, sections 1, 7 and 15; RULINGS.md).

Pure functions over a :class:`State`. A tick calls, once, after its last
step: ``look = Survey(state)``; ``seen = all_visible(state, look)``;
``remember(state, seen, destroyed, look)``; then ``views(state, seen,
look)`` for the reports (or ``view(state, nation, seen)`` for one), and
``witnesses(seen, square)`` gives the ``visible_to`` of an event at a square.

Part 2: whether a unit in a seen square is seen is one per-unit test
(:meth:`Survey.sees`): a submarine (a type with the ``stealth`` flag) is
seen only where a unit whose type ``sees_subs`` reaches it (of the nation
or of one sharing its sight); it is also seen by the nation it attacks and
by the nation whose ship or plane tries to enter its square (both remember
it: :func:`reveal`). A launched satellite sees its table sight around its
target for its owner (and, as every eye, for those sharing its sight).

What a nation sees:

* every square within the sight of its units (the table's ``sight``;
  ``radar``: the nation's radar radius) and of its cities (1; a tech centre
  its radar, 2 + tech // 3; a base tech // 3, at least 1), the square itself
  included; a carried unit sees nothing of its own;
* plus what every nation Friendly or Allied toward it sees with its own
  units and cities (section 15: "If a nation friendly to you sees an enemy
  unit, you will see it as well"). Sharing is one step: what a friend sees
  through its own friends is not passed on, or two nations at war could see
  each other's squares through a common friend.

What a nation remembers (RULINGS.md, Memory): a unit once seen is shown where
and as it was last seen until 96 ticks after that (subs: 32), or until that
square is seen again without it; a unit seen destroyed is forgotten.

Public to everyone (a ruling): the board (land and water) and every city's
name and square. A city's owner and designation only where it is seen now;
another nation's builds never.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from functools import cache
from operator import attrgetter, itemgetter
from typing import Any

from adjudicator.base import Standing, View
from adjudicator.strategic import supply
from adjudicator.strategic.board import full_fuel
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.places import Places
from adjudicator.strategic.reach import spread
from adjudicator.strategic.rules import MEMORY_TICKS, SUB_MEMORY_TICKS, tables
from adjudicator.strategic.state import (
    City,
    Nation,
    Satellite,
    Sighting,
    State,
    Unit,
    relation,
)

SHARING = frozenset({"friendly", "allied"})  # levels at which a nation shares its sight

Seen = Mapping[str, frozenset[int]]  # squares seen now, by nation

# --------------------------------------------------------------------------
# Sight ranges


def radar_radius(tech: Fraction) -> int:
    """A tech centre's radar (and a carrier's sight): 2 + floor(tech / 3)
    (section 1; RULINGS.md overrides section 7's "half")."""
    return 2 + int(tech // 3)


def base_radius(tech: Fraction) -> int:
    """A base's radar: floor(tech / 3), at least 1 (RULINGS.md)."""
    return max(1, int(tech // 3))


RADII: dict[str, Callable[[Fraction], int]] = {"radar": radar_radius, "base_radar": base_radius}


def _radius(sight: int | str, tech: Fraction) -> int:
    """A table's sight: a number of squares or the name of a radar."""
    return RADII[sight](tech) if isinstance(sight, str) else int(sight)


def unit_sight(state: State, unit: Unit) -> int | None:
    """The squares a unit sees around it, or None if it sees nothing of its
    own (a carried unit, or one of no nation in play)."""
    nation = state.nations.get(unit.owner)
    if unit.carried_by is not None or nation is None:
        return None
    r = _fixed_sights().get(unit.kind)  # most types: a number, whatever the technology
    return r if r is not None else _radius(tables().unit(unit.kind).sight, nation.tech)


@cache
def _fixed_sights() -> dict[str, int]:
    """The sight of each unit type that sees a number of squares (not a
    radar's, which grows with technology), by type: interception asks a
    unit's sight thousands of times a tick."""
    return {k: int(t.sight) for k, t in tables().units.items() if not isinstance(t.sight, str)}


def city_sight(state: State, city: City) -> int | None:
    """The squares a city sees around it (None: a neutral city sees for
    nobody)."""
    nation = state.nations.get(city.owner) if city.owner else None
    if nation is None:
        return None
    return _radius(tables().cities[city.designation].sight, nation.tech)


# --------------------------------------------------------------------------
# Squares seen


def disc(grid: Grid, square: int, radius: int) -> set[int]:
    """The squares within ``radius`` of ``square`` (the same squares as
    ``grid.within``)."""
    return spread(grid, [square], radius)


def lookouts(
    state: State,
    names: Iterable[str] | None = None,
    by_owner: Mapping[str, list[Unit]] | None = None,
) -> dict[str, dict[int, int]]:
    """For each nation (of ``names``; all by default), the squares it sees
    from and the farthest sight from each (several units on one square
    count once). ``by_owner``: the units grouped by owner in the state's
    order (:attr:`Survey.by_owner`), if at hand: each nation's are read
    without asking whose each unit is."""
    out: dict[str, dict[int, int]] = {name: {} for name in (names or state.nations)}
    units = tables().units
    if by_owner is not None:
        for name, spots in out.items():
            nation = state.nations.get(name)
            if nation is None:
                continue
            kinds: dict[str, int] = {}  # the sight of each unit type of the nation
            for unit in by_owner.get(name, ()):
                if unit.carried_by is not None:  # as unit_sight, inline
                    continue
                r = kinds.get(unit.kind)
                if r is None:
                    r = kinds[unit.kind] = _radius(units[unit.kind].sight, nation.tech)
                if spots.get(unit.square, -1) < r:
                    spots[unit.square] = r
        return _note_cities(state, out)
    radii: dict[str, dict[str, int]] = {}  # by nation, by unit type: 5,000 units a tick
    for unit in state.units.values():
        spots = out.get(unit.owner)
        if spots is None or unit.carried_by is not None:  # as unit_sight, inline
            continue
        kinds = radii.get(unit.owner)
        if kinds is None:
            kinds = radii[unit.owner] = {}
        r = kinds.get(unit.kind)
        if r is None:
            nation = state.nations.get(unit.owner)
            if nation is None:
                continue
            r = kinds[unit.kind] = _radius(units[unit.kind].sight, nation.tech)
        if spots.get(unit.square, -1) < r:
            spots[unit.square] = r
    return _note_cities(state, out)


def _note_cities(state: State, out: dict[str, dict[int, int]]) -> dict[str, dict[int, int]]:
    """The cities and the satellites added to :func:`lookouts` (each
    nation's sight from each designation worked out once)."""
    radii: dict[tuple[str | None, str], int | None] = {}
    for city in state.cities.values():
        key = (city.owner, city.designation)
        r = radii.get(key, -1)
        if r == -1:
            r = radii[key] = city_sight(state, city)
        _note(out, city.owner, city.square, r)
    for sat in state.satellites.values():
        _note(out, sat.owner, sat.square, satellite_sight(sat))
    return out


def satellite_sight(sat: Satellite) -> int:
    """A launched satellite's sight around its target: its table sight."""
    return _radius(tables().unit(sat.kind).sight, Fraction(0))


def _note(out: dict[str, dict[int, int]], owner: str | None, square: int, r: int | None) -> None:
    spots = out.get(owner) if owner is not None else None
    if spots is not None and r is not None and spots.get(square, -1) < r:
        spots[square] = r


def own_sight(
    state: State,
    names: Iterable[str] | None = None,
    by_owner: Mapping[str, list[Unit]] | None = None,
) -> dict[str, set[int]]:
    """What each nation (of ``names``; all by default) sees with its own
    units and cities (``by_owner``: as :func:`lookouts`)."""
    grid = state.grid
    out = {}
    for name, spots in lookouts(state, names, by_owner).items():
        by_radius: dict[int, list[int]] = {}
        for square, r in spots.items():
            by_radius.setdefault(r, []).append(square)
        squares: set[int] = set()
        for r, centres in sorted(by_radius.items()):
            spread(grid, centres, r, squares)
        out[name] = squares
    return out


def sharers(state: State, nation: str) -> list[str]:
    """The nations whose sight ``nation`` shares: those Friendly or Allied
    toward it (the level in effect from them toward it), in name order."""
    return [
        other
        for other in sorted(state.nations)
        if other != nation and relation(state, other, nation) in SHARING
    ]


def all_visible(state: State, survey: Survey | None = None) -> dict[str, frozenset[int]]:
    """The squares every nation sees now, by nation: its own sight and its
    sharers'. Compute it once a tick and pass it on (``survey``: one of
    this state, if at hand, whose units by owner it reads)."""
    own = own_sight(state, None, survey.by_owner if survey is not None else None)
    return {
        name: frozenset().union(own[name], *(own[s] for s in sharers(state, name)))
        for name in sorted(state.nations)
    }


def visible(state: State, nation: str) -> frozenset[int]:
    """The squares one nation sees now (what :func:`all_visible` gives it)."""
    others = sharers(state, nation)
    own = own_sight(state, [nation, *others])
    return frozenset().union(*own.values())


@cache
def farthest_sight(tech: int | None = None) -> int:
    """The farthest any unit or city sees (radars at technology ``tech``,
    whole levels, by default the highest): how far around a square
    :func:`sees_square` looks (at the best technology of the nations whose
    sight counts: a radar grows with whole levels only)."""
    t = tables()
    top = Fraction(t.technology_most if tech is None else tech)
    sights = [k.sight for k in t.units.values()] + [c.sight for c in t.cities.values()]
    return max(
        s if isinstance(s, int) else RADII[s](top)
        for s in sights
        if isinstance(s, int) or s in RADII
    )


def sees_square(
    state: State, nation: str, square: int, places: Places, lookouts: Iterable[Unit] = ()
) -> bool:
    """Whether ``nation`` sees ``square`` now, with its own units and cities
    and those of the nations sharing their sight with it (the same as
    ``square in visible(state, nation)``, for one square): what an order's
    refusal may tell. ``lookouts``, the order's own units, are tried first
    (they usually stand next to their target)."""
    grid = state.grid
    for unit in lookouts:
        r = unit_sight(state, unit) if unit.owner == nation else None
        if r is not None and grid.distance(unit.square, square) <= r:
            return True
    watch = places.watch  # the index of interception, once a move has made it
    if watch is not None and watch.state is state:
        return bool(watch.sees(places, nation, square))  # the same question, asked faster
    names = {nation, *sharers(state, nation)}
    for sat in state.satellites.values():
        if sat.owner in names and grid.distance(sat.square, square) <= satellite_sight(sat):
            return True
    at, units, cities = places.at, state.units, state.cities
    best = max((state.nations[n].tech for n in names if n in state.nations), default=0)
    near = _disc(grid, square, farthest_sight(int(best)))
    for q in [q for q in near if q in at or q in cities]:  # most squares: nothing there sees
        city, ids = cities.get(q), at.get(q)
        d = grid.distance(q, square)
        if city is not None and city.owner in names and d <= _or_blind(city_sight(state, city)):
            return True
        for uid in ids or ():
            unit = units.get(uid)
            if unit is not None and unit.owner in names and d <= _or_blind(unit_sight(state, unit)):
                return True
    return False


def _disc(grid: Grid, square: int, radius: int) -> list[int]:
    """:meth:`Grid.within` as a list, made in one go: the squares within
    ``radius`` of ``square``, row by row."""
    width, height = grid.width, grid.height
    row, column = divmod(square, width)
    if 2 * radius + 1 >= height:
        rows = [r * width for r in range(height)]
    else:
        rows = [(r % height) * width for r in range(row - radius, row + radius + 1)]
    if 2 * radius + 1 >= width:
        columns: Iterable[int] = range(width)
    else:
        columns = [c % width for c in range(column - radius, column + radius + 1)]
    return [r + c for r in rows for c in columns]


def detects(state: State, nation: str, unit: Unit, places: Places) -> bool:
    """Whether ``nation`` sees ``unit`` now: its own always; another's where
    it sees the unit's square, and a submarine only as :func:`conceals`
    allows (what interception and interdiction ask of a moving unit)."""
    if unit.owner == nation:
        return True
    if unit.kind in stealthy():
        return not conceals(state, nation, unit, places)
    return sees_square(state, nation, unit.square, places)


# --------------------------------------------------------------------------
# Submarines (section 7; RULINGS.md)


@cache
def stealthy() -> frozenset[str]:
    """The unit types seen only by units that see submarines (the
    ``stealth`` flag: the submarine)."""
    return frozenset(k for k, t in tables().units.items() if "stealth" in t.flags)


@cache
def sub_seers() -> dict[str, int]:
    """The range at which each type that sees submarines sees them (the
    table's ``sees_subs``: naval bombers, destroyers, cruisers, submarines,
    helicopters)."""
    return {k: int(t.sees_subs) for k, t in tables().units.items() if t.sees_subs is not None}


def subs_about(state: State) -> bool:
    """Whether any submarine is on the board (asked once a state: a tick
    asks after its builds, the only time submarines appear)."""
    found = state.cache.get("subs_about")
    if found is None:
        hidden = stealthy()
        found = state.cache["subs_about"] = any(u.kind in hidden for u in state.units.values())
    return bool(found)


def conceals(state: State, nation: str, unit: Unit, places: Places) -> bool:
    """Whether ``unit`` is a submarine of another nation (or what one
    carries) that ``nation`` does not see now although it may see its
    square: no unit of ``nation``
    or of a nation sharing its sight sees submarines that far, and it was
    not revealed to ``nation`` there this tick (by attacking it, or by
    being bumped into: :func:`reveal`). Costs nothing for other units."""
    if unit.owner == nation:
        return False
    if unit.kind not in stealthy():
        carrier = _stealthy_carrier(state, unit) if unit.carried_by is not None else None
        if carrier is None:
            return False
        unit = carrier  # what a submarine carries (an ICBM) is hidden with it
    known = state.nations[nation].memory.get(unit.id) if nation in state.nations else None
    if known is not None and known.tick == state.tick and known.square == unit.square:
        return False
    names = {nation, *sharers(state, nation)}
    grid, seers = state.grid, sub_seers()
    for q in grid.within(unit.square, max(seers.values(), default=0)):
        d = grid.distance(q, unit.square)
        for other in places.units_at(q):
            r = seers.get(other.kind)
            if r is not None and d <= r and other.owner in names and other.carried_by is None:
                return False
    return True


def _stealthy_carrier(state: State, unit: Unit) -> Unit | None:
    """The submarine carrying ``unit``, if one does (it is seen only where
    its carrier is)."""
    carrier = state.units.get(unit.carried_by) if unit.carried_by is not None else None
    return carrier if carrier is not None and carrier.kind in stealthy() else None


def reveal(state: State, unit: Unit, nation: str) -> None:
    """``nation`` sees ``unit`` now, where and as it is (a submarine that
    attacked it, or one its ship or plane bumped into): it remembers it
    (for 32 ticks, or until a unit of it that sees submarines looks at
    that square and finds it gone)."""
    if nation in state.nations and nation != unit.owner:
        state.nations[nation].memory[unit.id] = sighting(unit, state.tick)


def bumped(state: State, places: Places, mover: Unit, square: int) -> list[Unit]:
    """The submarines ``mover`` (a ship or a plane) found by trying to enter
    ``square``, where they stopped it (section 7: "An enemy sub will become
    visible to a player's ship or plane that tries to move onto the square
    the enemy sub occupies"): those its nation did not see, now revealed
    to it (remembered), by id."""
    kind = tables().unit(mover.kind)
    if not (kind.ship or kind.domain == "air"):
        return []
    found = [
        u
        for u in places.units_at(square)
        if u.kind in stealthy()
        and relation(state, mover.owner, u.owner) != "allied"
        and conceals(state, mover.owner, u, places)
    ]
    for sub in found:
        reveal(state, sub, mover.owner)
    return sorted(found, key=_id)


def sub_lookouts(state: State) -> dict[str, dict[int, int]]:
    """For each nation, the squares its units that see submarines stand on
    and the farthest each sees them (carried units see nothing)."""
    out: dict[str, dict[int, int]] = {}
    seers = sub_seers()
    for unit in state.units.values():
        r = seers.get(unit.kind)
        if r is None or unit.carried_by is not None:
            continue
        spots = out.setdefault(unit.owner, {})
        if spots.get(unit.square, -1) < r:
            spots[unit.square] = r
    return out


def _or_blind(radius: int | None) -> int:
    return -1 if radius is None else radius


def witnesses(seen: Seen, square: int) -> frozenset[str]:
    """The nations that see ``square`` now: an event there is visible to
    them (and to those it concerns, which the tick adds)."""
    return frozenset(name for name, squares in seen.items() if square in squares)


def witnesses_of(seen: Seen, squares: Iterable[int]) -> frozenset[str]:
    """The nations that see any of ``squares`` (an attack: where the
    attacker stood and the square attacked)."""
    wanted = frozenset(squares)
    return frozenset(name for name, seen_now in seen.items() if not wanted.isdisjoint(seen_now))


# --------------------------------------------------------------------------
# Units seen


class Survey:
    """One look at a state, shared by the memory update and every view of a
    tick: the units by square and by owner, the cities in square order, and
    each entry a view shows made once (entries are shared between views:
    read them, never change them). Make it after the tick's last step; the
    state must not change while it is in use."""

    def __init__(self, state: State) -> None:
        # held weakly: a tick keeps its survey in the state's cache, and a
        # survey holding its state would make a cycle that outlives the
        # tick (5,000 units kept until the collector's next full pass)
        self._state = weakref.ref(state)
        # in the state's order (whoever needs another sorts: a view, by id),
        # by square and by owner in one pass; a square's first unit is kept
        # by itself and a list made only where a second joins it (most
        # squares hold one unit: thousands of lists fewer for the collector)
        self.first_at: dict[int, Unit] = {}
        self.more_at: dict[int, list[Unit]] = {}  # every unit, where two or more
        self.by_owner: dict[str, list[Unit]] = {}
        first_at, more_at, by_owner = self.first_at, self.more_at, self.by_owner
        for unit in state.units.values():
            square = unit.square
            first = first_at.get(square)
            if first is None:
                first_at[square] = unit
            else:
                here = more_at.get(square)
                if here is None:
                    more_at[square] = [first, unit]
                else:
                    here.append(unit)
            mine = by_owner.get(unit.owner)
            if mine is None:
                by_owner[unit.owner] = [unit]
            else:
                mine.append(unit)
        self.occupied = frozenset(first_at)
        self.cities = [state.cities[sq] for sq in sorted(state.cities)]
        self._city_squares = frozenset(state.cities)
        self._unseen: list[dict[str, Any]] | None = None  # every city unseen, in order
        self._city_at: dict[int, int] = {}  # a city's place in that list, by square
        self._city_owners: dict[str | None, list[int]] = {}  # those places, by owner
        self.nations = [state.nations[name] for name in sorted(state.nations)]
        self._sightings: dict[str, Sighting] = {}
        self._seen: dict[str, tuple[frozenset[int], list[Unit]]] = {}
        self._entries: dict[bool, dict[str, dict[str, Any]]] = {True: {}, False: {}}
        self._own: dict[str, list[dict[str, Any]]] = {}  # own_entries, by nation
        # another nation's (or a neutral) city as a view shows it, by
        # square: seen now (True) or not (False)
        self._city_entries: dict[bool, dict[int, dict[str, Any]]] = {True: {}, False: {}}
        self.name: Callable[[int], str] = state.grid.name
        """A square's name (K12), worked out once a tick (the grid keeps them)."""
        self._held: dict[str | None, int] | None = None
        self._rows: list[tuple[str, Standing, Standing]] | None = None  # standing_rows
        self._supplied: frozenset[str] | None = None
        self._standing: dict[str, dict[str, str]] | None = None
        self._stealthy = stealthy()
        self._sub_spots: dict[str, dict[int, int]] | None = None
        self._sub_sight: dict[str, frozenset[int]] = {}

    @property
    def state(self) -> State:
        """The state looked at (it must outlive its survey)."""
        state = self._state()
        assert state is not None, "a survey is read after its state is gone"
        return state

    def units_seen(self, nation: str, squares: frozenset[int]) -> list[Unit]:
        """The other nations' units ``nation`` sees now, by id."""
        return sorted(self.seen_unsorted(nation, squares), key=_id)

    def seen_unsorted(self, nation: str, squares: frozenset[int]) -> list[Unit]:
        """The same, in no particular order (for callers that sort); found
        once a nation for the same ``squares`` (the memory update and the
        view both ask: read the list, never change it)."""
        found = self._seen.get(nation)
        if found is not None and found[0] is squares:
            return found[1]
        hidden, sees = self._stealthy, self.sees
        first_at, more_get = self.first_at, self.more_at.get
        units: list[Unit] = []
        add = units.append
        for square in squares & self.occupied:
            here = more_get(square)
            if here is None:  # one unit there (most squares)
                unit = first_at[square]
                if (
                    unit.owner != nation
                    and (  # most units: seen where their square is (sees(), inline)
                        (unit.kind not in hidden and unit.carried_by is None)
                        or sees(nation, unit, squares)
                    )
                ):
                    add(unit)
                continue
            for unit in here:
                if unit.owner != nation and (
                    (unit.kind not in hidden and unit.carried_by is None)
                    or sees(nation, unit, squares)
                ):
                    add(unit)
        self._seen[nation] = (squares, units)
        return units

    def sees(self, nation: str, unit: Unit, squares: frozenset[int]) -> bool:
        """Whether ``nation``, seeing ``squares``, sees ``unit``: its own
        always; another's where its square is seen; a submarine only where
        a unit that sees submarines reaches it (:meth:`sub_sight`)."""
        if unit.owner == nation:
            return True
        if unit.square not in squares:
            return False
        if unit.kind not in self._stealthy and (
            unit.carried_by is None or not _stealthy_carrier(self.state, unit)
        ):
            return True
        return unit.square in self.sub_sight(nation)

    def sub_sight(self, nation: str) -> frozenset[int]:
        """The squares where ``nation`` sees submarines now: within the
        ``sees_subs`` range of its units and of those of the nations
        sharing their sight with it (worked out once, when first asked:
        most ticks never ask)."""
        found = self._sub_sight.get(nation)
        if found is None:
            if self._sub_spots is None:
                self._sub_spots = sub_lookouts(self.state)
            state = self.state
            squares: set[int] = set()
            for name in (nation, *sharers(state, nation)):
                by_radius: dict[int, list[int]] = {}
                for square, r in self._sub_spots.get(name, {}).items():
                    by_radius.setdefault(r, []).append(square)
                for r, centres in sorted(by_radius.items()):
                    spread(state.grid, centres, r, squares)
            found = self._sub_sight[nation] = frozenset(squares)
        return found

    def remembers(self, s: Sighting, nation: str, squares: frozenset[int]) -> bool:
        """:func:`still_remembered` for ``nation`` seeing ``squares``: a
        submarine's sighting is forgotten early only where the nation now
        sees submarines (elsewhere it could be there unseen)."""
        if s.kind in self._stealthy:
            return still_remembered(s, self.state.tick, self.sub_sight(nation))
        return still_remembered(s, self.state.tick, squares)

    def sighting(self, unit: Unit) -> Sighting:
        """The unit as seen this tick (one value for every nation seeing it)."""
        found = self._sightings.get(unit.id)
        if found is None:
            found = self._sightings[unit.id] = sighting(unit, self.state.tick)
        return found

    def unit_entry(self, unit: Unit, full: bool) -> dict[str, Any]:
        """A unit as a view shows it: ``full`` to its owner (and the game
        master), else as others see it."""
        made = self._entries[full]
        entry = made.get(unit.id)
        if entry is None:
            entry = made[unit.id] = unit_entry(self.state, unit, full, self.name(unit.square))
            if full:
                entry["supplied"] = unit.id in self.supplied()
                entry["standing"] = self.standing_of().get(unit.id)
        return entry

    def own_entries(self, nation: str) -> list[dict[str, Any]]:
        """Every unit of ``nation`` as its own view shows it (what
        :meth:`unit_entry` gives with ``full``), made in one pass, in the
        state's order (a view sorts them with the rest). The entries are
        made for the nation's first view and kept by nation (not by unit:
        a big tick makes thousands); each call gives a new list of them."""
        made = self._own.get(nation)
        if made is not None:
            return list(made)
        name, supplied, standing = self.name, self.supplied(), self.standing_of()
        out = []
        for unit in self.by_owner.get(nation, ()):
            kind, fuel_full, full_hp = _shown_type(unit.kind)
            out.append({
                "id": unit.id, "kind": unit.kind, "name": kind, "owner": unit.owner,
                "square": unit.square, "at": name(unit.square), "hp": unit.hp,
                "status": "own", "ammo": unit.ammo, "mobility": unit.mobility,
                "fuel": unit.fuel, "fuel_full": fuel_full, "full_hp": full_hp,
                "carried_by": unit.carried_by, "supplied": unit.id in supplied,
                "standing": standing.get(unit.id),
            })  # fmt: skip
        self._own[nation] = out
        return list(out)

    def seen_entries(self, units: list[Unit]) -> list[dict[str, Any]]:
        """Other nations' ``units`` as a view shows them (what
        :meth:`unit_entry` gives without ``full``), each made once for
        every view that sees it, in one pass."""
        made, name, out = self._entries[False], self.name, []
        for unit in units:
            entry = made.get(unit.id)
            if entry is None:
                entry = made[unit.id] = {
                    "id": unit.id, "kind": unit.kind, "name": _shown_type(unit.kind)[0],
                    "owner": unit.owner, "square": unit.square, "at": name(unit.square),
                    "hp": unit.hp, "status": "seen",
                }  # fmt: skip
            out.append(entry)
        return out

    def standing_of(self) -> dict[str, dict[str, str]]:
        """Each unit's standing order ({action, target}: the target square's
        name), worked out once."""
        if self._standing is None:
            self._standing = {
                uid: {"action": s.action, "target": self.name(s.target)}
                for s in self.state.standing
                for uid in s.units
            }
        return self._standing

    def standing_rows(self) -> list[tuple[str, Standing, Standing]]:
        """Each nation's row of the standings, counted (as its own viewer
        sees it) and not (as the others do), made once for every view."""
        if self._rows is None:
            state = self.state
            cities = self.cities_held()
            winners = set(state.outcome.winners) if state.outcome else set()
            self._rows = []
            for n in self.nations:
                measures = (
                    ("cities", cities.get(n.name, 0)),
                    ("units", len(self.by_owner.get(n.name, []))),
                )
                status = "winner" if n.name in winners else n.status
                self._rows.append(
                    (n.name, Standing(n.name, measures, status), Standing(n.name, (), status))
                )
        return self._rows

    def supplied(self) -> frozenset[str]:
        """The ids of the units in supply, worked out once (only when a
        view lists units in full: their owners are told)."""
        if self._supplied is None:
            self._supplied = supply.supplied(self.state)
        return self._supplied

    def cities_held(self) -> dict[str | None, int]:
        """How many cities each nation holds (None: neutral), counted once."""
        if self._held is None:
            self._held = {}
            for c in self.cities:
                self._held[c.owner] = self._held.get(c.owner, 0) + 1
        return self._held

    def city_entries(self, nation: str, squares: frozenset[int]) -> list[dict[str, Any]]:
        """Every city as ``nation``'s view shows it, in square order: its
        own in full, the others known where it sees them now."""
        if self._unseen is None:
            self._unseen = [self.city_entry(c, False) for c in self.cities]
            self._city_at = {c.square: i for i, c in enumerate(self.cities)}
            self._city_owners = _grouped(list(range(len(self.cities))), self._owner_at)
        out, at, cities = list(self._unseen), self._city_at, self.cities
        for square in self._city_squares & squares:
            out[at[square]] = self.city_entry(cities[at[square]], True)
        state = self.state
        for i in self._city_owners.get(nation, ()):
            out[i] = city_entry(state, cities[i], True, mine=True)
        return out

    def _owner_at(self, i: int) -> str | None:
        return self.cities[i].owner

    def city_entry(self, city: City, known: bool) -> dict[str, Any]:
        """Another nation's (or a neutral) city, seen now or not."""
        made = self._city_entries[known]
        entry = made.get(city.square)
        if entry is None:
            entry = made[city.square] = city_entry(self.state, city, known, mine=False)
        return entry


@cache
def _shown_type(key: str) -> tuple[str, int, int]:
    """What a unit's full entry shows of its type: its name, its fuel when
    refuelled, its full HP."""
    kind = tables().units[key]
    return kind.name, full_fuel(kind), kind.hp


def _grouped(units: list[Unit], key: Callable[[Unit], Any]) -> dict[Any, list[Unit]]:
    """``units`` by ``key``, in their order within each (the keys in the
    order first met)."""
    out: dict[Any, list[Unit]] = {}
    for unit in units:
        k = key(unit)
        group = out.get(k)
        if group is None:
            out[k] = [unit]
        else:
            group.append(unit)
    return out


def units_seen(state: State, nation: str, squares: frozenset[int]) -> list[Unit]:
    """The other nations' units ``nation`` sees now, by id."""
    return Survey(state).units_seen(nation, squares)


_id = attrgetter("id")


# --------------------------------------------------------------------------
# Memory


def memory_ticks(kind: str) -> int:
    """How long a unit of this type is remembered after it was last seen:
    96 ticks, a stealthy one (the submarine) 32 (section 7: 24 and 8 hours)."""
    return SUB_MEMORY_TICKS if "stealth" in tables().unit(kind).flags else MEMORY_TICKS


def sighting(unit: Unit, tick: int) -> Sighting:
    """A unit as it is seen now: made bare and each field set, as the
    dataclass's own __init__ does (it does nothing else: a big tick makes
    well over a thousand, and this makes them a fifth faster)."""
    new = _bare(Sighting)
    new.unit = unit.id
    new.owner = unit.owner
    new.kind = unit.kind
    new.square = unit.square
    new.hp = unit.hp
    new.tick = tick
    return new


_bare = object.__new__


def still_remembered(s: Sighting, tick: int, squares: frozenset[int]) -> bool:
    """Whether a sighting still stands at ``tick`` for a nation seeing
    ``squares`` and not seeing the unit: it is forgotten 96 ticks (subs 32)
    after it was made, and when its square is seen without the unit."""
    return tick - s.tick < memory_ticks(s.kind) and s.square not in squares


def remember(
    state: State,
    seen: Seen,
    destroyed: Mapping[str, frozenset[str] | None] | None = None,
    survey: Survey | None = None,
) -> None:
    """Update every nation's memory at the end of a tick (``state.tick`` is
    the tick just run; the tick's own copy of the state is changed): each
    unit it sees now is remembered as it is now; an older sighting is kept
    while :func:`still_remembered`. ``destroyed`` maps the id of each unit
    destroyed this tick to the nations that saw it destroyed (the
    ``visible_to`` of that event; None: everyone): they forget it at once."""
    look = survey or Survey(state)
    gone = destroyed or {}
    made, tick = look._sightings, state.tick  # look.sighting(), inline: thousands a tick
    for nation in look.nations:
        squares = seen.get(nation.name, frozenset())
        now = {}
        for u in look.seen_unsorted(nation.name, squares):
            found = made.get(u.id)
            if found is None:
                found = made[u.id] = sighting(u, tick)
            now[u.id] = found
        kept = {
            s.unit: s
            for s in nation.memory.values()
            if s.unit not in now
            and not _saw_it_destroyed(gone, s.unit, nation.name)
            and look.remembers(s, nation.name, squares)
        }
        kept.update(now)
        nation.memory = {uid: kept[uid] for uid in sorted(kept)}


def _saw_it_destroyed(
    destroyed: Mapping[str, frozenset[str] | None], unit: str, nation: str
) -> bool:
    if unit not in destroyed:
        return False
    witnessed = destroyed[unit]
    return witnessed is None or nation in witnessed


def recalled(
    state: State,
    nation: str,
    squares: frozenset[int],
    present: set[str],
    survey: Survey | None = None,
) -> list[Sighting]:
    """The remembered units ``nation`` does not see now (``present``: the
    ids it sees), by id, as its view shows them (the same test as
    :func:`remember`, so a view made before the memory is updated shows
    nothing stale)."""
    look = survey or Survey(state)
    return [
        s
        for s in state.nations[nation].memory.values()
        if s.unit not in present and look.remembers(s, nation, squares)
    ]


# --------------------------------------------------------------------------
# Views


def view(
    state: State, nation: str | None, seen: Seen | None = None, survey: Survey | None = None
) -> View:
    """What ``nation`` may see of the position (None: the game master, who
    sees everything; a name that is no nation's: an observer, who sees
    what is public). ``seen`` is :func:`all_visible` of this state (computed
    if not given). ``View.board`` holds plain data: see :func:`board_for`."""
    look = survey or Survey(state)
    if nation is None:
        board = master_board(look)
    elif nation not in state.nations:
        board = observer_board(look)
    else:
        squares = seen[nation] if seen is not None else visible(state, nation)
        board = board_for(look, nation, squares)
    return View("strategic", state.tick, "tick", standings(look, nation), (), board)


def views(state: State, seen: Seen, survey: Survey | None = None) -> dict[str, View]:
    """Every nation's view of the state, by nation (made together: they
    share one :class:`Survey`)."""
    look = survey or Survey(state)
    return {n.name: view(state, n.name, seen, look) for n in look.nations}


def _public(state: State) -> dict[str, Any]:
    """What every nation may see: the board's size and land (public: a ruling)."""
    grid = state.grid
    return {"width": grid.width, "height": grid.height, "grid": grid, "land": state.board.land}


def board_for(look: Survey, nation: str, squares: frozenset[int]) -> dict[str, Any]:
    """A nation's view: the board; ``seen``, the squares it sees now; its own
    units and cities in full; the others' units it sees now (id, kind,
    owner, square, hp) and those it remembers (with the tick last seen);
    every city's name and square, with owner and designation where seen;
    its nation in full; the other nations' names and relations toward it."""
    state = look.state
    others = look.seen_unsorted(nation, squares)
    units = look.own_entries(nation)
    units += look.seen_entries(others)
    present = {u.id for u in others}
    units += [
        memory_entry(s, look.name(s.square))
        for s in recalled(state, nation, squares, present, look)
    ]
    return {
        **_public(state),
        "viewer": nation,
        "seen": squares,
        "units": sorted(units, key=itemgetter("id")),
        "cities": look.city_entries(nation, squares),
        "nation": nation_entry(state, state.nations[nation]),
        "nations": [other_entry(state, o, nation) for o in look.nations if o.name != nation],
        "standing": standing_entries(look, nation),
        "satellites": satellite_entries(look, nation),
        **_devastation(state, devastated_seen(state, nation, squares)),
    }


def satellite_entries(look: Survey, nation: str | None) -> list[dict[str, Any]]:
    """The launched satellites ``nation`` owns (None: every one, for the
    game master): nobody else sees them. Each: id, owner, its target square
    (and its name), the radius it sees, the tick it went up."""
    return [
        {
            "id": sat.id,
            "owner": sat.owner,
            "square": sat.square,
            "at": look.name(sat.square),
            "radius": satellite_sight(sat),
            "tick": sat.tick,
        }  # fmt: skip
        for sat in sorted(look.state.satellites.values(), key=_id)
        if nation is None or sat.owner == nation
    ]


def _devastation(state: State, squares: frozenset[int]) -> dict[str, Any]:
    """A view's devastated squares (``devastated``) and their names in
    board order (``devastated_at``)."""
    return {"devastated": squares, "devastated_at": [state.grid.name(q) for q in sorted(squares)]}


def devastated_seen(state: State, nation: str | None, squares: frozenset[int]) -> frozenset[int]:
    """The devastated squares a nation is shown (a ruling): those it sees
    now, and every square of the blasts it launched itself or that
    devastated a city of its (None: the game master, every one)."""
    if not state.blasts:
        return frozenset()
    everywhere = state.devastated()
    if nation is None:
        return everywhere
    grid = state.grid
    own = {
        q
        for b in state.blasts
        if b.nation == nation or nation in b.hit
        for q in grid.within(b.square, b.radius)
    }
    return frozenset((everywhere & squares) | own)


def standing_entries(look: Survey, nation: str | None) -> list[dict[str, Any]]:
    """The standing orders of ``nation`` (None: every nation's), in the
    order they go on: who gives it, its units, move or attack, the target
    square's name."""
    return [
        {
            "nation": s.nation,
            "units": list(s.units),
            "action": s.action,
            "target": look.name(s.target),
        }  # fmt: skip
        for s in look.state.standing
        if nation is None or s.nation == nation
    ]


def observer_board(look: Survey) -> dict[str, Any]:
    """An observer's view: only what is public (the board, every city's
    name and square) and the nations' names and colours; no unit, no
    owner of a city. Once the game is over, everything (as standings)."""
    if look.state.outcome is not None:
        return master_board(look)
    return {
        **_public(look.state),
        "viewer": None,
        "seen": frozenset(),
        "units": [],
        "cities": [look.city_entry(c, False) for c in look.cities],
        "nation": None,
        "nations": [{"name": n.name, "colour": n.colour, "status": n.status} for n in look.nations],
        "standing": [],
        "satellites": [],
        **_devastation(look.state, frozenset()),
    }


def master_board(look: Survey) -> dict[str, Any]:
    """The game master's view: everything."""
    state = look.state
    return {
        **_public(state),
        "viewer": None,
        "seen": frozenset(range(state.grid.size)),
        "units": [look.unit_entry(u, full=True) for u in sorted(state.units.values(), key=_id)],
        "cities": [city_entry(state, c, True, mine=True) for c in look.cities],
        "nation": None,
        "nations": [nation_entry(state, n) for n in look.nations],
        "standing": standing_entries(look, None),
        "satellites": satellite_entries(look, None),
        **_devastation(state, devastated_seen(state, None, frozenset())),
    }


def unit_entry(state: State, unit: Unit, full: bool, at: str | None = None) -> dict[str, Any]:
    """A unit as a view shows it (``at``: its square's name, if known):
    ``full`` (its owner's, or the game master's) adds ammo, mobility, fuel
    (and ``fuel_full``, its fuel when refuelled: 0 for a unit that burns
    none), full HP and what carries it."""
    kind = tables().units[unit.kind]
    at = at or state.grid.name(unit.square)
    if not full:
        return {"id": unit.id, "kind": unit.kind, "name": kind.name, "owner": unit.owner,
                "square": unit.square, "at": at, "hp": unit.hp, "status": "seen"}  # fmt: skip
    return {"id": unit.id, "kind": unit.kind, "name": kind.name, "owner": unit.owner,
            "square": unit.square, "at": at, "hp": unit.hp, "status": "own",
            "ammo": unit.ammo, "mobility": unit.mobility, "fuel": unit.fuel,
            "fuel_full": full_fuel(kind), "full_hp": kind.hp,
            "carried_by": unit.carried_by}  # fmt: skip


def memory_entry(s: Sighting, at: str) -> dict[str, Any]:
    """A remembered unit: where (``at``: the square's name) and as it was
    last seen, and when."""
    return {
        "id": s.unit,
        "kind": s.kind,
        "name": tables().unit(s.kind).name,
        "owner": s.owner,
        "square": s.square,
        "at": at,
        "hp": s.hp,
        "status": "remembered",
        "tick": s.tick,
    }


def city_entry(state: State, city: City, known: bool, mine: bool) -> dict[str, Any]:
    """A city as a view shows it: name and square always (public); owner
    and designation if ``known`` (seen now, or ``mine``); the builds and
    progress only if ``mine`` (its owner's view, or the game master's)."""
    entry: dict[str, Any] = {
        "name": city.name,
        "square": city.square,
        "at": state.grid.name(city.square),
        "known": known,
        "owner": city.owner if known else None,
        "designation": city.designation if known else None,
    }
    if mine:
        entry["build"] = city.build
        entry["next_build"] = city.next_build
        entry["progress"] = city.progress
        if city.build is None and city.owner is not None:  # taken from a neutral, say
            entry["starts"] = _first_build(state, city)
    return entry


def _first_build(state: State, city: City) -> str | None:
    """What a city of its owner that builds nothing starts at the next
    tick (economy.complete_builds): the cheapest unit its designation
    allows, or None (none within the owner's technology; a base)."""
    from adjudicator.strategic.economy import cheapest  # it asks nothing of sight

    assert city.owner is not None
    first = cheapest(state.nations[city.owner], city.designation)
    return None if first is None else first.key


def nation_entry(state: State, n: Nation) -> dict[str, Any]:
    """A nation in full, as its player (or the game master) sees it."""
    others = [o for o in sorted(state.nations) if o != n.name]
    return {
        "name": n.name,
        "colour": n.colour,
        "status": n.status,
        "command": n.command,
        "tech": n.tech,
        "radar": radar_radius(n.tech),
        "declared": dict(sorted(n.declared.items())),
        # relation() of each other nation, read inline (never n itself)
        "relations": {o: n.relations.get(o, "neutral") for o in others},
        "toward_you": {o: state.nations[o].relations.get(n.name, "neutral") for o in others},
        "pending": [{"due": p.due, "toward": p.toward, "level": p.level} for p in n.pending],
    }


def other_entry(state: State, other: Nation, nation: str) -> dict[str, Any]:
    """Another nation as ``nation`` sees it: its name, colour, whether it is
    still in the game, and its relation toward ``nation``."""
    return {
        "name": other.name,
        "colour": other.colour,
        "status": other.status,
        "toward_you": (  # relation(), inline: every view asks it of every nation
            other.relations.get(nation, "neutral") if other.name != nation else "allied"
        ),
    }


def standings(look: Survey, nation: str | None) -> tuple[Standing, ...]:
    """Every nation with its status; its cities and units counted for the
    viewer only (others' strength is hidden: a ruling), for everyone once
    the game has ended, and for the game master."""
    every = nation is None or look.state.outcome is not None
    return tuple(
        shown if every or name == nation else hidden for name, shown, hidden in look.standing_rows()
    )


# --------------------------------------------------------------------------
# A view as text


def describe(v: View) -> str:
    """A view as plain text, for a report or a game master's look: the
    nation, its units and cities, what it sees and what it remembers."""
    board = v.board
    lines = [f"Tick {v.turn}"]
    if board["nation"] is not None:
        lines += _describe_nation(board["nation"])
    units = board["units"]
    lines += _section("Units", [_describe_unit(e) for e in units if e["status"] == "own"])
    lines += _section("In sight", [_describe_unit(e) for e in units if e["status"] == "seen"])
    lines += _section(
        "Remembered", [_describe_unit(e) for e in units if e["status"] == "remembered"]
    )
    lines += _section("Cities", [_describe_city(c) for c in board["cities"] if c["known"]])
    lines += _section("Satellites", [
        f"{s['id']} over {s['at']}, seeing {s['radius']} squares around it (since tick {s['tick']})"
        for s in board.get("satellites", ())
    ])  # fmt: skip
    wasted = board.get("devastated_at", ())
    lines += _section("Devastated", [", ".join(wasted)] if wasted else [])
    return "\n".join(lines) + "\n"


def _describe_nation(n: Mapping[str, Any]) -> list[str]:
    tech = n["tech"]
    lines = [
        f"{n['name']}: command points {n['command']}, technology {float(tech):.2f}, "
        f"radar {n['radar']}"
    ]
    for other, level in n["relations"].items():
        lines.append(f"  toward {other}: {level} (theirs toward you: {n['toward_you'][other]})")
    return lines


def _section(title: str, rows: list[str]) -> list[str]:
    return [f"{title}:", *(f"  {r}" for r in rows)] if rows else []


def _describe_unit(e: Mapping[str, Any]) -> str:
    text = f"{e['id']} {e['owner']} {e['name']} at {e['at']}, HP {e['hp']}"
    if e["status"] == "own" or "ammo" in e:
        text += f"/{e['full_hp']}, ammo {e['ammo']}, mobility {e['mobility']}"
        if e["carried_by"]:
            text += f", aboard {e['carried_by']}"
    if e["status"] == "remembered":
        text += f" (last seen tick {e['tick']})"
    return text


def _describe_city(c: Mapping[str, Any]) -> str:
    owner = c["owner"] or "neutral"
    text = f"{c['name']} at {c['at']}: {owner} {tables().cities[c['designation']].name}"
    if "build" in c:
        building = (c["build"] or "nothing").replace("_", " ")
        text += f", building {building} ({c['progress']} min)"
        if c["next_build"]:
            text += f", then {c['next_build'].replace('_', ' ')}"
    return text
