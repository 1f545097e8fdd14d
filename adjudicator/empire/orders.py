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

import re
from dataclasses import dataclass
from typing import Any

from adjudicator.base import Order, OrderSheet, Problem, ProblemKind
from adjudicator.empire.board import COAST_WORDS, Board, province_of


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
        return {"kind": "move", "player": self.player, "unit": self._unit(), "to": self.to}


@dataclass(frozen=True, kw_only=True, slots=True)
class Support(UnitOrder):
    target: str  # the supported unit's province
    dest: str | None = None  # the province it moves to; None: support to hold
    dest_coast: str | None = None  # a coast, if the order named one

    def canonical(self) -> str:
        where = f"{self.dest}/{self.dest_coast}" if self.dest and self.dest_coast else self.dest
        tail = f" - {where.upper()}" if where else ""
        return f"{self._unit()} S {self.target.upper()}{tail}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "support",
            "player": self.player,
            "unit": self._unit(),
            "target": self.target,
            "dest": self.dest,
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
# Reading


_WORDS = [
    (r"\bvia\s+convoy\b|\bby\s+convoy\b|\bvia\s+c\b", " VIACONVOY "),
    (
        r"->|=>|-(?=\s)|(?<=\s)-|\bmoves?\s+to\b|\bmoves?\b|\bgoes\s+to\b|\battacks\b|\bto\b",
        " MOVE ",
    ),
    (r"\bsupports?\b|\bs\b", " SUPPORT "),
    (r"\bconvoys?\b|\bc\b", " CONVOY "),
    (r"\bholds?\b|\bstands?\b|\bh\b", " HOLD "),
]
_UNIT = {"a": "A", "army": "A", "f": "F", "fleet": "F"}


class _Bad(Exception):
    def __init__(self, reason: str, kind: ProblemKind = ProblemKind.NOT_ALLOWED, **facts: Any):
        super().__init__(reason)
        self.reason, self.kind, self.facts = reason, kind, facts


def _tokens(text: str) -> list[str]:
    line = " " + text.strip().lower().replace("(", " ").replace(")", " ") + " "
    line = re.sub(r"\b(\w+)/(\w\w)\b", r"\1 \2", line)  # spa/nc -> spa nc
    for pattern, word in _WORDS:
        line = re.sub(pattern, word, line)
    return line.split()


def _place(board: Board, words: list[str], i: int) -> tuple[str, str | None, int]:
    """A province and maybe a coast from words[i:]: (province, coast, next i)."""
    for j in range(min(len(words), i + 4), i, -1):
        prov = board.lookup(" ".join(words[i:j]))
        if prov is None:
            continue
        coast = None
        for k in (2, 1):  # "north coast", "nc"
            if j + k <= len(words) and " ".join(words[j : j + k]) in COAST_WORDS:
                candidate = COAST_WORDS[" ".join(words[j : j + k])]
                if candidate in board.province[prov].coasts:
                    coast, j = candidate, j + k
                    break
        return prov, coast, j
    raise _Bad("no_such_province", ProblemKind.NOT_UNDERSTOOD, name=" ".join(words[i : i + 3]))


