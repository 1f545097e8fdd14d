"""Resolving a Diplomacy movement phase.

Each order has one decision: a move succeeds, a support is given, a convoy
works (its fleet is not dislodged). A decision is computed from the others
it depends on (attack, hold, defend and prevent strengths, paths, cut
supports), recursively, as the DATC describes (section 5, Kruijswijk's
algorithm): when the recursion meets a decision it is already computing, it
guesses; if the answer depends on the guess, both guesses are tried; one
consistent answer is taken, and where both or neither are consistent the
backup rule decides: a circle of moves all succeed (circular movement), and
in a paradox involving convoys the convoyed moves in it fail (Szykman).
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator.base import Order
from adjudicator.empire.board import Board, province_of
from adjudicator.empire.orders import Convoy, Hold, Move, Support

UNRESOLVED, GUESSING, RESOLVED = 0, 1, 2


class Reason(enum.StrEnum):
    """Stable result codes, the classic judges' words; the value is what
    reports and JSON carry (templates/empire/phrases.yaml words them)."""

    # movement
    MOVED = "moved"
    BOUNCE = "bounce"
    NO_CONVOY = "no_convoy"  # a convoyed army whose convoy failed; its convoys and supports
    DISRUPTED = "disrupted"  # a convoy a paradox made fail (Szykman)
    HELD = "held"
    SUPPORTED = "supported"
    CUT = "cut"  # a support cut by an attack
    VOID = "void"  # a support or convoy matching no order, or one that cannot count
    CONVOYED = "convoyed"
    UNUSED = "unused"  # a convoy no army went through
    DISLODGED = "dislodged"
    BOUNCE_DISLODGED = "bounce_dislodged"
    CUT_DISLODGED = "cut_dislodged"
    VOID_DISLODGED = "void_dislodged"
    NO_CONVOY_DISLODGED = "no_convoy_dislodged"
    DISRUPTED_DISLODGED = "disrupted_dislodged"
    # retreats
    RETREATED = "retreated"
    DISBANDED = "disbanded"
    BOUNCED = "bounced"  # two retreats to one place: both destroyed
    # adjustments
    BUILT = "built"
    REMOVED = "removed"
    WAIVED = "waived"
    NO_BUILDS_LEFT = "no_builds_left"
    NO_REMOVALS_LEFT = "no_removals_left"
    NOT_A_HOME_SUPPLY_CENTRE = "not_a_home_supply_centre"
    HOME_SUPPLY_CENTRE_NOT_OWNED = "home_supply_centre_not_owned"
    OCCUPIED = "occupied"
    FLEETS_ARE_BUILT_ON_A_COAST = "fleets_are_built_on_a_coast"
    COAST_NEEDED = "coast_needed"
    NO_SUCH_UNIT = "no_such_unit"
    NOTHING_TO_ADJUST = "nothing_to_adjust"
    NOT_A_BUILD = "not_a_build"
    NOT_A_REMOVAL = "not_a_removal"

    @property
    def succeeded(self) -> bool:
        return self in _SUCCESS

    def dislodged(self) -> Reason:
        """This result with the unit dislodged as well."""
        if self in (Reason.BOUNCE, Reason.CUT, Reason.VOID, Reason.NO_CONVOY, Reason.DISRUPTED):
            return Reason(f"{self.value}_dislodged")
        return Reason.DISLODGED


_SUCCESS = frozenset({Reason.MOVED, Reason.HELD, Reason.SUPPORTED, Reason.CONVOYED,
                      Reason.RETREATED, Reason.BUILT, Reason.REMOVED, Reason.WAIVED})  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    """What became of a movement phase's orders."""

    succeeded: Mapping[str, bool]  # province of the unit -> its decision
    dislodged: Mapping[str, str]  # province -> province of the dislodging unit
    by_convoy: frozenset[str]  # provinces whose move went by convoy
    bounced: frozenset[str]  # provinces left empty by a standoff (no retreat there)


