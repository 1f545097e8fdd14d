"""Retreats and adjustments (DATC 6.H to 6.J, issues 4.A.5, 4.D).

Retreats: a dislodged unit may retreat to a location its kind could move
to in one step that is empty after the movement, was not left empty by a
standoff (on either coast), and is not the province its attacker came
from, unless that attacker came by convoy (2023 rules). Two or more units
retreating to one province are all disbanded; a unit with no valid
retreat order is disbanded. Supports and convoys are not orders of this
phase.

Adjustments: a power with more supply centres than units builds in its
vacant, owned home centres (a fleet only on a coast, and on a named coast
where there are two), one build a centre, in the order given, until the
builds allowed are made; missing builds are waived. A power with more
units than centres removes; missing removals are chosen by civil disorder:
the unit farthest from the power's owned supply centres (counting moves
over land and sea alike), fleets before armies at equal distance, then by
the province's name in alphabetical order (DATC 6.J, 2023 rules).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from adjudicator.base import Notice, Order, OrderSheet, Problem, ProblemKind
from adjudicator.empire.board import Board, province_of
from adjudicator.empire.notation import (
    BUILD,
    DISBAND,
    MOVE,
    WAIVE,
    Parsed,
    Unreadable,
    parse,
    segments,
    shown,
)

Units = Mapping[str, tuple[str, str, str]]  # province -> (power, kind, location)


@dataclass(frozen=True, kw_only=True, slots=True)
class Retreat(Order):
    kind: str
    loc: str
    to: str | None  # None: disband

    @property
    def unit(self) -> str:
        return province_of(self.loc)

    def canonical(self) -> str:
        u = f"{self.kind} {self.loc.upper()}"
        return f"{u} R {self.to.upper()}" if self.to else f"{u} D"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "retreat", "player": self.player, "unit": self.loc, "to": self.to}


@dataclass(frozen=True, kw_only=True, slots=True)
class Build(Order):
    kind: str
    loc: str

    @property
    def unit(self) -> str:
        return f"build:{province_of(self.loc)}"

    def canonical(self) -> str:
        return f"BUILD {self.kind} {self.loc.upper()}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "build", "player": self.player, "unit": self.loc, "type": self.kind}


@dataclass(frozen=True, kw_only=True, slots=True)
class Remove(Order):
    kind: str
    loc: str

    @property
    def unit(self) -> str:
        return f"remove:{province_of(self.loc)}"

    def canonical(self) -> str:
        return f"REMOVE {self.kind} {self.loc.upper()}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "remove", "player": self.player, "unit": self.loc}


@dataclass(frozen=True, kw_only=True, slots=True)
class Waive(Order):
    @property
    def unit(self) -> str:
        return f"waive:{self.line}"

    def canonical(self) -> str:
        return "WAIVE"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "waive", "player": self.player}


# -- retreats -----------------------------------------------------------------------


@dataclass(frozen=True)
class Dislodged:
    power: str
    kind: str
    loc: str
    attacker: str  # the province the dislodging unit came from
    by_convoy: bool


def retreat_options(
    board: Board, units: Units, d: Dislodged, contested: frozenset[str]
) -> tuple[str, ...]:
    """The locations the dislodged unit may retreat to."""
    if d.kind == "A":
        here = province_of(d.loc)
        cands = [p for p in board.army_adj[here] if board.province[p].kind != "sea"]
    else:
        cands = list(board.fleet_adj.get(d.loc, ()))
    out = []
    for loc in cands:
        prov = province_of(loc)
        if prov in units or prov in contested:
            continue
        if prov == d.attacker and not d.by_convoy:
            continue
        out.append(loc)
    return tuple(sorted(out))


def resolve_retreats(
    board: Board,
    units: Units,
    dislodged: Mapping[str, Dislodged],
    contested: frozenset[str],
    orders: Mapping[str, Retreat],
) -> tuple[dict[str, tuple[str, str, str]], dict[str, str]]:
    """(the units after retreats, province -> what became of each dislodged
    unit: "retreated to X", "disbanded", "bounced")."""
    wanted: dict[str, list[str]] = {}
    outcome: dict[str, str] = {}
    for prov, d in dislodged.items():
        o = orders.get(prov)
        if o is None or o.to is None:
            outcome[prov] = "disbanded"
            continue
        if o.to not in retreat_options(board, units, d, contested):
            outcome[prov] = "disbanded"  # an invalid retreat (checked when read, too)
            continue
        wanted.setdefault(province_of(o.to), []).append(prov)
    after = dict(units)
    for target, movers in wanted.items():
        if len(movers) > 1:
            for p in movers:
                outcome[p] = "bounced"  # all disbanded
            continue
        p = movers[0]
        d, o = dislodged[p], orders[p]
        assert o.to is not None
        after[target] = (d.power, d.kind, o.to)
        outcome[p] = f"retreated to {o.to}"
    return after, outcome


# -- adjustments ---------------------------------------------------------------------


def centre_counts(board: Board, units: Units, owners: Mapping[str, str]) -> dict[str, int]:
    """Supply centres minus units, per power (positive: builds)."""
    delta = {p.name: 0 for p in board.powers}
    for power in owners.values():
        delta[power] = delta.get(power, 0) + 1
    for power, _, _ in units.values():
        delta[power] = delta.get(power, 0) - 1
    return delta


def distance_to_owned(board: Board, start: str, targets: set[str]) -> int:
    """Moves from ``start`` to the nearest of ``targets``, over land and sea
    alike (2023 rules), coasts merged."""
    if not targets:
        return 99
    links: dict[str, set[str]] = {}
    for a, b in (*board.army_links, *board.fleet_links):
        pa, pb = province_of(a), province_of(b)
        links.setdefault(pa, set()).add(pb)
        links.setdefault(pb, set()).add(pa)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here in targets:
            return seen[here]
        for nxt in sorted(links.get(here, ())):
            if nxt not in seen:
                seen[nxt] = seen[here] + 1
                queue.append(nxt)
    return 99


def civil_disorder_order(
    board: Board, units: Units, owners: Mapping[str, str], power: str
) -> list[str]:
    """The power's units in the order civil disorder removes them."""
    owned = {sc for sc, who in owners.items() if who == power}
    mine = [(p, u) for p, u in units.items() if u[0] == power]

    def key(item: tuple[str, tuple[str, str, str]]) -> tuple[int, int, str]:
        prov, (_, kind, _) = item
        return (
            -distance_to_owned(board, prov, owned),
            0 if kind == "F" else 1,
            board.province[prov].name.lower(),
        )

    return [p for p, _ in sorted(mine, key=key)]


