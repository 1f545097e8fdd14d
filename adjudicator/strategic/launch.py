"""Launching spy satellites and ICBMs (rules, sections 6 and 15; RULINGS.md,
part 2), and Mutually Assured Destruction.

A satellite or an ICBM is launched once, at a square within its table
mobility of where it stands (a carried one from its carrier's square); the
unit leaves the board. A satellite (8 command points) stays over its target
for good: its owner sees every square within its table sight of it; nobody
else sees it, nobody attacks it. An ICBM (32 command points) comes down on
its target: every unit within its blast radius (0, 1 or 2) is destroyed,
carried ones too, and every city there is devastated: neutral and empty of
units; it stays a city. Its launcher and every nation whose city it
devastated go to war at once, whatever their relation (units lost alone
bring no war).

MAD: each nation with a city devastated (not the launcher's own) declares
war and launches one retaliatory ICBM if it has one, free, at the target
its scoring picks (:func:`mad_target`), which may hit a third nation. A
retaliation that devastates cities brings further retaliation; each nation
retaliates at most once a tick.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from adjudicator.base import Event
from adjudicator.strategic import diplomacy, sight
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import UnitType, tables
from adjudicator.strategic.state import Blast, Satellite, State, Unit, only, relation
from adjudicator.strategic.units import charge, remove

COST_KEYS = {"space": "satellite", "missile": "icbm"}  # launchable domains: their costs' names
CITY_SCORE = 48  # a city in a square scores as 48 hours of units
THRESHOLD = 96  # the best target must score this much for a retaliation
SCORE_FACTOR = {"allied": -2, "friendly": -1, "neutral": 0, "war": 2}  # toward the owner

Refusal = tuple[Reason, dict[str, Any]]


# -- the order ----------------------------------------------------------------------


def launch(
    state: State, nation: str, unit_id: str, target: int, events: list[Event], places: Places
) -> Refusal:
    """A launch order (step 4): a satellite goes up, an ICBM comes down
    (and MAD may answer it). Refused, nothing paid: not the nation's unit,
    not one that is launched, a target beyond its reach, too few command
    points."""
    unit = state.units.get(unit_id)
    if unit is None or unit.owner != nation:
        return Reason.NOT_YOUR_UNIT, {"unit": unit_id}
    kind = tables().unit(unit.kind)
    refusal = _refusal(state, unit, kind, target)
    if refusal is not None:
        return refusal
    cost = tables().costs[COST_KEYS[kind.domain]]
    state.nations[nation].command -= cost
    paid = {"unit": unit.id, "square": state.grid.name(target), "cost": cost,
            "left": state.nations[nation].command,
            "from": state.grid.name(unit.square)}  # fmt: skip
    _leave(state, places, unit)
    if kind.domain == "space":
        sat = Satellite(unit.id, nation, unit.kind, target, state.tick)
        state.satellites[sat.id] = sat
        return Reason.SATELLITE_LAUNCHED, paid | {"radius": sight.satellite_sight(sat)}
    victims = come_down(state, places, unit, target, events)
    facts = paid | {"blast": kind.blast or 0, "cities": victims.cities, "war": victims.nations}
    retaliate(state, places, nation, victims.nations, target, events)
    return Reason.ICBM_LAUNCHED, facts


def _refusal(state: State, unit: Unit, kind: UnitType, target: int) -> Refusal | None:
    if kind.domain not in COST_KEYS:
        return Reason.NOT_LAUNCHABLE, {"unit": unit.id, "unit_type": unit.kind}
    distance = state.grid.distance(unit.square, target)
    if distance > kind.mobility:
        return Reason.OUT_OF_RANGE, {"unit": unit.id, "unit_type": unit.kind,
                                     "square": state.grid.name(target), "range": kind.mobility,
                                     "distance": distance}  # fmt: skip
    return charge(state, unit.owner, tables().costs[COST_KEYS[kind.domain]])


def _leave(state: State, places: Places, unit: Unit) -> None:
    """The launched unit leaves the board (and its standing order)."""
    remove(state, places, unit)


# -- an ICBM comes down -------------------------------------------------------------


class Victims:
    """What an ICBM's devastation did: the names of the cities devastated
    (in square order) and the nations that held them, now at war with the
    launcher (by name)."""

    def __init__(self) -> None:
        self.cities: list[str] = []
        self.nations: list[str] = []
        self.owners: list[str] = []  # every nation that lost a city, the launcher's too


def come_down(
    state: State,
    places: Places,
    icbm: Unit,
    target: int,
    events: list[Event],
    kind: Happened = Happened.LAUNCHED,
    more: dict[str, Any] | None = None,
) -> Victims:
    """``icbm`` (already off the board) comes down on ``target``: the
    launch event (``kind``, with ``more`` facts), every unit in the blast
    destroyed, every city there devastated, war with those who held them."""
    grid = state.grid
    blast = tables().unit(icbm.kind).blast or 0
    facts = {
        "unit": icbm.id,
        "unit_type": icbm.kind,
        "nation": icbm.owner,
        "square": grid.name(target),
        "blast": blast,
    }
    squares = sorted(grid.within(target, blast))
    told = frozenset({icbm.owner, *_struck(state, places, squares)})
    events.append(Event(kind, facts | (more or {}), told))
    for square in squares:
        for unit in places.units_at(square):
            _destroy(state, places, unit, icbm, events)
    victims = Victims()
    for square in squares:
        city = state.cities.get(square)
        if city is not None:
            _devastate(state, city.square, icbm, events, victims)
    state.blasts.append(Blast(icbm.owner, target, blast, state.tick, tuple(victims.owners)))
    for other in victims.nations:
        _war(state, icbm.owner, other, events)
    return victims


def _struck(state: State, places: Places, squares: list[int]) -> set[str]:
    """The nations with a unit or a city in the blast: they are told the
    ICBM came down (who launched it and where it came down, never where
    it was launched from: that only its launcher knows)."""
    owners = {u.owner for sq in squares for u in places.units_at(sq)}
    owners |= {c.owner for sq in squares if (c := state.cities.get(sq)) and c.owner}
    return owners


def _destroy(state: State, places: Places, unit: Unit, icbm: Unit, events: list[Event]) -> None:
    """A unit in the blast is destroyed: its owner is told (and those who
    see its square), not the launcher, who sees only what it sees. It was
    struck from the sky over its square (``from``: the launch site stays
    the launcher's)."""
    remove(state, places, unit)
    grid = state.grid
    facts = {"unit": unit.id, "unit_type": unit.kind, "nation": unit.owner, "by": icbm.id,
             "by_nation": icbm.owner, "square": grid.name(unit.square),
             "from": grid.name(unit.square)}  # fmt: skip
    events.append(Event(Happened.DESTROYED, facts, only(unit.owner)))


def _devastate(
    state: State, square: int, icbm: Unit, events: list[Event], victims: Victims
) -> None:
    """RULINGS.md: the city becomes neutral and empty of units (they are
    gone already); it stays a city, and starts its build over."""
    city = state.cities[square]
    before = city.owner
    city.owner = None
    city.progress = 0
    facts = {"city": city.name, "square": state.grid.name(square), "nation": before,
             "by": icbm.id, "by_nation": icbm.owner}  # fmt: skip
    seen = {icbm.owner} | ({before} if before else set())
    events.append(Event(Happened.DEVASTATED, facts, frozenset(seen)))
    victims.cities.append(city.name)
    if before is not None and before not in victims.owners:
        victims.owners = sorted([*victims.owners, before])
    if before is not None and before != icbm.owner and before not in victims.nations:
        victims.nations.append(before)
        victims.nations.sort()


def _war(state: State, launcher: str, other: str, events: list[Event]) -> None:
    """Section 15: "If you devastate a player's city with an icbm, you
    will immediately go to War with that player", Friendly or Allied
    notwithstanding; both sides at once."""
    events.append(Event(Happened.WAR_BY_DEVASTATION, {"nation": launcher, "toward": other},
                        frozenset({launcher, other})))  # fmt: skip
    diplomacy.war_at_once(state, launcher, other, events)
    diplomacy.war_at_once(state, other, launcher, events)


# -- MAD ----------------------------------------------------------------------------


def retaliate(
    state: State,
    places: Places,
    launcher: str,
    victims: Iterable[str],
    first: int,
    events: list[Event],
) -> None:
    """Each nation with a city devastated answers with one ICBM if its
    scoring finds a target worth it; what that devastates is answered in
    turn; each nation answers at most once a tick (``first``: the target
    of the launch that started it, for breaking ties)."""
    done: set[str] = state.cache.setdefault("retaliated", set())
    queue = [(v, launcher) for v in victims]
    while queue:
        nation, provoker = queue.pop(0)
        if nation in done or state.nations[nation].status != "active":
            continue
        done.add(nation)
        choice = mad_target(state, places, nation, first)
        if choice.icbm is None or choice.score < THRESHOLD:
            events.append(_held(nation, provoker, choice))
            continue
        _leave(state, places, choice.icbm)
        more = {"score": choice.score, "against": provoker}
        hit = come_down(state, places, choice.icbm, choice.square, events,
                        Happened.RETALIATION, more)  # fmt: skip
        queue += [(v, nation) for v in hit.nations]


def _held(nation: str, provoker: str, choice: Choice) -> Event:
    """A nation that answers with no ICBM: it has none, or no target it
    sees scores 96 (a private notice)."""
    if choice.icbm is None:
        return Event(Happened.NO_RETALIATION, {"nation": nation, "against": provoker},
                     only(nation))  # fmt: skip
    return Event(Happened.HELD_FIRE, {"nation": nation, "against": provoker, "score": choice.score,
                                      "needed": THRESHOLD}, only(nation))  # fmt: skip


@dataclass(frozen=True)
class Choice:
    """The best retaliation a nation's scoring finds: the ICBM (None: it has
    none that reaches a square worth anything), the square, its score."""

    icbm: Unit | None
    square: int = 0
    score: int = 0


def icbms(state: State, nation: str) -> list[Unit]:
    """The nation's ICBMs, largest blast first, then by id."""
    kinds = tables().units
    found = [
        u for u in state.units.values() if u.owner == nation and kinds[u.kind].blast is not None
    ]
    return sorted(found, key=lambda u: (-(kinds[u.kind].blast or 0), u.id))


def square_scores(state: State, places: Places, nation: str) -> dict[int, int]:
    """Section 6: each square the nation sees now, scored: the cost in
    hours of every unit there it sees, and 48 for a nation's city, each
    times the relation toward its owner (ally or itself -2, friendly -1,
    neutral 0, war 2). Only squares scoring other than 0 are listed."""
    seen = sight.visible(state, nation)
    kinds = tables().units
    out: dict[int, int] = {}
    for unit in state.units.values():
        if unit.square in seen and not sight.conceals(state, nation, unit, places):
            factor = SCORE_FACTOR[relation(state, nation, unit.owner)]
            out[unit.square] = out.get(unit.square, 0) + kinds[unit.kind].cost * factor
    for city in state.cities.values():
        if city.square in seen and city.owner is not None:
            factor = SCORE_FACTOR[relation(state, nation, city.owner)]
            out[city.square] = out.get(city.square, 0) + CITY_SCORE * factor
    return {sq: v for sq, v in out.items() if v}


def mad_target(state: State, places: Places, nation: str, first: int) -> Choice:
    """RULINGS.md: the ICBM, the square and its score a retaliation would
    take. A square's score is the sum of the square scores over the blast
    of the ICBM the nation would use there (of those that reach it, the
    largest blast, then the lowest id); the best square wins, ties going to
    the square nearest ``first``, then by name (column, then row). The
    caller launches only at a score of 96 or more."""
    missiles = icbms(state, nation)
    if not missiles:
        return Choice(None)
    scores = square_scores(state, places, nation)
    grid, kinds = state.grid, tables().units
    widest = max(kinds[u.kind].blast or 0 for u in missiles)
    candidates = sorted({q for sq in scores for q in grid.within(sq, widest)})
    best: tuple[tuple[int, int, int, int], Unit, int, int] | None = None
    for square in candidates:
        icbm = next((u for u in missiles if _reaches(state, u, square)), None)
        if icbm is None:
            continue
        blast = kinds[icbm.kind].blast or 0
        score = sum(scores.get(q, 0) for q in grid.within(square, blast))
        key = (-score, grid.distance(square, first), *grid.at(square))
        if best is None or key < best[0]:
            best = (key, icbm, square, score)
    if best is None:  # nothing it sees scores: any of its ICBMs would score 0
        return Choice(missiles[0], first, 0)
    return Choice(best[1], best[2], best[3])


def _reaches(state: State, icbm: Unit, square: int) -> bool:
    return state.grid.distance(icbm.square, square) <= tables().unit(icbm.kind).mobility