class Resolver:
    def __init__(self, board: Board, units: Mapping[str, tuple[str, str, str]],
                 orders: Mapping[str, Order]) -> None:  # fmt: skip
        self.board = board
        self.units = units  # province -> (power, kind, location)
        self.orders = {p: orders.get(p) or _hold(p, u) for p, u in units.items()}
        self.state: dict[str, int] = dict.fromkeys(self.orders, UNRESOLVED)
        self.result: dict[str, bool] = dict.fromkeys(self.orders, False)
        self.deps: list[str] = []  # decisions that used a guess, in order
        self.guessed = 0  # how many times a guess was used
        self.moves_to: dict[str, list[str]] = {}
        self.dest: dict[str, str] = {}  # province of a move's destination
        self._supports: dict[tuple[str, str | None], list[str]] = {}
        self._convoys: dict[tuple[str, str], list[str]] = {}
        others = []
        for p, o in self.orders.items():
            kind = type(o)
            if kind is Move:
                dest = self.dest[p] = o.to.partition("/")[0]  # type: ignore[attr-defined]
                self.moves_to.setdefault(dest, []).append(p)
                continue
            others.append((p, o, kind))
            if kind is Support:
                self._supports.setdefault((o.target, o.dest), []).append(p)  # type: ignore[attr-defined]
            elif kind is Convoy:
                self._convoys.setdefault((o.army, o.dest), []).append(p)  # type: ignore[attr-defined]
        self._convoyed: dict[str, bool] = {}
        self._paths: dict[str, bool] = {}  # moves that need no convoy: fixed
        self._h2h: dict[str, str | None] = {}
        self.paradox: set[str] = set()  # convoys a paradox made fail (backup): "disrupted"
        # decisions that depend on nothing: holds; supports and convoys of
        # units nobody moves against (a support is then given if it matches)
        moves_to, result, state = self.moves_to, self.result, self.state
        for p, o, kind in others:
            if kind is Hold:
                result[p], state[p] = True, RESOLVED
            elif p not in moves_to:
                result[p] = kind is Convoy or self._matches(o)  # type: ignore[arg-type]
                state[p] = RESOLVED

    # -- the decisions ------------------------------------------------------------

    def resolve(self, p: str) -> bool:
        state = self.state[p]
        if state == RESOLVED:
            return self.result[p]
        if state == GUESSING:  # met again while computing it: its guess is used
            if p not in self.deps:
                self.deps.append(p)
            self.guessed += 1
            return self.result[p]
        mark, seen = len(self.deps), self.guessed
        self.result[p], self.state[p] = False, GUESSING
        first = self.adjudicate(p)
        if self.guessed == seen:  # used no guess: this is the answer
            if self.state[p] != RESOLVED:
                self.result[p], self.state[p] = first, RESOLVED
            return self.result[p]
        if not self.deps[mark:] or self.deps[mark] != p:
            # it used the guess of a decision further up: stay a guess
            if p not in self.deps:
                self.deps.append(p)
            self.result[p] = first
            return first
        # p heads a cycle: try the other guess
        for q in self.deps[mark:]:
            self.state[q] = UNRESOLVED
        del self.deps[mark:]
        self.result[p], self.state[p] = True, GUESSING
        second = self.adjudicate(p)
        cycle = self.deps[mark:] or [p]
        for q in cycle:
            self.state[q] = UNRESOLVED
        del self.deps[mark:]
        self.guessed = seen  # the cycle is closed: callers used no guess of it
        if first == second:
            self.result[p], self.state[p] = first, RESOLVED
            return first
        self.backup(cycle)
        return self.resolve(p)

    def backup(self, cycle: list[str]) -> None:
        """No single answer: a circle of moves all succeed; a paradox with
        convoys in it makes those convoys fail (Szykman), so the convoyed
        armies do not move and cut no support."""
        convoys: set[str] = set()
        if not all(q in self.dest for q in cycle):
            convoys = {q for q in cycle if isinstance(self.orders[q], Convoy)}
            for q in cycle:
                if q in self.dest and self.via_convoy(q):
                    convoys.update(self.convoy_fleets(q))
        if convoys:
            for c in convoys:
                self.result[c], self.state[c] = False, RESOLVED
                self.paradox.add(c)
            for q in cycle:
                if self.state[q] != RESOLVED:
                    self.state[q] = UNRESOLVED
            return
        for q in cycle:
            if q in self.dest:
                self.result[q], self.state[q] = True, RESOLVED
            elif self.state[q] != RESOLVED:
                self.state[q] = UNRESOLVED

    def adjudicate(self, p: str) -> bool:
        o = self.orders[p]
        kind = type(o)
        if kind is Move:
            return self.move_succeeds(p, o)  # type: ignore[arg-type]
        if kind is Support:
            return self.support_given(p, o)  # type: ignore[arg-type]
        if kind is Convoy:
            return not self.dislodged(p)
        return True

    # -- moves --------------------------------------------------------------------

    def via_convoy(self, p: str) -> bool:
        """Whether the move from ``p`` goes by convoy (DATC 4.A.3: when not
        adjacent, when "via convoy" was written, or when a fleet of the
        army's own power is ordered to convoy it)."""
        if p in self._convoyed:
            return self._convoyed[p]
        o = self.orders[p]
        answer = False
        if isinstance(o, Move) and o.kind == "A":
            dest = self.dest[p]
            if o.convoy or dest not in self.board.army_adj[p]:
                answer = True
            else:
                power = self.units[p][0]
                answer = any(self.units[q][0] == power for q in self._convoys.get((p, dest), ()))
        self._convoyed[p] = answer
        return answer

    def convoy_fleets(self, p: str) -> list[str]:
        o = self.orders[p]
        assert isinstance(o, Move)
        return self._convoys.get((p, self.dest[p]), [])

    def path(self, p: str) -> bool:
        """The move from ``p`` can get there: adjacent, or a chain of
        working convoys from ``p`` to its destination."""
        known = self._paths.get(p)
        if known is not None:
            return known
        o = self.orders[p]
        assert isinstance(o, Move)
        if not self.via_convoy(p):  # over land or sea: it does not change
            known = self._paths[p] = o.kind == "F" or self.dest[p] in self.board.army_adj[p]
            return known
        dest = self.dest[p]
        fleets = [q for q in self.convoy_fleets(p) if self.resolve(q)]
        return self._chain(p, dest, set(fleets))

    def _chain(self, origin: str, dest: str, fleets: set[str]) -> bool:
        board = self.board
        touching = {q for q in fleets if origin in _shores(board, q)}
        seen, queue = set(touching), deque(touching)
        while queue:
            q = queue.popleft()
            if dest in _shores(board, q):
                return True
            for r in fleets - seen:
                if r in board.fleet_adj.get(q, ()):
                    seen.add(r)
                    queue.append(r)
        return False

    def head_to_head(self, p: str) -> str | None:
        """The province of the unit this move meets head on, if any (two
        units each moving to the other's province, neither by convoy)."""
        if p in self._h2h:
            return self._h2h[p]
        self._h2h[p] = found = self._head_to_head(p)
        return found

    def _head_to_head(self, p: str) -> str | None:
        q = self.dest[p]
        if (
            q in self.dest
            and self.dest[q] == p
            and not self.via_convoy(p)
            and not self.via_convoy(q)
        ):
            return q
        return None

    def supports_of(self, p: str, dest: str | None) -> list[str]:
        return self._supports.get((p, dest), [])

    def attack(self, p: str) -> int:
        if not self.path(p):
            return 0
        dest = self.dest[p]
        power = self.units[p][0]
        there = self.units.get(dest)
        supports = [s for s in self.supports_of(p, dest) if self.resolve(s)]
        if there is None:
            return 1 + len(supports)
        moving_away = dest in self.dest and self.head_to_head(p) is None and self.resolve(dest)
        if moving_away:
            return 1 + len(supports)
        if there[0] == power:
            return 0  # a power does not dislodge its own unit
        return 1 + sum(1 for s in supports if self.units[s][0] != there[0])

    def defend(self, p: str) -> int:
        dest = self.dest[p]
        return 1 + sum(1 for s in self.supports_of(p, dest) if self.resolve(s))

    def prevent(self, p: str) -> int:
        if not self.path(p):
            return 0
        opponent = self.head_to_head(p)
        if opponent is not None and self.resolve(opponent):
            return 0  # lost the head-to-head battle
        dest = self.dest[p]
        return 1 + sum(1 for s in self.supports_of(p, dest) if self.resolve(s))

    def hold(self, q: str) -> int:
        if q not in self.units:
            return 0
        if q in self.dest:
            return 0 if self.resolve(q) else 1
        return 1 + sum(1 for s in self.supports_of(q, None) if self.resolve(s))

    def move_succeeds(self, p: str, o: Move) -> bool:
        dest = self.dest[p]
        if dest not in self.units and len(self.moves_to[dest]) == 1:
            return self.path(p)  # alone into an empty province: it gets there if it can
        attack = self.attack(p)
        if attack == 0:
            return False
        opponent = self.head_to_head(p)
        if opponent is not None:
            if attack <= self.defend(opponent):
                return False
        elif attack <= self.hold(dest):
            return False
        return all(attack > self.prevent(r) for r in self.moves_to.get(dest, ()) if r != p)

    # -- supports and convoys -----------------------------------------------------------

    def dislodged(self, q: str) -> bool:
        """Whether the unit at ``q`` (not moving away) is dislodged."""
        if q in self.dest and self.resolve(q):
            return False
        return any(self.resolve(r) for r in self.moves_to.get(q, ()))

    def _matches(self, o: Support) -> bool:
        """The supported unit does what the support says."""
        supported = self.orders.get(o.target)
        if supported is None:
            return False
        if o.dest is None:
            return not isinstance(supported, Move)  # support to hold a unit that moves: void
        if not (isinstance(supported, Move) and self.dest[o.target] == o.dest):
            return False  # the supported unit does not make that move: void
        # supported to another coast than it moves to: void
        return not (
            o.dest_coast and "/" in supported.to and supported.to.split("/")[1] != o.dest_coast
        )

    def support_given(self, p: str, o: Support) -> bool:
        if not self._matches(o):
            return False
        power = self.units[p][0]
        for r in self.moves_to.get(p, ()):
            if self.units[r][0] == power:
                continue  # one's own units do not cut support
            if o.dest is not None and r == o.dest:
                if self.resolve(r):
                    return False  # attacked from where it supports into, and dislodged
                continue
            if self.via_convoy(r):
                if self.path(r):
                    return False
            else:
                return False
        return True

    # -- the whole phase -----------------------------------------------------------------

    def run(self) -> Outcome:
        for p in self.orders:
            self.resolve(p)
        dislodged: dict[str, str] = {}
        for q in self.units:
            if q in self.dest and self.result[q]:
                continue
            for r in self.moves_to.get(q, ()):
                if self.result[r]:
                    dislodged[q] = r
        by_convoy = frozenset(p for p in self.dest if self.via_convoy(p))
        arrived = {self.dest[p] for p in self.dest if self.result[p]}
        # a standoff: two or more moves that could get there, none did (a
        # move blocked by an own unit only matters where that unit stays)
        bounced = frozenset(
            dest
            for dest, movers in self.moves_to.items()
            if len(movers) >= 2
            and dest not in arrived
            and sum(1 for r in movers if self.path(r)) >= 2
            and (dest not in self.units or dest in dislodged or self._left(dest))
        )
        return Outcome(dict(self.result), dislodged, by_convoy, bounced)

    def _left(self, q: str) -> bool:
        return q in self.dest and self.result[q]


