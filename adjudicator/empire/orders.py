"""Diplomacy orders, in the standard notation and in words.

    A PAR - BUR            A Paris -> Burgundy        Army Paris moves to Burgundy
    A PAR H                Army Paris holds
    A MUN S A BER - KIE    A Munich supports A Berlin to Kiel
    A MUN S A BER          (support to hold)
    F NTH C A LON - NWY    Fleet North Sea convoys Army London to Norway
    A LON - NWY VIA CONVOY
    F STP/SC - BOT         F St Petersburg south coast -> Gulf of Bothnia

Case does not matter; provinces by abbreviation, name or usual other names;
coasts as ``spa/nc``, ``spa(nc)``, ``spa nc``, ``spain north coast``. A unit is
named by its province; its type (A, F) may be left out. Each order is
checked against the position: the refusal says why (no unit there, not your
unit, not adjacent, coast needed, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudicator.base import Notice, Order, OrderSheet, Problem, ProblemKind
from adjudicator.empire.board import Board, province_of
from adjudicator.empire.notation import (
    BUILD,
    DISBAND,
    HOLD,
    MOVE,
    SUPPORT,
    WAIVE,
    Parsed,
    Unreadable,
    parse,
    segments,
    shown,
)


@dataclass(frozen=True, kw_only=True, slots=True)
class UnitOrder(Order):
    kind: str  # A or F
    loc: str  # where the unit stands (with its coast)

    @property
    def unit(self) -> str:
        return province_of(self.loc)

    def _unit(self) -> str:
        return f"{self.kind} {self.loc.upper()}"


@dataclass(frozen=True, kw_only=True, slots=True)
class Hold(UnitOrder):
    def canonical(self) -> str:
        return f"{self._unit()} H"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "hold", "player": self.player, "unit": self._unit()}


@dataclass(frozen=True, kw_only=True, slots=True)
class Move(UnitOrder):
    to: str  # a location (a fleet's coast included)
    convoy: bool = False  # "via convoy" was written

    def canonical(self) -> str:
        return f"{self._unit()} - {self.to.upper()}" + (" VIA CONVOY" if self.convoy else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "move",
            "player": self.player,
            "unit": self._unit(),
            "to": self.to,
            "via_convoy": self.convoy,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class Support(UnitOrder):
    target: str  # the supported unit's province
    dest: str | None = None  # the province it moves to; None: support to hold
    dest_coast: str | None = None  # a coast, if the order named one
    target_kind: str = ""  # A or F: the supported unit's type, for the canonical form

    def canonical(self) -> str:
        where = f"{self.dest}/{self.dest_coast}" if self.dest and self.dest_coast else self.dest
        tail = f" - {where.upper()}" if where else ""
        kind = f"{self.target_kind} " if self.target_kind else ""
        return f"{self._unit()} S {kind}{self.target.upper()}{tail}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "support",
            "player": self.player,
            "unit": self._unit(),
            "target": self.target,
            "target_kind": self.target_kind,
            "dest": self.dest,
            "dest_coast": self.dest_coast,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class Convoy(UnitOrder):
    army: str  # the convoyed army's province
    dest: str

    def canonical(self) -> str:
        return f"{self._unit()} C A {self.army.upper()} - {self.dest.upper()}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "convoy",
            "player": self.player,
            "unit": self._unit(),
            "army": self.army,
            "dest": self.dest,
        }


# ----------------------------------------------------------------------------
# Reading (the notations: adjudicator/empire/notation.py)


def _Bad(reason: str, problem: ProblemKind = ProblemKind.NOT_ALLOWED, /,  # noqa: N802
         **facts: Any) -> Unreadable:  # fmt: skip
    """A refusal: the order is read but not allowed here."""
    return Unreadable(reason, problem, (), **facts)


_OTHER_PHASE = {BUILD: "build", DISBAND: "disband", WAIVE: "waive"}


def check(board: Board, units: dict[str, tuple[str, str, str]], player: str, p: Parsed,
          seq: int, line: int) -> Order:  # fmt: skip
    """The movement order as it stands on the position ``units`` (province
    -> (power, kind, location)), or Unreadable with the reason."""
    if p.verb in _OTHER_PHASE:
        raise _Bad("not_in_movement", ProblemKind.NOT_ALLOWED, verb=_OTHER_PHASE[p.verb])
    assert p.place is not None
    prov = p.place.prov
    power, kind, loc = own_unit(units, player, p)
    base = {"player": player, "seq": seq, "line": line, "kind": kind, "loc": loc}
    if p.verb == HOLD:
        return Hold(**base)
    if p.verb == MOVE:
        return _move(board, units, p, base)
    if p.verb == SUPPORT:
        return _support(board, units, p, base)
    assert p.target is not None and p.to is not None
    army, dest = p.target.prov, p.to.prov
    if kind != "F" or board.province[prov].kind != "sea":
        raise _Bad("only_fleets_at_sea_convoy", province=prov)
    other = units.get(army)
    if other is None or other[1] != "A":
        raise _Bad("no_army_to_convoy", province=army)
    if board.province[army].kind != "coast" or board.province[dest].kind != "coast":
        raise _Bad("convoy_coasts_only", origin=army, target=dest)
    if army == dest:
        raise _Bad("move_to_itself", province=army)
    if not convoy_needed(board, units, prov, army, dest):
        raise _Bad("convoy_not_on_route", province=prov, origin=army, target=dest)
    return Convoy(**base, army=army, dest=dest)


def own_unit(units: dict[str, tuple[str, str, str]], player: str,
             p: Parsed) -> tuple[str, str, str]:  # fmt: skip
    """The player's unit the order names: (power, kind, location)."""
    assert p.place is not None
    prov = p.place.prov
    here = units.get(prov)
    if here is None:
        raise _Bad("no_unit", ProblemKind.NOT_ALLOWED, province=prov)
    power, kind, loc = here
    if power != player:
        raise _Bad("not_your_unit", ProblemKind.NOT_ALLOWED, province=prov, owner=power)
    if p.kind and p.kind != kind:
        raise _Bad("wrong_unit_type", ProblemKind.NOT_ALLOWED, province=prov, kind=kind)
    return here