Report = list[tuple[Order | None, str, str]]


def adjust(
    board: Board,
    units: Units,
    owners: Mapping[str, str],
    orders: Mapping[str, list[Order]],
    builders: set[str] | None = None,
) -> tuple[dict[str, tuple[str, str, str]], Report]:
    """Apply builds and removals. ``orders`` per power, in the order given;
    ``builders``: the powers allowed to build (neutral powers never build).
    Returns the units after, and (order or None for civil disorder, power,
    what happened) for the report."""
    after = dict(units)
    report: Report = []
    delta = centre_counts(board, units, owners)
    for power in sorted(delta):
        count = delta[power]
        given = orders.get(power, [])
        if count > 0 and (builders is None or power in builders):
            _builds(board, after, owners, power, count, given, report)
        elif count < 0:
            _removals(board, after, owners, power, -count, given, report)
        else:
            for o in given:
                report.append((o, power, "nothing to adjust"))
    return after, report


def _builds(board: Board, after: dict[str, tuple[str, str, str]], owners: Mapping[str, str],
            power: str, count: int, given: list[Order], report: Report) -> None:  # fmt: skip
    """Up to ``count`` builds and waives, in the order given; the rest waived."""
    made = 0
    for o in given:
        if isinstance(o, Waive):
            if made < count:
                made += 1
                report.append((o, power, "waived"))
            else:
                report.append((o, power, "no builds left"))
            continue
        if not isinstance(o, Build):
            report.append((o, power, "not a build"))
            continue
        why = _build_problem(board, after, owners, power, o)
        if why is None and made >= count:
            why = "no builds left"
        if why:
            report.append((o, power, why))
            continue
        after[province_of(o.loc)] = (power, o.kind, o.loc)
        made += 1
        report.append((o, power, "built"))
    if made < count:
        report.append((None, power, f"{count - made} build(s) waived"))