def _shores(board: Board, sea: str) -> set[str]:
    """The provinces a fleet at ``sea`` touches."""
    return {province_of(loc) for loc in board.fleet_adj.get(sea, ())}


def _hold(p: str, unit: tuple[str, str, str]) -> Hold:
    return Hold(player=unit[0], kind=unit[1], loc=unit[2])


def resolve_movement(board: Board, units: Mapping[str, tuple[str, str, str]],
                     orders: Mapping[str, Order]) -> Outcome:  # fmt: skip
    return Resolver(board, units, orders).run()


def after_movement(board: Board, units: Mapping[str, tuple[str, str, str]],
                   orders: Mapping[str, Order], outcome: Outcome):  # fmt: skip
    """(the units where they stand after the moves, the dislodged units by
    province: phases.Dislodged)."""
    from adjudicator.empire.phases import Dislodged

    after: dict[str, tuple[str, str, str]] = {}
    dislodged: dict[str, Dislodged] = {}
    for p, (power, kind, _loc) in units.items():
        o = orders.get(p)
        if isinstance(o, Move) and outcome.succeeded.get(p):
            after[province_of(o.to)] = (power, kind, o.to)
    for p, (power, kind, loc) in units.items():
        o = orders.get(p)
        if isinstance(o, Move) and outcome.succeeded.get(p):
            continue
        if p in outcome.dislodged:
            attacker = outcome.dislodged[p]
            dislodged[p] = Dislodged(power, kind, loc, attacker, attacker in outcome.by_convoy)
        else:
            after[p] = (power, kind, loc)
    return after, dislodged
