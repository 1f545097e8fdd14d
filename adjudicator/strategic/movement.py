"""Moving (rules, section 4; RULINGS.md): land units over land, ships over
sea and into their own or allied ports and coastal bases, engineers over
both; one ship per sea square; no entering a square another nation holds;
a land unit entering an empty neutral city, or one of a nation at war with
its own, captures it. Each square entered costs 1 mobility (2 out of
supply). A group takes shortest paths on the wrapping grid, each unit in
the order given, as far as its mobility goes; the rest of the way becomes a
standing order that goes on at step 3 of later ticks.

Part 2 adds what happens on the way (interception, interdiction, carrying,
fuel): each square entered is one call of :func:`_step`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from heapq import heappop, heappush
from itertools import chain
from operator import attrgetter
from typing import Any

from adjudicator.base import Event, Rng
from adjudicator.strategic import air, carrying
from adjudicator.strategic.diplomacy import may_attack
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.known import as_known
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import CAPTURE_HP, UnitType, tables
from adjudicator.strategic.sight import bumped, conceals, sees_square
from adjudicator.strategic.state import Board, Standing, State, Unit, at_war, only, relation
from adjudicator.strategic.supply import in_supply

MOVES_BY_ORDER = ("land", "sea", "amphibious", "air")  # domains (satellites, ICBMs: launched)
DONE = ("arrived", "captured", "stopped")  # stopped: next to a sea square a ship holds
FAILED = ("no_path", "blocked", "cannot_capture", "occupied", "not_at_war", "no_room", "no_fuel")
# a plane that ran out of fuel away from any refuelling place: "crashed" (neither)

Refusal = tuple[Reason, dict[str, Any]]


@dataclass
class Going:
    """What became of one unit of a group: its status and the squares it
    entered."""

    unit: str
    status: str  # one of DONE, FAILED, or "going" (on its way)
    path: list[int] = field(default_factory=list)
    stopped_by: str = ""  # "intercepted" or "interdicted": fired on, it stopped there


# -- where a unit may go -------------------------------------------------------


def allied(state: State, nation: str, owner: str) -> bool:
    """Units of allied nations (and a nation's own) may share a square."""
    return relation(state, nation, owner) == "allied"


def harbour(state: State, square: int) -> bool:
    """A port or a coastal base: a city whose type supplies ships, next to
    water (ships may enter it; it holds any number)."""
    city = state.cities.get(square)
    if city is None or "sea" not in tables().cities[city.designation].supplies:
        return False
    return state.board.coastal(square)


def terrain_allows(state: State, kind: UnitType, square: int) -> bool:
    """Land units over land (a city is land), ships over water and
    harbours, engineers and air units anywhere."""
    return _terrain(state, kind)(square)


def _terrain(state: State, kind: UnitType) -> Callable[[int], bool]:
    """:func:`terrain_allows` for one kind, as a function of the square
    (a search asks it of many squares)."""
    land = state.board.land
    if kind.domain in ("amphibious", "air"):
        return lambda sq: True
    if kind.ship:
        return lambda sq: sq not in land or harbour(state, sq)
    if kind.land:
        return land.__contains__
    return lambda sq: False


def enterable(state: State, places: Places, unit: Unit, kind: UnitType, square: int) -> bool:
    """Whether ``unit`` may step into ``square`` now: the terrain allows it,
    a city there is its nation's or an ally's, no unit there belongs to a
    nation not allied, and a sea square holds no other ship."""
    return _enterable(state, places, unit, kind)(square)


def _enterable(
    state: State,
    places: Places,
    unit: Unit,
    kind: UnitType,
    terrain: Callable[[int], bool] | None = None,
) -> Callable[[int], bool]:
    """:func:`enterable` for one unit, as a function of the square; whether
    a nation is allied is asked once a nation (``terrain``: the kind's
    :func:`_terrain`, if made already)."""
    terrain = terrain or _terrain(state, kind)
    cities, units, kinds, ship = state.cities, state.units, tables().units, kind.ship
    friends: dict[str, bool] = {}

    def friend(owner: str) -> bool:
        known = friends.get(owner)
        if known is None:
            known = friends[owner] = allied(state, unit.owner, owner)
        return known

    at = places.at  # units by square, read directly: asked of every square a search takes
    me = unit.id

    def may_enter(square: int) -> bool:
        if not terrain(square):
            return False
        city = cities.get(square)
        if city is not None and (city.owner is None or not friend(city.owner)):
            return False
        for uid in at.get(square, ()):
            other = units.get(uid)
            if other is None or uid == me:
                continue
            if not friend(other.owner) or (ship and city is None and kinds[other.kind].ship):
                return False
        return True

    return may_enter


def capturable(state: State, places: Places, nation: str, square: int) -> bool:
    """An empty city, neutral or of a nation at war with ``nation``."""
    city = state.cities.get(square)
    if city is None or places.ids_at(square):
        return False
    return may_attack(state, nation, city.owner)


def can_capture(kind: UnitType, unit: Unit) -> bool:
    """Only land units capture, and only with more than 4 HP (a capture
    costs 4)."""
    return kind.land and unit.hp > CAPTURE_HP


def step_cost(state: State, places: Places, unit: Unit) -> int:
    """Mobility to enter a square: 1, or 2 out of supply (where the unit
    stands before the step). Air units have no supply: 1 (and 1 fuel)."""
    if air.flies(unit.kind):
        return 1
    return 1 if in_supply(state, unit, places) else 2


# -- shortest paths --------------------------------------------------------------


def find_path(
    state: State, places: Places, unit: Unit, target: int, near: int = 0, units_matter: bool = True
) -> list[int] | None:
    """The squares ``unit`` enters on a shortest way to ``target`` (near 0)
    or to a square next to it (near 1), or None if there is none, over
    the board as the unit's nation knows it (:func:`planned`: what it does
    not see is the terrain alone). With ``units_matter`` False only the
    terrain counts (to tell "no way there" from "the way is held"). The
    target itself (near 0) need only suit the terrain: whether it can be
    entered is settled on arrival."""
    kind = tables().unit(unit.kind)
    grid = state.grid
    start = unit.square
    if (start == target) if near == 0 else grid.distance(start, target) == near:
        return []
    terrain = _terrain(state, kind)
    boarding = near == 0 and not terrain(target) and _boards(state, places, unit, kind, target)
    if boarding:
        terrain = _or_square(terrain, target)  # onto its transport at sea
    ends = [target] if near == 0 else list(grid.neighbours(target))
    if not (terrain(target) if near == 0 else any(map(terrain, ends))):
        return None  # no way to end there: spare the search of a whole ocean
    if not boarding and not _same_region(state, places, kind, start, ends):
        return None  # another island, a lake: no search either
    passable = planned(state, places, unit, kind, terrain) if units_matter else terrain
    known: dict[int, bool] = {}  # each square asked once per search

    def may_step(sq: int) -> bool:
        answer = known.get(sq)
        if answer is None:
            answer = known[sq] = (near == 0 and terrain(sq)) if sq == target else passable(sq)
        return answer

    return _search(grid, start, target, near, may_step, list(filter(may_step, ends)))


def _boards(state: State, places: Places, unit: Unit, kind: UnitType, target: int) -> bool:
    return carrying.ship_to_board(state, places, unit, kind, target) is not None


def _or_square(allows: Callable[[int], bool], square: int) -> Callable[[int], bool]:
    """``allows``, and ``square`` too (a transport to board there)."""
    return lambda sq: sq == square or allows(sq)


def planned(
    state: State,
    places: Places,
    unit: Unit,
    kind: UnitType,
    terrain: Callable[[int], bool] | None = None,
) -> Callable[[int], bool]:
    """Whether ``unit`` may step into a square as its nation knows the
    board (known.as_known): what it does not see is planned as the terrain
    alone, a submarine it does not see as an open square; the unit finds
    what is there when it tries to enter (``_step``; sight.bumped)."""
    terrain = terrain or _terrain(state, kind)
    return as_known(state, places, unit, terrain, _enterable(state, places, unit, kind, terrain))


def _same_region(
    state: State, places: Places, kind: UnitType, start: int, ends: Sequence[int]
) -> bool:
    """Whether one of ``ends`` is in the same region as ``start`` for the
    unit's kind (land: land squares joined; ships: water and coastal cities
    joined; engineers: everywhere), a quick no before a long search."""
    if kind.domain in ("amphibious", "air"):
        return True
    regions = places.regions.get(kind.ship)
    if regions is None:
        regions = places.regions[kind.ship] = _regions(state.board, places.city_squares, kind.ship)
    mine = regions.get(start)
    if mine is None:
        return True
    if len(ends) == 1:
        return regions.get(ends[0]) == mine
    return any(regions.get(sq) == mine for sq in ends)


@lru_cache(maxsize=16)
def _regions(board: Board, cities: frozenset[int], ships: bool) -> dict[int, int]:
    """Each square a kind may cross (ships: water and every coastal city,
    more than it may ever use) numbered by the connected region it is in."""
    grid = board.grid
    if ships:
        open_ = {sq for sq in range(grid.size) if not board.is_land(sq)}
        open_ |= {sq for sq in cities if board.coastal(sq)}
    else:
        open_ = set(board.land)
    regions: dict[int, int] = {}
    for first in sorted(open_):
        if first in regions:
            continue
        regions[first] = first
        todo = [first]
        while todo:
            sq = todo.pop()
            for n in grid.neighbours(sq):
                if n in open_ and n not in regions:
                    regions[n] = first
                    todo.append(n)
    return regions


class _Flood:
    """The squares from which one of ``ends`` can be reached, found
    backwards from them one square at a time, until the flood meets
    ``start`` (then there is a way, and the flood stops) or runs dry (then
    there is none)."""

    def __init__(
        self, grid: Grid, start: int, ends: list[int], may_step: Callable[[int], bool]
    ) -> None:
        self.grid, self.start, self.may_step = grid, start, may_step
        self.todo = list(ends)
        self.seen = set(ends)
        self.met = start in self.seen

    def dry(self) -> bool:
        """Take one more square: True once no way to ``start`` is left."""
        if self.met:
            return False
        if not self.todo:
            return True
        seen = self.seen
        for n in self.grid.adjacency[self.todo.pop()]:
            if n == self.start:
                self.met = True
                return False
            if n not in seen and self.may_step(n):
                seen.add(n)
                self.todo.append(n)
        return False


FLOOD_AFTER = 16  # squares a search takes before the flood back starts


def _search(
    grid: Grid,
    start: int,
    target: int,
    near: int,
    may_step: Callable[[int], bool],
    ends: list[int],
) -> list[int] | None:
    """A* over the 8-neighbour wrapping grid to one of ``ends``, every step
    costing 1; the heuristic is the Chebyshev distance (exact on open
    water). Ties go to the deeper square, then the lower square number: the
    same board gives the same path. Whether a square may be entered is
    asked when the search takes it, not when it meets it: a short way asks
    few squares, and the squares taken are the same. Once the search has
    taken FLOOD_AFTER squares, a flood back from the ends takes one for
    each it takes: a target walled in (by other ships, say) is known to be
    out of reach in a few squares, not after a whole ocean; the path found
    is the same either way."""
    if not ends:
        return None  # every end held by others
    width = grid.width
    target_row, target_column = divmod(target, width)
    columns = _axis(width, target_column, near)  # the estimate, a column and a row apart
    rows = _axis(grid.height, target_row, near)
    neighbours = grid.adjacency
    goals = set(ends)
    best = {start: 0}
    came: dict[int, int] = {}
    start_row, start_column = divmod(start, width)
    heap = [(max(columns[start_column], rows[start_row]), 0, start)]
    back: _Flood | None = None
    taken = 0
    while heap:
        taken += 1
        if back is None and taken > FLOOD_AFTER:
            back = _Flood(grid, start, ends, may_step)
        if back is not None and back.dry():
            return None
        _, negative, sq = heappop(heap)
        depth = 1 - negative  # of the squares next to it
        if depth - 1 > best[sq] or (sq != start and not may_step(sq)):
            continue  # a shorter way came first, or the square is closed
        if sq in goals:
            return _trace(came, start, sq)
        for n in neighbours[sq]:
            if n in best and best[n] <= depth:
                continue
            best[n] = depth
            came[n] = sq
            row, column = divmod(n, width)
            by_column, by_row = columns[column], rows[row]
            heappush(heap, (depth + (by_column if by_column > by_row else by_row), -depth, n))
    return None


@lru_cache(maxsize=1024)
def _axis(length: int, at: int, near: int) -> tuple[int, ...]:
    """For each coordinate along an edge of ``length`` (wrapping), the
    steps along it to within ``near`` of ``at`` (never below 0): the
    estimate of a square is the larger of its column's and its row's, which
    is :meth:`Grid.distance` to the target less ``near``, at least 0."""
    out = []
    for x in range(length):
        d = abs(x - at)
        out.append(max(0, min(d, length - d) - near))
    return tuple(out)


def _trace(came: dict[int, int], start: int, end: int) -> list[int]:
    path = [end]
    while path[-1] != start:
        path.append(came[path[-1]])
    path.pop()
    return path[::-1]


# -- walking ---------------------------------------------------------------------


def walk(
    state: State,
    places: Places,
    unit: Unit,
    path: Sequence[int],
    target: int,
    events: list[Event],
    rng: Rng | None = None,
    land: bool = True,
) -> Going:
    """Step along ``path`` as far as mobility goes; the last step into an
    empty enemy or neutral city captures it. ``rng``: the tick's generator,
    for what happens on the way (a fixed one if not given). After each
    square entered the units watching near may intercept or interdict
    (intercept.watch): a unit fired on stops there, its move done.
    ``land``: the move ends here (an air unit refuels or crashes,
    air.landed); an attack lands its planes after it has attacked."""
    from adjudicator.strategic import intercept  # it fights: combat imports this module

    kind = tables().unit(unit.kind)
    start = unit.square
    going = Going(unit.id, "arrived")
    may_enter = _enterable(state, places, unit, kind)
    ship = carrying.ship_to_board(state, places, unit, kind, target) if path else None
    if ship is not None:
        if not carrying.room(state, places, ship, kind):
            return Going(unit.id, "no_room")
        may_enter = _or_square(may_enter, target)
    picked = carrying.pick_up(state, places, unit, kind) if path and kind.carries else []
    fights: list[Event] = []
    for sq in path:
        status = _step(state, places, unit, kind, sq, target, may_enter)
        if status != "entered":
            going.status = status
            break
        going.path.append(sq)
        why = intercept.watch(state, places, unit, sq, fights, rng or Rng(0))
        if why is not None:
            going.status, going.stopped_by = "stopped", why
            break
    if picked:
        carrying.picked(state, picked, bool(going.path), events)  # a helicopter's infantry
    if going.path:
        events.append(_moved_event(state, unit, kind, start, going.path))
    events += fights
    if going.status in ("blocked", "occupied"):  # a submarine there is found (part 2)
        events += _sighted(state, places, unit, path[len(going.path)])
    _arrive(state, places, unit, kind, ship, going, target, events)
    if land and air.landed(state, places, unit, events):
        going.status = "crashed"
    return going


def _arrive(
    state: State,
    places: Places,
    unit: Unit,
    kind: UnitType,
    ship: Unit | None,
    going: Going,
    target: int,
    events: list[Event],
) -> None:
    """At the end of a walk: a capture, boarding the ship at the target,
    a helicopter setting its infantry down on land (not for a unit stopped
    on the way: it is not there)."""
    there = going.status == "arrived" and unit.square == target
    if there and _owner_changes(state, unit):
        _capture(state, unit, events)
        going.status = "captured"
    elif there and ship is not None and ship.id in state.units:
        carrying.board(state, unit, ship, events)
    if kind.carries:
        carrying.land_riders(state, places, unit, kind, events)


def _step(
    state: State,
    places: Places,
    unit: Unit,
    kind: UnitType,
    sq: int,
    target: int,
    may_enter: Callable[[int], bool],
) -> str:
    """Enter one square, paying its mobility: "entered", or why not
    (``may_enter``: :func:`enterable` for this unit)."""
    capture = sq == target and capturable(state, places, unit.owner, sq)
    if capture and not can_capture(kind, unit):
        return "cannot_capture"
    if not capture and not may_enter(sq):
        return _why_not(state, places, unit, kind, sq, target)
    cost = step_cost(state, places, unit)
    if unit.mobility < cost:
        return "going"
    if unit.fuel < 1 and air.needs_fuel(unit.kind):
        return "no_fuel"
    unit.mobility -= cost
    if air.needs_fuel(unit.kind):
        unit.fuel -= 1
    old = unit.square
    unit.square = sq
    places.moved(unit, old)
    if unit.carried_by is not None:
        unit.carried_by = None  # it leaves its carrier
    if kind.carries:
        carrying.bring_along(state, places, unit, old)
    return "entered"


def _why_not(state: State, places: Places, unit: Unit, kind: UnitType, sq: int, target: int) -> str:
    if sq != target:
        return "blocked"
    owners = {state.units[i].owner for i in places.ids_at(sq)}
    if any(not allied(state, unit.owner, o) for o in owners):
        return "occupied"
    city = state.cities.get(sq)
    if city is not None and terrain_allows(state, kind, sq):
        return "not_at_war"
    return "stopped" if kind.ship else "no_path"


def _sighted(state: State, places: Places, unit: Unit, square: int) -> list[Event]:
    """The hidden submarines that stopped ``unit`` at ``square``, now seen
    by its nation (sight.bumped): an event for it and the sub's owner."""
    name = state.grid.name(square)
    return [
        Event(
            Happened.SIGHTED,
            {
                "unit": sub.id,
                "unit_type": sub.kind,
                "nation": sub.owner,
                "by": unit.id,
                "by_nation": unit.owner,
                "square": name,
            },
            frozenset({unit.owner, sub.owner}),
        )  # fmt: skip
        for sub in bumped(state, places, unit, square)
    ]


def _owner_changes(state: State, unit: Unit) -> bool:
    city = state.cities.get(unit.square)
    return city is not None and not (city.owner and allied(state, unit.owner, city.owner))


def _capture(state: State, unit: Unit, events: list[Event]) -> None:
    """The city becomes the unit's nation's; the unit loses 4 HP; the
    city's build starts over (it keeps its designation)."""
    city = state.cities[unit.square]
    before = city.owner
    city.owner = unit.owner
    city.progress = 0
    unit.hp -= CAPTURE_HP
    facts = {
        "city": city.name,
        "square": state.grid.name(city.square),
        "unit": unit.id,
        "nation": unit.owner,
        "from_nation": before,
        "hp": unit.hp,
    }
    seen = {unit.owner} | ({before} if before else set())
    events.append(Event(Happened.CAPTURED, facts, frozenset(seen)))


def _moved_event(state: State, unit: Unit, kind: UnitType, start: int, path: list[int]) -> Event:
    name = state.grid.name
    facts = {
        "unit": unit.id,
        "unit_type": kind.key,
        "nation": unit.owner,
        "from": name(start),
        "square": name(unit.square),
        "path": [name(sq) for sq in path],
    }
    return Event(Happened.MOVED, facts, only(unit.owner))


# -- a group ---------------------------------------------------------------------


def run_group(
    state: State,
    places: Places,
    units: Sequence[Unit],
    target: int,
    near: int,
    events: list[Event],
    rng: Rng | None = None,
    land: bool = True,
) -> list[Going]:
    """Move each unit in turn (those that can capture first when the target
    is a city to capture) by a shortest path as far as it can (``land``:
    as for :func:`walk`)."""
    from adjudicator.strategic import intercept  # it fights: combat imports this module

    if near == 0 and units and _may_capture(state, places, units[0], target):
        kinds = tables().units
        units = sorted(units, key=lambda u: not can_capture(kinds[u.kind], u))
    units = intercept.sortie(state, places, units)  # fighters first: they draw interceptors
    out = []
    for unit in units:
        if unit.id not in state.units:
            continue
        path = find_path(state, places, unit, target, near)
        if path is None:
            terrain = find_path(state, places, unit, target, near, units_matter=False)
            out.append(Going(unit.id, "no_path" if terrain is None else "blocked"))
            continue
        out.append(walk(state, places, unit, path, target, events, rng, land))
    return out


def _may_capture(state: State, places: Places, unit: Unit, target: int) -> bool:
    """Whether a move to ``target`` may capture it as ``unit``'s nation
    knows it: a city it sees empty and capturable, or one out of sight
    (its own and its allies' are in sight): those that can capture go
    first, whatever is there."""
    city = state.cities.get(target)
    if city is None or city.owner == unit.owner:
        return False
    if capturable(state, places, unit.owner, target):
        return True
    return not sees_square(state, unit.owner, target, places, (unit,))


def anything_happened(goings: Sequence[Going]) -> bool:
    """A unit moved, arrived, is on its way, or crashed at the end of its
    move (an attack made from where it stood, then out of fuel)."""
    return any(g.path or g.status in DONE or g.status in ("going", "crashed") for g in goings)


def summary(goings: Sequence[Going], left_out: dict[str, str]) -> dict[str, Any]:
    """The facts of a group's moves: who arrived, who goes on, who failed."""
    failed = dict(left_out)
    failed.update({g.unit: g.status for g in goings if g.status in FAILED})
    facts: dict[str, Any] = {
        "arrived": [g.unit for g in goings if g.status in DONE and not g.stopped_by],
        "going": [g.unit for g in goings if g.status == "going"],
        "failed": dict(sorted(failed.items())),
        "crashed": [g.unit for g in goings if g.status == "crashed"],
    }
    stopped = [g.unit for g in goings if g.stopped_by]
    if stopped:  # intercepted or interdicted on the way: the rest of their move dropped
        facts["stopped"] = stopped
    return facts


# -- the orders ------------------------------------------------------------------


def own_units(state: State, nation: str, unit_ids: Sequence[str]) -> list[Unit] | Refusal:
    """The units an order names, each once, in the order named; refused if
    one is not the nation's or cannot be moved by orders in this part."""
    units: list[Unit] = []
    for uid in dict.fromkeys(unit_ids):
        unit = state.units.get(uid)
        if unit is None or unit.owner != nation:
            return Reason.NOT_YOUR_UNIT, {"unit": uid}
        if tables().unit(unit.kind).domain not in MOVES_BY_ORDER:
            return Reason.CANNOT_MOVE, {"unit": uid, "unit_type": unit.kind}
        units.append(unit)
    if not units:
        return Reason.NOT_YOUR_UNIT, {"unit": ""}
    return units


def target_refusal(state: State, places: Places, nation: str, target: int) -> Refusal | None:
    """Why no unit of ``nation`` may enter ``target``, or None: a square
    another nation holds ("attack it instead"), or a city of a nation it is
    not at war with."""
    if target not in state.cities and not places.at.get(target):
        return None  # an empty square: most moves go to one
    name = state.grid.name(target)
    owners = {u.owner for u in places.units_at(target) if not conceals(state, nation, u, places)}
    holders = sorted(o for o in owners if not allied(state, nation, o))
    if holders:
        war = any(at_war(state, nation, h) for h in holders)
        return Reason.OCCUPIED, {"square": name, "nations": holders, "at_war": war}
    city = state.cities.get(target)
    if city is not None and city.owner is not None:
        if not allied(state, nation, city.owner) and not at_war(state, nation, city.owner):
            return Reason.NOT_AT_WAR, {"square": name, "city": city.name, "nations": [city.owner]}
    return None


def charge(state: State, nation: str, cost: int) -> Refusal | None:
    """Refused if the nation cannot pay ``cost`` command points."""
    left = state.nations[nation].command
    if left < cost:
        return Reason.CANNOT_PAY, {"cost": cost, "left": left}
    return None


def remove(state: State, places: Places, unit: Unit) -> None:
    """``unit`` leaves the board (destroyed, launched): out of the state,
    the tick's index and its standing order."""
    del state.units[unit.id]
    places.removed(unit)
    release(state, [unit.id])


def release(state: State, unit_ids: Sequence[str]) -> None:
    """A new order for a unit replaces its standing order."""
    gone = set(unit_ids)
    if gone.isdisjoint(chain.from_iterable(map(_units_of, state.standing))):
        return  # the common case, asked in one pass: none of them has one
    kept = []
    for s in state.standing:
        if gone.isdisjoint(s.units):
            kept.append(s)
            continue
        rest = tuple(u for u in s.units if u not in gone)
        if rest:
            kept.append(Standing(s.nation, rest, s.target, s.action, s.seq, s.line))
    state.standing = kept


def move(
    state: State,
    nation: str,
    unit_ids: Sequence[str],
    target: int,
    seq: int,
    line: int,
    events: list[Event],
    places: Places | None = None,
    rng: Rng | None = None,
) -> tuple[Reason, dict[str, Any]]:
    """A move order (step 4): 1 command point however many units, 4 if it
    captures a city; beyond today's mobility the rest becomes a standing
    order. Refused orders change nothing and cost nothing."""
    places = places or Places(state)
    units = own_units(state, nation, unit_ids)
    if not isinstance(units, list):
        return units
    plan = _plan(state, places, nation, units, target)
    if isinstance(plan[0], Reason):
        return plan  # type: ignore[return-value]
    movers, left_out, cost = plan  # type: ignore[misc]
    refusal = fuel_refusal(state, places, movers, target, 0)
    if refusal:
        return refusal
    starts = {u.id: state.grid.name(u.square) for u in movers}  # where each set off
    goings = run_group(state, places, movers, target, 0, events, rng)
    name = state.grid.name(target)
    ids = [u.id for u in units]
    if not anything_happened(goings):
        if any(g.status == "occupied" for g in goings):  # found there: a submarine (part 2)
            return target_refusal(state, places, nation, target) or (Reason.BLOCKED, {
                "units": ids, "square": name})  # fmt: skip
        why = Reason.BLOCKED if any(g.status == "blocked" for g in goings) else Reason.NO_PATH
        return why, {"units": ids, "square": name}
    if _as_near_as_can_be(goings):  # RULINGS.md: an order that can do nothing costs nothing
        return Reason.AS_NEAR_AS_CAN_BE, {"units": ids, "square": name}
    state.nations[nation].command -= cost
    release(state, ids)  # every unit it names: the new order replaces its standing one
    facts = {"units": ids, "square": name, "cost": cost, "left": state.nations[nation].command}
    facts.update(summary(goings, left_out))
    facts["from"] = starts  # the player's own units: the map draws each move from there
    if facts["going"]:
        state.standing.append(Standing(nation, tuple(facts["going"]), target, "move", seq, line))
    return _move_reason(state, goings, facts), facts


def _as_near_as_can_be(goings: Sequence[Going]) -> bool:
    """No unit moved, and a ship next to its target stopped there: a ship
    of its own side holds that sea square (the others were there)."""
    if any(g.path or g.status not in ("arrived", "stopped") for g in goings):
        return False
    return any(g.status == "stopped" for g in goings)


def _plan(
    state: State, places: Places, nation: str, units: list[Unit], target: int
) -> tuple[list[Unit], dict[str, str], int] | Refusal:
    """Who goes, who is left out (cannot capture), and the cost; or why the
    order is refused."""
    name = state.grid.name(target)
    if all(u.square == target for u in units):
        return Reason.ALREADY_THERE, {"units": [u.id for u in units], "square": name}
    refusal = target_refusal(state, places, nation, target)
    if refusal and sees_square(state, nation, target, places, units):
        return refusal  # out of sight, the units set off and find out there
    costs = tables().costs
    movers, left_out, cost = units, {}, costs["move"]
    if capturable(state, places, nation, target) and sees_square(
        state, nation, target, places, units
    ):
        kinds = tables().units
        movers = [u for u in units if can_capture(kinds[u.kind], u)]
        left_out = {u.id: "cannot_capture" for u in units if u not in movers}
        cost = costs["capture"]
        if not movers:
            city = state.cities[target].name
            facts = {"units": [u.id for u in units], "square": name, "city": city}
            return Reason.CANNOT_CAPTURE, facts | {"hp_needed": CAPTURE_HP + 1}
    refusal = carrying.full(state, places, movers, target) or charge(state, nation, cost)
    return refusal if refusal else (movers, left_out, cost)


def fuel_refusal(
    state: State, places: Places, units: Sequence[Unit], target: int, near: int
) -> Refusal | None:
    """RULINGS.md: an air unit moves only as far as its fuel allows; an
    order that takes one beyond its fuel (by the shortest way it may fly)
    is refused with the reach it has."""
    for unit in units:
        if not air.needs_fuel(unit.kind):
            continue
        path = find_path(state, places, unit, target, near)
        if path is not None and len(path) > unit.fuel:
            name = state.grid.name(target)
            facts = {"unit": unit.id, "fuel": unit.fuel, "distance": len(path), "square": name}
            return Reason.BEYOND_FUEL, facts
    return None


def _move_reason(state: State, goings: Sequence[Going], facts: dict[str, Any]) -> Reason:
    if facts["crashed"]:
        return Reason.CRASHED
    captured = [g for g in goings if g.status == "captured"]
    if captured:
        unit = state.units[captured[0].unit]
        facts.update(city=state.cities[unit.square].name, by=unit.id, hp=unit.hp)
        return Reason.CAPTURED
    if facts.get("stopped"):
        return Reason.STOPPED
    if facts["failed"]:
        return Reason.MOVED_PART
    return Reason.STANDING if facts["going"] else Reason.MOVED


_units_of = attrgetter("units")


def cancel(state: State, nation: str, unit_id: str) -> tuple[Reason, dict[str, Any]]:
    """Drop a unit's standing order (the rest of its group goes on). Free."""
    unit = state.units.get(unit_id)
    if unit is None or unit.owner != nation:
        return Reason.NOT_YOUR_UNIT, {"unit": unit_id}
    for s in state.standing:
        if unit_id in s.units:
            release(state, [unit_id])
            return Reason.CANCELLED, {"unit": unit_id, "square": state.grid.name(s.target)}
    return Reason.NO_STANDING, {"unit": unit_id}