def _move(board: Board, units: dict[str, tuple[str, str, str]], p: Parsed,
          base: dict[str, Any]) -> Move:  # fmt: skip
    assert p.place is not None and p.to is not None
    prov, to, kind, loc = p.place.prov, p.to.prov, base["kind"], base["loc"]
    if to == prov:
        raise _Bad("move_to_itself", ProblemKind.NOT_ALLOWED, province=prov)
    if any(board.province[q].kind != "sea" for q in p.via):
        raise _Bad("route_through_seas", ProblemKind.NOT_ALLOWED, route=list(p.via))
    if kind == "A":
        if board.province[to].kind == "sea":
            raise _Bad("army_to_sea", ProblemKind.NOT_ALLOWED, target=to)
        if to not in board.army_adj[prov] and not convoy_possible(board, units, prov, to):
            raise _Bad("not_adjacent", ProblemKind.NOT_ALLOWED, origin=prov, target=to)
        return Move(**base, to=to, convoy=p.convoy)
    if p.via or p.convoy:
        raise _Bad("fleets_not_convoyed", ProblemKind.NOT_ALLOWED)
    if board.province[to].kind == "land":
        raise _Bad("fleet_to_land", ProblemKind.NOT_ALLOWED, target=to)
    return Move(**base, to=_fleet_target(board, loc, to, p.to.coast))