def _removals(board: Board, after: dict[str, tuple[str, str, str]], owners: Mapping[str, str],
              power: str, need: int, given: list[Order], report: Report) -> None:  # fmt: skip
    """``need`` removals, in the order given; the rest by civil disorder."""
    removed = 0
    for o in given:
        if not isinstance(o, Remove):
            report.append((o, power, "not a removal"))
            continue
        prov = province_of(o.loc)
        unit = after.get(prov)
        if unit is None or unit[0] != power:
            report.append((o, power, "no such unit"))
            continue
        if removed >= need:
            report.append((o, power, "no removals left"))
            continue
        del after[prov]
        removed += 1
        report.append((o, power, "removed"))
    if removed < need:
        for prov in civil_disorder_order(board, after, owners, power)[: need - removed]:
            kind, loc = after[prov][1], after[prov][2]
            del after[prov]
            report.append((None, power, f"civil disorder: removed {kind} {loc.upper()}"))


def _build_problem(
    board: Board, units: Units, owners: Mapping[str, str], power: str, o: Build
) -> str | None:
    prov = province_of(o.loc)
    if board.home_of.get(prov) != power:
        return "not a home supply centre"
    if owners.get(prov) != power:
        return "home supply centre not owned"
    if prov in units:
        return "occupied"
    p = board.province[prov]
    if o.kind == "F":
        if p.kind != "coast":
            return "fleets are built on a coast"
        if p.coasts and "/" not in o.loc:
            return "coast needed"
    return None


# -- reading ---------------------------------------------------------------------------


def _problem(line: int, text: str, reason: str, **facts: Any) -> Problem:
    return Problem(line, text, ProblemKind.NOT_ALLOWED, reason, shown(facts))


def refusal(line: int, text: str, bad: Unreadable) -> Problem:
    return Problem(line, text, bad.kind, bad.reason, shown(bad.facts), bad.suggestions)


def read_adjustments(board: Board, units: Units, power: str, text: str, seq: int = 0,
                     owners: Mapping[str, str] | None = None) -> OrderSheet:  # fmt: skip
    """Build, remove and waive orders, in the order given. With ``owners``
    (the game's reading), each is checked at once: a build when the power
    has none or no more, in a centre where it cannot be made, a removal when
    it has none to make, are refused with the count it has."""
    orders: list[Order] = []
    problems: list[Problem] = []
    notices: list[Notice] = []
    if owners is not None:
        centres = sum(1 for who in owners.values() if who == power)
        count = centres - sum(1 for u in units.values() if u[0] == power)
        counts = {"centres": centres, "units": centres - count, "builds": max(count, 0),
                  "removals": max(-count, 0)}  # fmt: skip
    for n, line in segments(text):
        try:
            p = parse(board, line)
        except Unreadable as bad:
            problems.append(refusal(n, line, bad))
            continue
        notices += [Notice(n, "read_as", {"typed": t, "province": board.label(q)})
                    for t, q in p.read_as]  # fmt: skip
        o = _adjustment(board, units, power, p, seq, n)
        if isinstance(o, Problem):
            problems.append(replace(o, text=line))
            continue
        why = None if owners is None else _refuse_adjustment(board, units, owners, power, o,
                                                            orders, counts)  # fmt: skip
        if why is not None:
            problems.append(_problem(n, line, why[0], **why[1]))
            continue
        orders.append(o)
    return OrderSheet(power, tuple(orders), tuple(problems), tuple(notices))


def _adjustment(board: Board, units: Units, power: str, p: Parsed, seq: int,
                n: int) -> Order | Problem:  # fmt: skip
    if p.verb == WAIVE:
        return Waive(player=power, seq=seq, line=n)
    if p.verb not in (BUILD, DISBAND):
        return Problem(n, "", ProblemKind.NOT_ALLOWED, "not_in_adjustments", {})
    assert p.place is not None
    loc = p.place.loc
    if p.verb == BUILD:
        if p.kind is None:
            return _problem(n, "", "build_needs_kind", province=p.place.prov)
        return Build(player=power, seq=seq, line=n, kind=p.kind, loc=loc)
    unit = units.get(p.place.prov)
    kind = unit[1] if unit else (p.kind or "A")
    return Remove(player=power, seq=seq, line=n, kind=kind, loc=unit[2] if unit else loc)