def parse(board: Board, text: str) -> dict[str, Any]:
    """The order's parts, not yet checked against a position."""
    words = _tokens(text)
    i = 0
    kind = None
    if i < len(words) and words[i] in _UNIT:
        kind, i = _UNIT[words[i]], i + 1
    if i >= len(words):
        raise _Bad("not_an_order", ProblemKind.NOT_UNDERSTOOD)
    prov, coast, i = _place(board, words, i)
    out: dict[str, Any] = {"kind": kind, "prov": prov, "coast": coast}
    rest = words[i:]
    if not rest or rest == ["HOLD"]:
        out["verb"] = "hold"
        return out
    if rest[0] == "MOVE":
        to, to_coast, j = _place(board, rest, 1)
        out.update(verb="move", to=to, to_coast=to_coast, convoy="VIACONVOY" in rest[j:])
        if [w for w in rest[j:] if w != "VIACONVOY"]:
            raise _Bad("not_an_order", ProblemKind.NOT_UNDERSTOOD)
        return out
    if rest[0] in ("SUPPORT", "CONVOY"):
        j = 1
        if j < len(rest) and rest[j] in _UNIT:
            j += 1
        target, _, j = _place(board, rest, j)
        dest = dest_coast = None
        if j < len(rest) and rest[j] == "MOVE":
            dest, dest_coast, j = _place(board, rest, j + 1)
        elif j < len(rest) and rest[j] == "HOLD":
            j += 1
        if j != len(rest):
            raise _Bad("not_an_order", ProblemKind.NOT_UNDERSTOOD)
        if rest[0] == "CONVOY":
            if dest is None:
                raise _Bad("convoy_needs_destination", ProblemKind.NOT_UNDERSTOOD)
            out.update(verb="convoy", army=target, dest=dest)
        else:
            out.update(verb="support", target=target, dest=dest, dest_coast=dest_coast)
        return out
    raise _Bad("not_an_order", ProblemKind.NOT_UNDERSTOOD)


def check(board: Board, units: dict[str, tuple[str, str, str]], player: str, p: dict[str, Any],
          seq: int, line: int) -> Order:  # fmt: skip
    """The order as it stands on the position ``units`` (province -> (power,
    kind, location)), or _Bad with the reason."""
    prov = p["prov"]
    here = units.get(prov)
    if here is None:
        raise _Bad("no_unit", province=prov)
    power, kind, loc = here
    if power != player:
        raise _Bad("not_your_unit", province=prov, owner=power)
    if p["kind"] and p["kind"] != kind:
        raise _Bad("wrong_unit_type", province=prov, kind=kind)
    base = {"player": player, "seq": seq, "line": line, "kind": kind, "loc": loc}
    verb = p["verb"]
    if verb == "hold":
        return Hold(**base)
    if verb == "move":
        to = p["to"]
        if to == prov:
            raise _Bad("move_to_itself", province=prov)
        if kind == "A":
            if board.province[to].kind == "sea":
                raise _Bad("army_to_sea", target=to)
            if to not in board.army_adj[prov] and not convoy_possible(board, units, prov, to):
                raise _Bad("not_adjacent", origin=prov, target=to)
            return Move(**base, to=to, convoy=p["convoy"])
        if board.province[to].kind == "land":
            raise _Bad("fleet_to_land", target=to)
        target = _fleet_target(board, loc, to, p["to_coast"])
        return Move(**base, to=target)
    if verb == "support":
        target, dest = p["target"], p["dest"]
        if target not in units:
            raise _Bad("no_unit_to_support", province=target)
        reach = dest if dest else target
        if reach == prov:
            raise _Bad("support_itself", province=prov)
        if not board.reaches(kind, loc, reach):
            raise _Bad("cannot_reach", origin=prov, target=reach)
        if dest is not None and not _could_move(board, units, units[target], dest, prov):
            raise _Bad("supported_cannot_move", unit=target, target=dest)
        return Support(**base, target=target, dest=dest, dest_coast=p.get("dest_coast"))
    army, dest = p["army"], p["dest"]
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

    def chains(path: list[str]) -> bool:
        last = path[-1]
        if dest in _shores(board, last):
            return fleet in path
        for nxt in sorted(seas - set(path)):
            if nxt in board.fleet_adj.get(last, ()) and origin not in _shores(board, nxt):
                if chains([*path, nxt]):
                    return True
        return False

    starts = [s for s in sorted(seas) if origin in _shores(board, s)]
    return any(chains([s]) for s in starts)


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
    orders: dict[str, Order] = {}
    problems: list[Problem] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        try:
            o = check(board, units, player, parse(board, line), seq, n)
        except _Bad as bad:
            problems.append(Problem(n, line.strip(), bad.kind, bad.reason, bad.facts))
            continue
        orders[o.unit] = o  # a later order for a unit replaces the earlier
    return OrderSheet(player, tuple(orders.values()), tuple(problems))