def _support(board: Board, units: dict[str, tuple[str, str, str]], p: Parsed,
             base: dict[str, Any]) -> Support:  # fmt: skip
    assert p.place is not None and p.target is not None
    prov, target = p.place.prov, p.target.prov
    dest = p.to.prov if p.to else None
    other = units.get(target)
    if other is None:
        raise _Bad("no_unit_to_support", ProblemKind.NOT_ALLOWED, province=target)
    if p.target_kind and p.target_kind != other[1]:
        raise _Bad("wrong_unit_type", ProblemKind.NOT_ALLOWED, province=target, kind=other[1])
    reach = dest if dest else target
    if reach == prov:
        raise _Bad("support_itself", ProblemKind.NOT_ALLOWED, province=prov)
    if not board.reaches(base["kind"], base["loc"], reach):
        raise _Bad("cannot_reach", ProblemKind.NOT_ALLOWED, origin=prov, target=reach)
    if dest is not None and not _could_move(board, units, other, dest, prov):
        raise _Bad("supported_cannot_move", ProblemKind.NOT_ALLOWED, unit=target, target=dest)
    coast = p.to.coast if p.to else None
    return Support(**base, target=target, dest=dest, dest_coast=coast, target_kind=other[1])


def _fleet_target(board: Board, loc: str, to: str, coast: str | None) -> str:
    if coast:
        target = f"{to}/{coast}"
        if target not in board.fleet_adj.get(loc, ()):
            raise _Bad("not_adjacent", origin=province_of(loc), target=target)
        return target
    reach = board.fleet_reaches(loc, to)
    if not reach:
        raise _Bad("not_adjacent", origin=province_of(loc), target=to)
    if len(reach) > 1:
        raise _Bad("coast_needed", target=to, coasts=[r.split("/")[1] for r in reach])
    return reach[0]


def _could_move(board: Board, units: dict[str, tuple[str, str, str]],
                unit: tuple[str, str, str], dest: str, supporter: str) -> bool:  # fmt: skip
    """Whether the supported unit could move to ``dest`` (over land, by sea,
    or by a convoy that does not need the supporting fleet itself)."""
    _, kind, loc = unit
    origin = province_of(loc)
    if origin == dest:
        return False
    if kind == "F":
        return board.reaches("F", loc, dest)
    if board.province[dest].kind == "sea":
        return False
    return dest in board.army_adj[origin] or convoy_possible(board, units, origin, dest, supporter)


def _sea_fleets(board: Board, units: dict[str, tuple[str, str, str]]) -> set[str]:
    return {
        p for p, (_, kind, _) in units.items()
        if kind == "F" and board.province[p].kind == "sea"
    }  # fmt: skip


def _shores(board: Board, sea: str) -> set[str]:
    return {province_of(loc) for loc in board.fleet_adj.get(sea, ())}


def convoy_needed(board: Board, units: dict[str, tuple[str, str, str]], fleet: str,
                  origin: str, dest: str) -> bool:  # fmt: skip
    """Whether the fleet at sea ``fleet`` is part of a shortest-form route
    of fleets from ``origin`` to ``dest``: a chain where only the first
    fleet touches the origin and only the last the destination (DATC 6.G.7,
    6.G.19: a convoy order no route needs is illegal)."""
    seas = _sea_fleets(board, units)
    starts = [s for s in sorted(seas) if origin in _shores(board, s)]
    return any(_chains(board, seas, fleet, origin, dest, [s]) for s in starts)


def _chains(board: Board, seas: set[str], fleet: str, origin: str, dest: str,
            path: list[str]) -> bool:  # fmt: skip
    """Whether ``path`` of fleets leads on to ``dest`` through ``fleet``
    (convoy_needed's search; a function of the module: a nested function
    calling itself is a cycle, left for the collector at every call)."""
    last = path[-1]
    if dest in _shores(board, last):
        return fleet in path
    for nxt in sorted(seas - set(path)):
        if nxt in board.fleet_adj.get(last, ()) and origin not in _shores(board, nxt):
            if _chains(board, seas, fleet, origin, dest, [*path, nxt]):
                return True
    return False