def _refuse_adjustment(board: Board, units: Units, owners: Mapping[str, str], power: str,
                       o: Order, earlier: list[Order],
                       counts: dict[str, int]) -> tuple[str, dict[str, Any]] | None:  # fmt: skip
    """Why an adjustment is refused at once, or None."""
    builds = sum(1 for e in earlier if isinstance(e, (Build, Waive)))
    if isinstance(o, (Build, Waive)):
        if counts["builds"] == 0:
            return "no_builds", counts
        if builds >= counts["builds"]:
            return "too_many_builds", counts
        if isinstance(o, Waive):
            return None
        assert isinstance(o, Build)
        if any(isinstance(e, Build) and province_of(e.loc) == province_of(o.loc) for e in earlier):
            return "already_building", {"province": province_of(o.loc)}
        why = _build_problem(board, units, owners, power, o)
        if why is None:
            return None
        prov = province_of(o.loc)
        if why == "coast needed":
            return "coast_needed_to_build", {
                "province": prov,
                "coasts": list(board.province[prov].coasts),
            }
        return why.replace(" ", "_"), {"province": prov}
    assert isinstance(o, Remove)
    prov = province_of(o.loc)
    if counts["removals"] == 0:
        return "no_removals", counts
    unit = units.get(prov)
    if unit is None or unit[0] != power:
        return "no_unit_to_remove", {"province": prov}
    if any(isinstance(e, Remove) and province_of(e.loc) == prov for e in earlier):
        return "already_removing", {"province": prov}
    if sum(1 for e in earlier if isinstance(e, Remove)) >= counts["removals"]:
        return "too_many_removals", counts
    return None


def read_retreats(board: Board, units: Units, dislodged: Mapping[str, Dislodged],
                  contested: frozenset[str], power: str, text: str,
                  seq: int = 0) -> OrderSheet:  # fmt: skip
    """Retreats (A VIE - BOH, A VIE R BOH) and disbands (A VIE D), one
    per dislodged unit: a later one replaces the earlier, with a notice."""
    orders: dict[str, Retreat] = {}
    problems: list[Problem] = []
    notices: list[Notice] = []
    for n, line in segments(text):
        try:
            p = parse(board, line)
            o = _retreat(board, units, dislodged, contested, power, p, seq, n)
        except Unreadable as bad:
            problems.append(refusal(n, line, bad))
            continue
        notices += [Notice(n, "read_as", {"typed": t, "province": board.label(q)})
                    for t, q in p.read_as]  # fmt: skip
        if o.unit in orders:
            earlier = orders.pop(o.unit)
            notices.append(Notice(n, "replaces", {"unit": f"{o.kind} {o.loc.upper()}",
                                                  "earlier": earlier.canonical()}))  # fmt: skip
        orders[o.unit] = o
    return OrderSheet(power, tuple(orders.values()), tuple(problems), tuple(notices))


def _retreat(board: Board, units: Units, dislodged: Mapping[str, Dislodged],
             contested: frozenset[str], power: str, p: Parsed, seq: int,
             n: int) -> Retreat:  # fmt: skip
    if not any(d.power == power for d in dislodged.values()):
        raise Unreadable("nothing_to_retreat", ProblemKind.NOT_ALLOWED)
    if p.verb not in (MOVE, DISBAND):
        raise Unreadable("not_in_retreats", ProblemKind.NOT_ALLOWED)
    assert p.place is not None
    prov = p.place.prov
    d = dislodged.get(prov)
    if d is None or d.power != power:
        raise Unreadable("no_dislodged_unit", ProblemKind.NOT_ALLOWED, (), province=prov)
    if p.kind and p.kind != d.kind:
        raise Unreadable("wrong_unit_type", ProblemKind.NOT_ALLOWED, (), province=prov,
                         kind=d.kind)  # fmt: skip
    if p.verb == DISBAND:
        return Retreat(player=power, seq=seq, line=n, kind=d.kind, loc=d.loc, to=None)
    assert p.to is not None
    options = retreat_options(board, units, d, contested)
    reach = [o for o in options if province_of(o) == p.to.prov]
    if p.to.coast:
        reach = [o for o in reach if o == p.to.loc]
    if len(reach) != 1:
        shown = [o.upper() for o in options] or ["nowhere (it is disbanded)"]
        raise Unreadable("cannot_retreat_there", ProblemKind.NOT_ALLOWED, (),
                         unit=f"{d.kind} {d.loc.upper()}", target=p.to.loc.upper(),
                         options=shown)  # fmt: skip
    return Retreat(player=power, seq=seq, line=n, kind=d.kind, loc=d.loc, to=reach[0])
