"""Interception and interdiction (rules, sections 4, 11 and 12; RULINGS.md).

Moving calls :func:`watch` once after each square a unit enters. Units
watching near that square may act, unordered and free of command points,
when the mover belongs to a nation their own is not Friendly or Allied
toward (no war is needed):

* a ship entering a square is **interdicted** by battleships, cruisers and
  destroyers within 2 and carriers within 1 that see it (submarines: by
  destroyers within 1 and cruisers within 2, as their nation sees them); a
  destroyer or cruiser within 2 of a capital ship of its own nation goes
  after submarines only. The interdictor needs supply, ammo, 3 HP, some
  mobility (even next to the mover: it attacks) and the mobility to reach
  a square next to the mover by a shortest path; it
  pays, moves there (its moving triggers nothing) and fires once;
* a naval bomber interdicts a ship at sea within 5 (a submarine within 1)
  that its nation sees: it flies out to a square next to the ship, paying
  mobility and fuel for the way out only (enemy fighters may intercept it
  on the way: it then breaks off), attacks with its attack value, takes the
  ship's counter-attack at the minimal attack 2, and is back where it
  started;
* a tank next to a sea square an enemy ship enters fires once (ammo, no
  mobility); the ship counter-attacks only if it can hit land units;
* a land or air unit entering a square without flak within 5 of fighters
  that their nation sees it in is **intercepted** by the nearest free
  fighter with 3 HP, ammo, and the fuel and mobility to reach the square:
  it pays the way out only and is back where it started; an air unit
  counter-attacks it, a land unit does not. Within one order each fighter
  takes one mover (:func:`sortie`: fighters first, then bombers).

Interdictors act nearest first (then by id) while the mover lives; one
fighter intercepts. A mover fired on stops in that square: its move ends
there (:func:`watch` says why). Nothing an interceptor or interdictor does
triggers interception or interdiction, but a naval bomber's way out.

What watches is data (units.yaml, ``watch``). The watchers are kept by
cells of the board (:class:`Watchers`, kept up to date by
:class:`~adjudicator.strategic.places.Places`); those that may act on an
order's units are gathered once for a block of the board and kept by
square entered, while no watcher of another nation moves
(:meth:`Watchers.near`): a square entered costs a few lookups.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from functools import cache

from adjudicator.base import Event, Rng
from adjudicator.strategic import diplomacy, firing, paths, sight, supply, units
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.places import Places, kept
from adjudicator.strategic.resolve import Happened
from adjudicator.strategic.rules import UnitType, tables
from adjudicator.strategic.state import State, Unit, relation

WATCH_HP = 3  # "Planes with only 1 or 2 hp will not intercept" (and ships: RULINGS.md)
FRIENDS = frozenset({"friendly", "allied"})  # levels at which a nation's units let movers pass
AIR, SEA = "air", "sea"  # what a watcher watches: land and air movers, or ships


# -- the index -------------------------------------------------------------------


@cache
def _watches(kind: str) -> tuple[str, int] | None:
    """What a unit type watches, AIR (it intercepts) or SEA (it interdicts
    or fires from the coast), and how far at most; or None."""
    t = tables().unit(kind)
    reach = t.watches("intercept")
    if reach is not None:
        return AIR, reach
    ranges = [r for role in ("ships", "subs", "coast") if (r := t.watches(role)) is not None]
    return (SEA, max(ranges)) if ranges else None


@cache
def _table() -> dict[str, tuple[str, int] | None]:
    """:func:`_watches` of every unit type, as a dict (asked of thousands
    of units a tick)."""
    return {k: _watches(k) for k in tables().units}


@cache
def _movers() -> dict[str, str]:
    """What watches a moving unit of each type: SEA a ship, AIR a land or
    air unit (none: missiles and satellites)."""
    out = {}
    for k, t in tables().units.items():
        if t.ship:
            out[k] = SEA
        elif t.land or t.domain == "air":
            out[k] = AIR
    return out


class _Layer:
    """Units (or city squares) by cell of the board, cells reach + 1 wide
    (the squares within reach of a square fall in 9 cells at most), and by
    nation in each cell (a unit is never watched by its own nation's:
    those are not even looked at)."""

    def __init__(self, state: State, reach: int) -> None:
        grid = state.grid
        self.size = reach + 1
        self.width = grid.width
        self.across = -(-grid.width // self.size)
        self.columns = _window(grid.width, reach, self.size)
        self.rows = _window(grid.height, reach, self.size)
        self.cells: dict[int, dict[str, tuple[str, ...]]] = {}

    def cell(self, square: int) -> int:
        row, column = divmod(square, self.width)
        return (row // self.size) * self.across + column // self.size

    def put(self, unit: Unit, square: int) -> None:
        row, column = divmod(square, self.width)  # cell(), inline
        cell = (row // self.size) * self.across + column // self.size
        nations = self.cells.get(cell)
        if nations is None:
            self.cells[cell] = {unit.owner: (unit.id,)}
        else:
            nations[unit.owner] = nations.get(unit.owner, ()) + (unit.id,)

    def fill(self, units: list[Unit]) -> None:
        """:meth:`put` each of ``units`` where it stands, in that order."""
        width, size, across, cells = self.width, self.size, self.across, self.cells
        for unit in units:  # put(), inline: a Watchers puts thousands
            row, column = divmod(unit.square, width)
            cell = (row // size) * across + column // size
            nations = cells.get(cell)
            if nations is None:
                cells[cell] = {unit.owner: (unit.id,)}
            else:
                nations[unit.owner] = nations.get(unit.owner, ()) + (unit.id,)

    def take(self, unit: Unit, square: int) -> None:
        cell = self.cell(square)
        nations = self.cells.get(cell)
        ids = nations.get(unit.owner) if nations is not None else None
        if ids and unit.id in ids:  # an id is in a cell once
            i = ids.index(unit.id)
            rest = ids[:i] + ids[i + 1 :]
            if rest:
                nations[unit.owner] = rest  # type: ignore[index]
            else:
                del nations[unit.owner]  # type: ignore[attr-defined]
                if not nations:
                    del self.cells[cell]

    def move(self, unit: Unit, old: int) -> None:
        """``unit`` has gone from ``old`` to ``unit.square``: moved to the
        cell it is in now if that is another."""
        width, size, new = self.width, self.size, unit.square
        if (
            old // width // size != new // width // size
            or old % width // size != new % width // size
        ):
            self.take(unit, old)
            self.put(unit, new)

    def around(self, square: int, skip: Container[str], found: list[str], far: int = 0) -> None:
        """Add to ``found`` the ids in the cells around ``square`` but
        those of the nations in ``skip`` (``far``: of the cells the squares
        up to that far fall in, farther than the layer's reach)."""
        row, column = divmod(square, self.width)
        across, cells = self.across, self.cells
        rows, columns = self.rows, self.columns
        if far:
            rows = _window(len(rows), far, self.size)
            columns = _window(self.width, far, self.size)
        columns = columns[column]
        for r in rows[row]:
            for c in columns:
                nations = cells.get(r * across + c)
                if nations:
                    for owner, ids in nations.items():
                        if owner not in skip:
                            found += ids


class Watchers:
    """The units that watch, by what they watch (AIR, SEA), in a
    :class:`_Layer` each (by cell and nation, cells a block of
    :meth:`near`). Ids only: whatever else is asked is read from the
    state. ``taken``: the fighters that have taken a mover of the order
    moving now (and the planes that broke off against it)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.grid = state.grid
        table = self.table = _table()
        self.layers = {what: _Layer(state, 2 * MARGIN[what]) for what in (AIR, SEA)}
        self.reach = {  # the farthest a watcher of each reaches
            what: max((w[1] for w in table.values() if w and w[0] == what), default=0)
            for what in (AIR, SEA)
        }
        self.taken: set[str] = set()
        # the watchers near the movers of one nation (``planned``), by what
        # they watch and block of the board (:meth:`near`): kept while no
        # watcher of another nation moves, appears or goes, within an order
        self.plans: dict[tuple[str, int, int], tuple[list[Unit], list[int]]] = {}
        self.kept: dict[str, dict[int, Sequence[tuple[Unit, int]]]] = {AIR: {}, SEA: {}}
        self.planned = ""
        # what a nation's units and cities see (:func:`spotted`), kept for the
        # order moving now while nothing that could change it happens: a
        # unit of another nation than the order's (or of the order's nation
        # if it shares its sight) moving, appearing or going; a city taken
        self.sight: dict[tuple[str, int], bool] = {}
        self.mover: str | None = None  # the nation whose order moves now
        self.shares: bool | None = None  # whether it shares its sight (None: not asked yet)
        self.last: tuple[str, int] = ("", -1)  # the unit that moved last, and where to
        # a fighter out and back: what its nation sees is as before, and it
        # watches from where it did (:meth:`_drop`)
        self.hold = False
        # each nation with those sharing its sight (:func:`spotted`), and
        # whether a nation shares its sight with another (:meth:`_shares`),
        # kept while no relation changes (``relations``: diplomacy.changes()
        # when they were last dropped)
        self.names: dict[str, frozenset[str]] = {}
        self.sharing: dict[str | None, bool] = {}
        self.friends: dict[str, frozenset[str]] = {}  # by mover (:meth:`_friends`)
        self.relations = diplomacy.changes(state)
        # the units that may see farther than CLOSE, by nation, and the
        # cities by cell (cells as wide as the farthest radar): spotted
        self.eyes: dict[str, set[str]] = {}
        self.cities = _CityCells(state)
        far, eyes = _far_kinds(), self.eyes
        watching: dict[str, list[Unit]] = {AIR: [], SEA: []}
        for unit in state.units.values():  # the order in a cell matters not: ids are sorted
            w = table[unit.kind]
            if w is not None:
                watching[w[0]].append(unit)
            if unit.kind in far:
                eyes.setdefault(unit.owner, set()).add(unit.id)
        for what, found in watching.items():
            self.layers[what].fill(found)

    def next_order(self) -> None:
        """An order begins: what nations see is asked again, and whether
        the nation moving shares its sight (a walk that is no group's move,
        a refuel or a carrier's, asks without :func:`sortie`)."""
        self.sight.clear()
        self.shares = None
        self._forget()

    def sees(self, places: Places, nation: str, square: int) -> bool:
        """sight.sees_square's question, as :func:`spotted` answers it."""
        return spotted(self.state, places, nation, square, self)

    def changed(self, unit: Unit) -> None:
        """``unit`` moved, appeared or went: what nations see may change."""
        if self.sight and not self.hold and (unit.owner != self.mover or self._shares()):
            self.sight.clear()

    def _shares(self) -> bool:
        """Whether the nation moving now shares its sight with another
        (asked once an order, and only once something is kept; worked out
        once a nation while no relation changes)."""
        if self.shares is None:
            if self.relations != diplomacy.changes(self.state):
                self.relations_changed()
            mover, state = self.mover, self.state
            shares = self.sharing.get(mover)
            if shares is None:
                shares = self.sharing[mover] = mover is None or any(
                    relation(state, mover, n) in sight.SHARING for n in state.nations if n != mover
                )
            self.shares = shares
        return self.shares

    def relations_changed(self) -> None:
        """A relation has changed: who shares whose sight is asked again."""
        self.names.clear()
        self.sharing.clear()
        self.friends.clear()
        self.relations = diplomacy.changes(self.state)

    def added(self, unit: Unit) -> None:
        self.changed(unit)
        if unit.kind in _far_kinds():
            self.eyes.setdefault(unit.owner, set()).add(unit.id)
        w = self.table[unit.kind]
        if w is not None:
            self.layers[w[0]].put(unit, unit.square)
            if self.plans:
                self._drop(unit)

    def removed(self, unit: Unit) -> None:
        self.changed(unit)
        self.eyes.get(unit.owner, set()).discard(unit.id)
        w = self.table[unit.kind]
        if w is not None:
            self.layers[w[0]].take(unit, unit.square)
            if self.plans:
                self._drop(unit)

    def moved(self, unit: Unit, old: int) -> None:
        """Told of every step of every unit: changed() and _drop() inline."""
        hold = self.hold
        if self.sight and not hold:
            if unit.owner != self.mover or (
                self.shares if self.shares is not None else self._shares()
            ):
                self.sight.clear()
        w = self.table[unit.kind]
        if w is not None:
            if self.plans and not hold and unit.owner != self.planned:
                self._forget()
            self.layers[w[0]].move(unit, old)

    def _drop(self, watcher: Unit) -> None:
        """A watcher moved, appeared or went: the plans of another nation's
        movers (which it may watch) are gathered again (not for a fighter
        out and back: it is where it was)."""
        if watcher.owner != self.planned and not self.hold:
            self._forget()

    def _forget(self) -> None:
        """The plans and what they found by square dropped."""
        self.plans.clear()
        for found in self.kept.values():
            found.clear()

    def near(self, what: str, square: int, mover: str) -> Sequence[tuple[Unit, int]]:
        """The units watching ``what`` within their reach of ``square`` that
        may act on a unit of ``mover``'s nation there, each with how far
        it is (the caller reads what changes as they act: HP, ammo,
        mobility, fuel, being carried or taken). Kept by square, from
        plans of blocks of the board (:meth:`_gather`), for the movers of
        one nation; gathered again when a unit of another nation watching
        moves, appears or goes (:meth:`_drop`) and for each order: while a
        unit walks, nothing else moves until a watcher acts, and an
        order's units walk the same way."""
        if mover != self.planned:
            self._forget()
            self.planned = mover
        kept = self.kept[what]
        found = kept.get(square)
        if found is None:
            grid = self.grid
            width, height = grid.width, grid.height
            row, column = divmod(square, width)
            block = 2 * MARGIN[what] + 1
            key = (what, row // block, column // block)
            plan = self.plans.get(key)
            if plan is None:
                plan = self.plans[key] = self._gather(what, key, mover)
            units, reaches = plan
            near: list[tuple[Unit, int]] = []
            for u, reach in zip(units, reaches, strict=True):  # grid.distance, inline
                ur, uc = divmod(u.square, width)
                dc = uc - column if uc > column else column - uc
                dr = ur - row if ur > row else row - ur
                if dc + dc > width:
                    dc = width - dc
                if dr + dr > height:
                    dr = height - dr
                d = dc if dc > dr else dr
                if d <= reach:
                    near.append((u, d))
            # a square with none shares one empty tuple: fewer objects kept
            found = kept[square] = near or ()
        return found

    def _gather(
        self, what: str, key: tuple[str, int, int], mover: str
    ) -> tuple[list[Unit], list[int]]:
        """The watchers of ``what`` within their reach of a square of the
        block ``key`` whose nation is not Friendly or Allied toward
        ``mover`` (relations change between orders only), with their reach
        (those within their reach and MARGIN of the block's middle): the
        units and their reaches, in two lists."""
        margin = MARGIN[what]
        block = 2 * margin + 1
        grid = self.grid
        width, height = grid.width, grid.height
        row, column = (key[1] * block + margin) % height, (key[2] * block + margin) % width
        ids: list[str] = []
        friends = self._friends(mover)
        self.layers[what].around(row * width + column, friends, ids, self.reach[what] + margin)
        units, table = self.state.units, self.table
        near: list[Unit] = []
        reaches: list[int] = []
        for uid in ids:
            u = units.get(uid)
            if u is None:
                continue
            # grid.distance to the middle, inline: a gather measures dozens
            ur, uc = divmod(u.square, width)
            dc = uc - column if uc > column else column - uc
            dr = ur - row if ur > row else row - ur
            if dc + dc > width:
                dc = width - dc
            if dr + dr > height:
                dr = height - dr
            reach = table[u.kind][1]  # type: ignore[index]
            if (dc if dc > dr else dr) <= reach + margin:
                near.append(u)
                reaches.append(reach)
        return near, reaches

    def _friends(self, mover: str) -> frozenset[str]:
        """``mover``'s nation and the nations Friendly or Allied toward it:
        those whose units let its movers pass (kept while no relation
        changes)."""
        if self.relations != diplomacy.changes(self.state):
            self.relations_changed()
        found = self.friends.get(mover)
        if found is None:
            nations = self.state.nations.items()
            found = self.friends[mover] = frozenset(
                [mover] + [o for o, n in nations if n.relations.get(mover) in FRIENDS]
            )
        return found

    def around(self, what: str, square: int, mover: str) -> list[str]:
        """The ids of the units watching ``what`` near ``square`` (every one
        within reach of it among them), but ``mover``'s nation's own."""
        found: list[str] = []
        self.layers[what].around(square, (mover,), found, self.reach[what])
        return found


# the squares of a block of Watchers.near are within MARGIN of its middle
# (blocks 2 x MARGIN + 1 wide): the planes of an order fly the same way,
# a ship sails alone
MARGIN = {AIR: 3, SEA: 2}


class _CityCells:
    """The squares of the cities by cell of the board, cells as wide as the
    farthest any city sees (their owners and designations are read from
    the state when asked: they change)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.layer = _Layer(state, sight.farthest_sight())
        self.squares: dict[int, list[int]] = {}
        self.count = -1  # cities when the cells were made (an engineer may found one)
        self.near: dict[int, tuple[int, ...]] = {}  # around(), by square: cities stay put

    def around(self, square: int) -> tuple[int, ...]:
        """The city squares in the cells around ``square`` (every city
        that may see it among them), worked out once a square."""
        if self.count != len(self.state.cities):
            self.count = len(self.state.cities)
            self.squares = {}
            for sq in sorted(self.state.cities):
                self.squares.setdefault(self.layer.cell(sq), []).append(sq)
            grid, squares = self.state.grid, frozenset(self.state.cities)
            self.near = kept("cities in sight", grid.width, grid.height, squares)
        found = self.near.get(square)
        if found is None:
            layer, squares = self.layer, self.squares
            row, column = divmod(square, layer.width)
            columns = layer.columns[column]
            found = self.near[square] = tuple(
                sq
                for r in layer.rows[row]
                for c in columns
                for sq in squares.get(r * layer.across + c, ())
            )
        return found


@cache
def _window(length: int, reach: int, size: int) -> tuple[tuple[int, ...], ...]:
    """For each coordinate along an edge (wrapping), the cells that the
    coordinates within ``reach`` of it fall in."""
    return tuple(
        tuple(dict.fromkeys((y % length) // size for y in range(x - reach, x + reach + 1)))
        for x in range(length)
    )


def watchers(state: State, places: Places) -> Watchers:
    """The watchers of ``places`` (made the first time a move asks; the
    places keep them up to date as units move, appear and go)."""
    found = places.watch
    if found is None or found.state is not state:
        found = places.watch = Watchers(state)
    return found


def sortie(state: State, places: Places, units: Sequence[Unit]) -> list[Unit]:
    """An order's movers in the order interceptors take them (fighters
    first, then bombers, then the rest, each group as given): "you can
    escort your bombers with fighters and have your fighters absorb the
    defending interceptors". Every fighter is free again for the order."""
    found = watchers(state, places)
    if found.taken:
        found.taken.clear()
    if found.sight:
        found.sight.clear()
    found.mover = units[0].owner if units else None
    found.shares = None
    found.next_order()
    rank = _ranks()
    if len(units) > 1 and any(rank[u.kind] < 2 for u in units):
        return sorted(units, key=lambda u: rank[u.kind])
    return list(units)


@cache
def _ranks() -> dict[str, int]:
    """Who interceptors take first: fighters 0, bombers 1, the rest 2."""
    out = {}
    for k, t in tables().units.items():
        fighter = t.domain == "air" and t.watches("intercept") is not None
        bomber = t.domain == "air" and t.bombs > 0
        out[k] = 0 if fighter else (1 if bomber else 2)
    return out


# -- what happens when a unit enters a square --------------------------------------


def watch(
    state: State, places: Places, unit: Unit, square: int, events: list[Event], rng: Rng
) -> str | None:
    """``unit`` has entered ``square``: the watchers near act. "intercepted"
    or "interdicted" if the unit was fired on there (its move ends: it stops
    in that square, if it lives), else None."""
    what = _movers().get(unit.kind)
    if what is None or unit.carried_by is not None:
        return None
    found = places.watch
    if found is None or found.state is not state:
        found = watchers(state, places)
    if found.last[0] != unit.id and found.last[1] in state.cities:
        found.sight.clear()  # the unit that moved before may have taken a city
    found.last = (unit.id, square)
    # what Watchers.near keeps, read here first: a tick asks it of every square entered
    near = found.kept[what].get(square) if unit.owner == found.planned else None
    if near is None:
        near = found.near(what, square, unit.owner)
    if not near:
        return None
    kind = tables().unit(unit.kind)
    if what == SEA:
        return interdict(state, places, unit, kind, near, events, rng)
    return intercept(state, places, unit, kind, near, events, rng)


def enemy(state: State, watcher: Unit, mover: Unit) -> bool:
    """A mover of a nation the watcher's nation is not Friendly or Allied
    toward (Neutral too: "your units will intercept and interdict units
    belonging to any player you are not Friendly or Allied towards")."""
    return relation(state, watcher.owner, mover.owner) not in FRIENDS


def sees(state: State, places: Places, watcher: Unit, mover: Unit, distance: int) -> bool:
    """Whether the watcher's nation sees the mover: a unit that does not
    hide where the watcher's own sight reaches it or the nation sees its
    square (:func:`spotted`), a hiding one as sight.detects says."""
    if "stealth" in tables().unit(mover.kind).flags:
        return sight.detects(state, watcher.owner, mover, places)
    own = sight.unit_sight(state, watcher)
    if own is not None and distance <= own:
        return True
    found = watchers(state, places)
    if watcher.owner == found.mover:  # its units move now: no answer kept
        return spotted(state, places, watcher.owner, mover.square, found)
    key = (watcher.owner, mover.square)
    known = found.sight.get(key)
    if known is None:
        known = found.sight[key] = spotted(state, places, watcher.owner, mover.square, found)
    return known


CLOSE = 3  # sights this short are looked for square by square around a square


def spotted(
    state: State, places: Places, nation: str, square: int, found: Watchers | None = None
) -> bool:
    """Whether a unit or city of ``nation`` or of a nation sharing its
    sight sees ``square``: sight.sees_square's question, read from the
    units by square without sorting them (a tick asks it of every square a
    plane flies near fighters). Units and cities seeing CLOSE or less are
    looked for in the squares within CLOSE; those seeing farther (radars,
    satellites on the ground) one by one. ``found``: the places' watchers,
    if the caller has them at hand."""
    if found is None:
        found = watchers(state, places)
    names = _names(state, found, nation)
    grid, at, units = state.grid, places.at, state.units
    width, height = grid.width, grid.height
    row, column = divmod(square, width)
    if CLOSE <= row < height - CLOSE and CLOSE <= column < width - CLOSE:
        for step, d in _rings(width):  # away from the edges: the squares by offset
            ids = at.get(square + step)
            if ids:
                for uid in ids:
                    unit = units.get(uid)
                    if unit is not None and unit.owner in names:
                        r = sight.unit_sight(state, unit)
                        if r is not None and d <= r:
                            return True
        return _far_sight(state, found, names, square)
    for q in _square_disc(width, height, square, CLOSE):
        ids = at.get(q)
        if ids:
            d = grid.distance(q, square)
            for uid in ids:
                unit = units.get(uid)
                if unit is not None and unit.owner in names:
                    r = sight.unit_sight(state, unit)
                    if r is not None and d <= r:
                        return True
    return _far_sight(state, found, names, square)


def _names(state: State, found: Watchers, nation: str) -> frozenset[str]:
    """``nation`` and the nations sharing their sight with it
    (sight.sharers, read from the relations without sorting), kept while
    no relation changes."""
    if found.relations != diplomacy.changes(state):
        found.relations_changed()
    names = found.names.get(nation)
    if names is None:
        sharing = sight.SHARING
        names = found.names[nation] = frozenset(
            [nation] + [o for o, n in state.nations.items() if n.relations.get(nation) in sharing]
        )
    return names


@cache
def _rings(width: int) -> tuple[tuple[int, int], ...]:
    """The squares within CLOSE of a square away from the edges of a board
    ``width`` wide: (what is added to the square, how far it is)."""
    steps = range(-CLOSE, CLOSE + 1)
    return tuple((r * width + c, max(abs(r), abs(c))) for r in steps for c in steps)


def _far_sight(state: State, found: Watchers, names: frozenset[str], square: int) -> bool:
    """Whether a city of ``names``, a satellite of theirs in orbit or a
    unit of a type that may see farther than CLOSE (:func:`_far_kinds`)
    sees ``square`` (``found``: the watchers, which keep the cities and
    those units)."""
    grid, units, cities = state.grid, state.units, state.cities
    for city_square in found.cities.around(square):
        city = cities.get(city_square)
        if city is not None and city.owner in names:
            r = sight.city_sight(state, city)
            if r is not None and grid.distance(city.square, square) <= r:
                return True
    for sat in state.satellites.values():  # launched: a permanent view round its target
        if sat.owner in names and grid.distance(sat.square, square) <= sight.satellite_sight(sat):
            return True
    eyes = found.eyes
    for name in names:
        for uid in eyes.get(name, ()):
            unit = units.get(uid)
            if unit is not None and grid.distance(unit.square, square) > CLOSE:
                r = sight.unit_sight(state, unit)
                if r is not None and grid.distance(unit.square, square) <= r:
                    return True
    return False


@cache
def _far_kinds() -> frozenset[str]:
    """The unit types that may see farther than CLOSE: a radar, or a sight
    above CLOSE."""
    return frozenset(
        k for k, t in tables().units.items() if not isinstance(t.sight, int) or t.sight > CLOSE
    )


def _square_disc(width: int, height: int, square: int, reach: int) -> list[int]:
    """The squares within ``reach`` of ``square`` (each once)."""
    row, column = divmod(square, width)
    if reach <= row < height - reach and reach <= column < width - reach:
        return [square + d for d in _offsets(width, reach)]  # away from the edges
    rows = dict.fromkeys(((row + d) % height) * width for d in range(-reach, reach + 1))
    columns = dict.fromkeys((column + d) % width for d in range(-reach, reach + 1))
    return [r + c for r in rows for c in columns]


@cache
def _offsets(width: int, reach: int) -> tuple[int, ...]:
    """What :func:`_square_disc` adds to a square away from the edges."""
    steps = range(-reach, reach + 1)
    return tuple(r * width + c for r in steps for c in steps)


def able(watcher: Unit) -> bool:
    """3 HP, ammo and mobility: what every watcher that goes out needs
    (RULINGS.md: interdiction and interception are attacks, "A unit can
    only attack if it has mobility and ammo", even one already next to the
    mover)."""
    return watcher.hp >= WATCH_HP and watcher.ammo >= 1 and watcher.mobility >= 1


# -- interception --------------------------------------------------------------------


def intercept(
    state: State,
    places: Places,
    mover: Unit,
    kind: UnitType,
    near: Iterable[tuple[Unit, int]],
    events: list[Event],
    rng: Rng,
) -> str | None:
    """The nearest free fighter able to (then by id) intercepts ``mover``
    where it stands: "intercepted", or None. ``near``: the fighters within
    reach that may (:meth:`Watchers.near`), with how far they are."""
    square, taken, kinds = mover.square, watchers(state, places).taken, tables().units
    hits: dict[str, bool] = {}  # by the fighter's type: may_attack() the mover, asked once
    found = []
    for fighter, d in near:
        if fighter.carried_by is not None or fighter.id in taken:
            continue
        # able() and _can_fly(), inline: asked of the fighters near each square entered
        if fighter.hp < WATCH_HP or fighter.ammo < 1 or fighter.mobility < (d or 1):
            continue
        fkind = kinds[fighter.kind]
        if fighter.fuel < d and "no_fuel" not in fkind.flags:
            continue
        hit = hits.get(fkind.key)
        if hit is None:
            hit = hits[fkind.key] = firing.may_attack(state, fkind, mover)
        if hit:
            found.append((d, fighter.id))
    if not found or flak_at(state, places, mover, square):
        return None
    blind: set[str] = set()  # nations found not to see the mover: asked once
    for d, uid in sorted(found):
        fighter = state.units[uid]
        if fighter.owner in blind:
            continue
        if sees(state, places, fighter, mover, d):
            _scramble(state, places, fighter, mover, d, events, rng)
            return "intercepted"
        blind.add(fighter.owner)  # what the nation sees is the same for all its fighters
    return None


def flak_at(state: State, places: Places, mover: Unit, square: int) -> bool:
    """The square holds flak that covers the mover: a city with flak (fort,
    airport, base) or a ship with flak, of its nation or an ally ("If the
    target sector contains flak ... no interception will occur")."""
    t = tables()
    city = state.cities.get(square)
    if city is not None and t.cities[city.designation].flak > 0 and city.owner is not None:
        if units.allied(state, mover.owner, city.owner):
            return True
    kinds, present = t.units, state.units
    for uid in places.at.get(square, ()):
        u = present.get(uid)
        if u is not None:
            k = kinds[u.kind]
            if k.flak > 0 and k.ship and units.allied(state, mover.owner, u.owner):
                return True
    return False


def _can_fly(plane: Unit, kind: UnitType, squares: int) -> bool:
    """The fuel and mobility to fly ``squares`` (1 each: RULINGS.md, Fuel)."""
    fuel_ok = "no_fuel" in kind.flags or plane.fuel >= squares
    return fuel_ok and plane.mobility >= squares


def _pay_flight(plane: Unit, kind: UnitType, squares: int) -> None:
    plane.mobility -= squares
    if "no_fuel" not in kind.flags:
        plane.fuel -= squares


def _scramble(
    state: State,
    places: Places,
    fighter: Unit,
    mover: Unit,
    d: int,
    events: list[Event],
    rng: Rng,
) -> None:
    """The fighter flies out to the mover's square (paying the way out),
    fires there, takes the counter-attack of an air unit that lives, and is
    back where it started."""
    fkind = tables().unit(fighter.kind)
    watchers(state, places).taken.add(fighter.id)
    home = fighter.square
    way = air_way(state.grid, home, mover.square, 0)
    _pay_flight(fighter, fkind, d)
    events.append(_event(state, Happened.INTERCEPTED, fighter, mover, way, d, d, home))
    _out_and_back(state, places, fighter, mover.square)
    fighter.ammo -= 1
    firing.fire(state, places, rng, fighter, None, mover, events)
    if tables().unit(mover.kind).domain == "air":
        firing.counter(state, places, rng, mover, fighter, events)
    if fighter.id in state.units:
        _out_and_back(state, places, fighter, home)
        supply.top_up(state, fighter, places)


def _out_and_back(state: State, places: Places, fighter: Unit, square: int) -> None:
    """A fighter put where it fights, or back home: what its nation sees
    after is what it saw before, unless it is lost (then it is removed)."""
    found = watchers(state, places)
    found.hold = True
    _put(places, fighter, square)
    found.hold = False


def air_way(grid: Grid, start: int, end: int, near: int) -> list[int]:
    """The squares a plane flies over from ``start`` to ``end`` (to a
    square ``near`` it): diagonally first, then straight, the shorter way
    round the wrapping board."""
    width, height = grid.width, grid.height
    row, column = divmod(start, width)
    to_row, to_column = divmod(end, width)
    dc = _toward(column, to_column, width)
    dr = _toward(row, to_row, height)
    step_c, step_r = (dc > 0) - (dc < 0), (dr > 0) - (dr < 0)
    # the steps left along each axis: each is at most half the board, so
    # the greater of them is the distance to ``end`` (grid.distance)
    left_c, left_r = abs(dc), abs(dr)
    way: list[int] = []
    while (left_c if left_c > left_r else left_r) > near:
        if left_c:
            column += step_c
            left_c -= 1
        if left_r:
            row += step_r
            left_r -= 1
        way.append((row % height) * width + column % width)
    return way


def _toward(a: int, b: int, length: int) -> int:
    """The signed steps from ``a`` to ``b`` the shorter way round."""
    d = (b - a) % length
    return d - length if d * 2 > length else d


# -- interdiction --------------------------------------------------------------------


def interdict(
    state: State,
    places: Places,
    mover: Unit,
    kind: UnitType,
    near: Iterable[tuple[Unit, int]],
    events: list[Event],
    rng: Rng,
) -> str | None:
    """Every watcher that may act on the ship ``mover``, nearest first
    (then by id), acts while it lives: "interdicted" if one fired on it.
    ``near``: the watchers within reach that may (:meth:`Watchers.near`),
    with how far they are."""
    found = _interdictors(state, places, mover, kind, near)
    fired = False
    for _, uid, role in found:
        watcher = state.units.get(uid)
        if mover.id not in state.units:
            break
        if watcher is not None and ACTS[role](state, places, watcher, mover, events, rng):
            fired = True
    return "interdicted" if fired else None


def _interdictors(
    state: State, places: Places, mover: Unit, kind: UnitType, near: Iterable[tuple[Unit, int]]
) -> list[tuple[int, str, str]]:
    """(distance, id, how it acts) of the watchers that may act on the
    ship, nearest first: "ship", "plane" or "coast"."""
    t = tables()
    taken = watchers(state, places).taken  # planes that broke off against this order
    square, hidden = mover.square, "stealth" in kind.flags
    at_sea = square not in state.board.land
    found = []
    seen: dict[str, bool] = {}
    for w, d in near:
        if w.carried_by is not None or w.id in taken:
            continue
        wkind = t.unit(w.kind)
        role = _role(state, places, w, wkind, mover, d, hidden, at_sea)
        if role is not None and firing.may_attack(state, wkind, mover):
            if _sees_once(state, places, w, mover, d, seen):
                if role != "ship" or supply.in_supply(state, w, places):
                    found.append((d, w.id, role))
    return sorted(found)


def _sees_once(
    state: State, places: Places, w: Unit, mover: Unit, d: int, seen: dict[str, bool]
) -> bool:
    """:func:`sees`, the nation's answer asked once (``seen``: by nation)
    beyond the watcher's own sight."""
    own = sight.unit_sight(state, w)
    if own is not None and d <= own and "stealth" not in tables().unit(mover.kind).flags:
        return True
    if w.owner not in seen:
        seen[w.owner] = sees(state, places, w, mover, d)
    return seen[w.owner]


def _role(
    state: State,
    places: Places,
    w: Unit,
    wkind: UnitType,
    mover: Unit,
    d: int,
    hidden: bool,
    at_sea: bool,
) -> str | None:
    """How the watcher ``w``, ``d`` from the ship, acts on it, or None if
    it may not: a tank at sea's edge, a plane, or a ship."""
    coast = wkind.watches("coast")
    if coast is not None:
        return "coast" if at_sea and d <= coast and w.ammo >= 1 else None
    reach = wkind.watches("subs" if hidden else "ships")
    if reach is None or d > reach or not able(w):
        return None
    if wkind.domain == "air":
        return "plane" if at_sea else None
    if not hidden and _escorting(state, places, w, wkind):
        return None
    return "ship"  # in supply: asked last (:func:`_interdictors`), it costs the most


def _escorting(state: State, places: Places, w: Unit, wkind: UnitType) -> bool:
    """A destroyer or cruiser within 2 of a capital ship of its own nation
    escorts it: it goes after submarines only."""
    reach = wkind.watches("escort")
    if reach is None:
        return False
    kinds, units, at, grid = tables().units, state.units, places.at, state.grid
    for sq in _square_disc(grid.width, grid.height, w.square, reach):
        for uid in at.get(sq, ()):
            u = units.get(uid)
            if u is not None and u.owner == w.owner and u.id != w.id and kinds[u.kind].capital:
                return True
    return False


def _close_in(
    state: State, places: Places, ship: Unit, mover: Unit, events: list[Event], rng: Rng
) -> bool:
    """A ship interdicts: it moves next to the mover by a shortest path if
    its mobility pays the way (its moving triggers nothing), fires once,
    and takes the mover's counter-attack."""
    path = _way_next_to(state, places, ship, mover.square)
    if path is None:
        return False
    cost = len(path) * paths.step_cost(state, places, ship)
    if ship.mobility < cost:
        return False
    start = ship.square
    ship.mobility -= cost
    for sq in path:
        old, ship.square = ship.square, sq
        places.moved(ship, old)
    events.append(_event(state, Happened.INTERDICTED, ship, mover, path, cost, 0, start))
    ship.ammo -= 1
    city = state.cities.get(mover.square)
    if city is not None:
        firing.cannon(state, places, rng, city, ship, events)
        if ship.id not in state.units:
            return True
    firing.fire(state, places, rng, ship, None, mover, events)
    supply.top_up(state, ship, places)
    firing.counter(state, places, rng, mover, ship, events)
    return True


def _way_next_to(state: State, places: Places, ship: Unit, square: int) -> list[int] | None:
    """A shortest way for ``ship`` to a square next to ``square``: none
    from next to it, one step to a free square next to both from 2 away
    (the lowest numbered), else as movement finds it."""
    grid = state.grid
    d = grid.distance(ship.square, square)
    if d <= 1:
        return []
    if d == 2:
        kind = tables().unit(ship.kind)
        between = sorted(set(grid.neighbours(ship.square)) & set(grid.neighbours(square)))
        for sq in between:
            if units.enterable(state, places, ship, kind, sq):
                return [sq]
    return paths.find_path(state, places, ship, square, near=1)


def _fly_at(
    state: State, places: Places, plane: Unit, mover: Unit, events: list[Event], rng: Rng
) -> bool:
    """A naval bomber interdicts: it flies out next to the ship (enemy
    fighters may intercept it on the way: it then breaks off), attacks with
    its attack value, takes the ship's counter-attack at the minimal attack
    2, and is back where it started."""
    kind = tables().unit(plane.kind)
    start = plane.square
    way = air_way(state.grid, start, mover.square, 1)
    if not _can_fly(plane, kind, len(way)):
        return False
    mark, flown = len(events), []
    broken = False
    for sq in way:  # paid square by square: an interception ends the way out
        _pay_flight(plane, kind, 1)
        _put(places, plane, sq)
        flown.append(sq)
        if intercept_on_the_way(state, places, plane, events, rng):
            broken = True  # it flies back and leaves this order's movers alone
            watchers(state, places).taken.add(plane.id)
            break
    n = len(flown)
    events.insert(mark, _event(state, Happened.INTERDICTED, plane, mover, flown, n, n, start))
    if not broken and plane.id in state.units:
        plane.ammo -= 1
        firing.flak(state, places, rng, plane, mover.square, [mover], events)
        if plane.id in state.units:
            firing.fire(state, places, rng, plane, None, mover, events)
            firing.counter(state, places, rng, mover, plane, events)
    if plane.id in state.units:
        _put(places, plane, start)
    return not broken


def intercept_on_the_way(
    state: State, places: Places, plane: Unit, events: list[Event], rng: Rng
) -> bool:
    """Fighters near may intercept an interdicting plane where it flies."""
    near = watchers(state, places).near(AIR, plane.square, plane.owner)
    kind = tables().unit(plane.kind)
    return bool(near) and intercept(state, places, plane, kind, near, events, rng) is not None


def _put(places: Places, unit: Unit, square: int) -> None:
    old, unit.square = unit.square, square
    places.moved(unit, old)


def _coast_fire(
    state: State, places: Places, tank: Unit, mover: Unit, events: list[Event], rng: Rng
) -> bool:
    """A tank next to the sea square fires once (ammo, no mobility); the
    ship counter-attacks only if it can hit land units."""
    if tank.ammo < 1:
        return False
    name = state.grid.name
    facts = {
        "unit": tank.id,
        "unit_type": tank.kind,
        "nation": tank.owner,
        "target": mover.id,
        "target_type": mover.kind,
        "target_nation": mover.owner,
        "square": name(mover.square),
        "from": name(tank.square),
    }
    events.append(Event(Happened.COAST_FIRE, facts, frozenset({tank.owner, mover.owner})))
    tank.ammo -= 1
    firing.fire(state, places, rng, tank, None, mover, events)
    supply.top_up(state, tank, places)
    firing.counter(state, places, rng, mover, tank, events)
    return True


ACTS = {"ship": _close_in, "plane": _fly_at, "coast": _coast_fire}


def _event(
    state: State,
    kind: Happened,
    watcher: Unit,
    mover: Unit,
    way: list[int],
    mobility: int,
    fuel: int,
    start: int,
) -> Event:
    """An interception or interdiction: who went out, from where, by which
    way to where, what it paid, and where it is after (a plane back home,
    a ship where it fires from)."""
    name = state.grid.name
    to = way[-1] if way else start
    if kind == Happened.INTERCEPTED:
        to = mover.square
    plane = tables().unit(watcher.kind).domain == "air"
    facts = {
        "unit": watcher.id,
        "unit_type": watcher.kind,
        "nation": watcher.owner,
        "target": mover.id,
        "target_type": mover.kind,
        "target_nation": mover.owner,
        "square": name(mover.square),
        "from": name(start),
        "way": [name(sq) for sq in way],
        "to": name(to),
        "back": name(start if plane else to),
        "mobility": mobility,
        "fuel": fuel,
    }
    return Event(kind, facts, frozenset({watcher.owner, mover.owner}))