def convoy_possible(board: Board, units: dict[str, tuple[str, str, str]], origin: str,
                    dest: str, without: str | None = None) -> bool:  # fmt: skip
    """Whether fleets standing at sea now could carry an army from
    ``origin`` to ``dest`` (DATC 4.E.1: a move no convoy could make is
    illegal, and the unit holds)."""
    if board.province[origin].kind != "coast" or board.province[dest].kind != "coast":
        return False
    seas = {
        p for p, (_, kind, _) in units.items()
        if kind == "F" and board.province[p].kind == "sea" and p != without
    }  # fmt: skip

    def shores(sea: str) -> set[str]:
        return {province_of(loc) for loc in board.fleet_adj.get(sea, ())}

    frontier = [s for s in seas if origin in shores(s)]
    seen = set(frontier)
    while frontier:
        sea = frontier.pop()
        if dest in shores(sea):
            return True
        for other in seas - seen:
            if other in board.fleet_adj.get(sea, ()):
                seen.add(other)
                frontier.append(other)
    return False


def read(board: Board, units: dict[str, tuple[str, str, str]], player: str, text: str,
         seq: int = 0) -> OrderSheet:  # fmt: skip
    """One power's movement orders: one per unit (a later order for a unit
    replaces the earlier, with a notice), the refused lines, and notices
    (names read from a typo, supports and convoys of one's own units that
    match none of their orders)."""
    orders: dict[str, Order] = {}
    problems: list[Problem] = []
    notices: list[Notice] = []
    for n, text_ in segments(text):
        try:
            p = parse(board, text_)
            o = check(board, units, player, p, seq, n)
        except Unreadable as bad:
            problems.append(refusal(n, text_, bad))
            continue
        notices += read_as_notices(board, p, n)
        if o.unit in orders:
            notices.append(replaced(orders.pop(o.unit), n))
        orders[o.unit] = o
    notices += unmatched(units, player, orders)
    return OrderSheet(player, tuple(orders.values()), tuple(problems), tuple(notices))


def refusal(line: int, text: str, bad: Unreadable) -> Problem:
    return Problem(line, text, bad.kind, bad.reason, shown(bad.facts), bad.suggestions)


def read_as_notices(board: Board, p: Parsed, line: int) -> list[Notice]:
    return [Notice(line, "read_as", {"typed": typed, "province": board.label(prov)})
            for typed, prov in p.read_as]  # fmt: skip


def replaced(earlier: Order, line: int) -> Notice:
    unit = earlier.canonical().split(" ")[:2]
    return Notice(line, "replaces", {"unit": " ".join(unit), "earlier": earlier.canonical()})


def unmatched(units: dict[str, tuple[str, str, str]], player: str,
              orders: dict[str, Order]) -> list[Notice]:  # fmt: skip
    """Notices for supports and convoys of the player's own units that do
    not match what those units are ordered (they would be void)."""
    out = []
    for o in orders.values():
        if isinstance(o, Support):
            other, wanted = o.target, o.dest
        elif isinstance(o, Convoy):
            other, wanted = o.army, o.dest
        else:
            continue
        unit = units.get(other)
        if unit is None or unit[0] != player:
            continue  # another power's unit: its orders are not known here
        given = orders.get(other)
        moves_to = province_of(given.to) if isinstance(given, Move) else None
        if moves_to == wanted:
            continue
        facts = {
            "order": o.canonical(),
            "unit": f"{unit[1]} {unit[2].upper()}",
            "ordered": given.canonical() if given else f"{unit[1]} {unit[2].upper()} H",
            "wanted": f"{other.upper()} - {wanted.upper()}" if wanted else "hold",
        }
        reason = f"{type(o).__name__.lower()}_unmatched"
        if wanted is None:
            reason = "support_hold_unmatched"
        out.append(Notice(o.line, reason, facts))
    return out
