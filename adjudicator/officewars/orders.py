"""Office Wars orders: the notation players write, and the legality check.

One order a line, case-insensitive; system names may be shortened to any
unique prefix of a name or alias. Accepted forms (docs/rules/officewars.md):

    Sol holds            Sol h            hold Sol
    Sol moves to Rigel   Sol -> Rigel     move Sol to Rigel
    Sol attacks Vega     Sol x Vega       attack Vega from Sol
    Sol supports Vega    Sol s Vega       support Vega from Sol
    vote surrender       vote no

Parsing gives :class:`Order` values or :class:`Problem` values, never
exceptions, so the other lines of a mail still count.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from adjudicator.base import Notice, Order, OrderSheet, Problem, ProblemKind, is_absence_line
from adjudicator.officewars.state import ACTIVE, State

# ----------------------------------------------------------------------------
# Order values


@dataclass(frozen=True, kw_only=True, slots=True)
class UnitOrder(Order):
    system: str  # where the unit stands at the start of the tick

    @property
    def unit(self) -> str:
        return self.system


@dataclass(frozen=True, kw_only=True, slots=True)
class Hold(UnitOrder):
    def canonical(self) -> str:
        return f"{self.system} holds"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "hold", "player": self.player, "system": self.system}


@dataclass(frozen=True, kw_only=True, slots=True)
class Move(UnitOrder):
    to: str

    def canonical(self) -> str:
        return f"{self.system} moves to {self.to}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "move", "player": self.player, "system": self.system, "to": self.to}


@dataclass(frozen=True, kw_only=True, slots=True)
class Attack(UnitOrder):
    target: str

    def canonical(self) -> str:
        return f"{self.system} attacks {self.target}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "attack",
            "player": self.player,
            "system": self.system,
            "target": self.target,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class Support(UnitOrder):
    target: str  # the system whose unit (at the start of the tick) is supported

    def canonical(self) -> str:
        return f"{self.system} supports {self.target}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "support",
            "player": self.player,
            "system": self.system,
            "target": self.target,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class Vote(Order):
    surrender: bool

    @property
    def unit(self) -> str:
        return "vote"

    def canonical(self) -> str:
        return "vote surrender" if self.surrender else "vote no"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "vote", "player": self.player, "surrender": self.surrender}


# ----------------------------------------------------------------------------
# Notation

_HOLD = r"(?:holds?|stays?|defends?|h)"
_MOVE = r"(?:moves?\s+to|moves?|goes\s+to|go\s+to|to|m|->|=>|>)"
_ATTACK = r"(?:attacks?|att|invades?|x)"
_SUPPORT = r"(?:supports?|sup|s)"

# (kind, pattern); the first that matches decides. Leading-verb forms first,
# so "move Sol to Rigel" is not read as a system called "move Sol".
_FORMS: list[tuple[str, re.Pattern[str]]] = [
    ("vote", re.compile(r"^vote\s+(?P<v>surrender|yes|no\s+surrender|no|withdraw)$", re.I)),
    ("hold", re.compile(rf"^{_HOLD}\s+(?P<a>.+)$", re.I)),
    ("move", re.compile(r"^(?:move|go)\s+(?P<a>.+?)\s+to\s+(?P<b>.+)$", re.I)),
    ("attack", re.compile(r"^(?:attack|invade)\s+(?P<b>.+?)\s+from\s+(?P<a>.+)$", re.I)),
    ("support", re.compile(r"^support\s+(?P<b>.+?)\s+from\s+(?P<a>.+)$", re.I)),
    ("hold", re.compile(rf"^(?P<a>.+?)\s+{_HOLD}$", re.I)),
    ("move", re.compile(r"^(?P<a>.+?)\s*(?:->|=>|>)\s*(?P<b>.+)$", re.I)),
    ("move", re.compile(rf"^(?P<a>.+?)\s+{_MOVE}\s+(?P<b>.+)$", re.I)),
    ("attack", re.compile(rf"^(?P<a>.+?)\s+{_ATTACK}\s+(?P<b>.+)$", re.I)),
    ("support", re.compile(rf"^(?P<a>.+?)\s+{_SUPPORT}\s+(?P<b>.+)$", re.I)),
]

FORMS_HELP = (
    "Sol holds",
    "Sol moves to Rigel",
    "Sol attacks Vega",
    "Sol supports Vega",
    "vote surrender",
)


def forms_for(state: State, player: str) -> tuple[str, ...]:
    """The forms of order, written with ``player``'s own systems and ones
    they can reach now (never a made-up "Sol moves to Rigel"); a form with
    nothing to aim at now says what it needs instead. ("vote surrender"
    is an order only while a vote is open: the mail says so apart.)"""
    mine = sorted(s for s, who in state.units.items() if who == player)
    if not mine:
        return FORMS_HELP
    home = mine[0]
    adj = sorted(state.board.adjacency[home])
    moves = [s for s in state.chain(home) if s != home]
    attacks = [s for s in adj if state.owners.get(s) != player]
    supports = [s for s in adj if s in state.units and state.units[s] == player]
    return (
        f"{home} holds",
        f"{home} moves to {moves[0]}"
        if moves
        else f"{home} moves to <a system of yours joined to it>",
        f"{home} attacks {attacks[0]}" if attacks else f"{home} attacks <a system next to it>",
        f"{home} supports {supports[0]}" if supports else f"{home} supports <a unit next to it>",
    )


def _clean(line: str) -> str:
    return " ".join(line.strip().rstrip(".,;").split())


def _problem(
    line: int,
    text: str,
    kind: ProblemKind,
    reason: str,
    suggestions: tuple[str, ...] = (),
    **facts: Any,
) -> Problem:
    return Problem(line, text, kind, reason, facts, suggestions)


def parse_line(
    state: State, player: str, text: str, line: int = 0, seq: int = 0
) -> Order | Problem | None:
    """One line to an Order (not yet checked for legality), a Problem, or
    None for a blank line."""
    clean = _clean(text)
    if not clean:
        return None
    first_problem: Problem | None = None
    for kind, pattern in _FORMS:
        m = pattern.match(clean)
        if m is None:
            continue
        if kind == "vote":
            word = m["v"].lower()
            return Vote(player=player, seq=seq, line=line, surrender=word in ("surrender", "yes"))
        names: dict[str, str] = {}
        for role in ("a", "b"):
            if role not in m.groupdict():
                continue
            found = _name(state, m[role], line, text)
            if isinstance(found, Problem):
                break
            names[role] = found
        if isinstance(found, Problem):
            # another form may split the line where the names do resolve
            first_problem = first_problem or found
            continue
        a, b = names["a"], names.get("b", "")
        if kind == "hold":
            return Hold(player=player, seq=seq, line=line, system=a)
        if kind == "move":
            return Move(player=player, seq=seq, line=line, system=a, to=b)
        if kind == "attack":
            return Attack(player=player, seq=seq, line=line, system=a, target=b)
        return Support(player=player, seq=seq, line=line, system=a, target=b)
    if first_problem is not None:
        return first_problem
    if is_absence_line(clean):
        return _problem(line, text, ProblemKind.NOT_ALLOWED, "no_absence", ())
    # a bare system name is a hold the player forgot to finish: say so
    alone = state.board.lookup(clean)
    mine = tuple(f for f in forms_for(state, player) if "<" not in f)  # orders that work now
    hint = (f"{alone[0]} holds",) if len(alone) == 1 else mine
    return _problem(line, text, ProblemKind.NOT_UNDERSTOOD, "not_an_order", hint)


def _name(state: State, word: str, line: int, text: str) -> str | Problem:
    found = state.board.lookup(word)
    if len(found) == 1:
        return found[0]
    if not found:
        return _problem(
            line,
            text,
            ProblemKind.NOT_UNDERSTOOD,
            "no_such_system",
            state.board.closest(word),
            name=word.strip(),
        )
    return _problem(
        line,
        text,
        ProblemKind.AMBIGUOUS,
        "ambiguous_system",
        found[:8],
        name=word.strip(),
        count=len(found),
    )


# ----------------------------------------------------------------------------
# Legality against the state at the start of the tick


def check_order(state: State, order: Order) -> Problem | None:
    """None if ``order`` is legal in ``state``, else why not (RULINGS.md,
    Office Wars, Orders)."""

    def no(reason: str, suggestions: tuple[str, ...] = (), **facts: Any) -> Problem:
        return _problem(
            order.line, order.canonical(), ProblemKind.NOT_ALLOWED, reason, suggestions, **facts
        )

    player = state.player.get(order.player)
    if player is None or player.status != ACTIVE:
        return no("not_in_game", player=order.player)
    if state.outcome is not None:
        return no("game_over")
    if isinstance(order, Vote):
        return _check_vote(state, order, no)
    if not isinstance(order, UnitOrder):
        return no("not_an_order")
    here = order.system
    if here not in state.units:
        return no("no_unit", system=here)
    if state.units[here] != order.player:
        return no("not_your_unit", system=here, owner=state.units[here])
    adjacent = state.board.adjacency[here]
    if isinstance(order, Move):
        to = order.to
        if to == here:
            return no("already_there", system=here)
        if state.owners.get(to) != order.player:
            hint = (f"{here} attacks {to}",) if to in adjacent else ()
            return no("move_not_own", hint, system=here, to=to, owner=state.owners.get(to))
        if not state.chained(here, to):
            return no("no_chain", system=here, to=to)
    elif isinstance(order, Attack):
        target = order.target
        if target not in adjacent:
            return no("not_connected", system=here, target=target)
        if state.owners.get(target) == order.player:
            return no("already_own", (f"{here} moves to {target}",), system=here, target=target)
    elif isinstance(order, Support):
        target = order.target
        if target not in adjacent:
            return no("not_connected", system=here, target=target)
        if target not in state.units:
            return no("support_no_unit", system=here, target=target)
    return None


def _check_vote(state: State, order: Vote, no: Callable[..., Problem]) -> Problem | None:
    from adjudicator.officewars.votes import surrender_vote

    vote = surrender_vote(state)
    if vote.leader == order.player:
        return no("leader_cannot_vote", leader=vote.leader)
    if not vote.open:
        return no(
            "vote_not_open",
            leader=vote.leader,
            leader_systems=vote.leader_systems,
            second_systems=vote.second_systems,
        )
    return None


# ----------------------------------------------------------------------------
# A player's whole text


def read_orders(state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
    """Parse and check every line; a later order for the same unit replaces
    the earlier one, with a warning. Blank lines and lines starting with #
    are skipped."""
    kept: dict[str, Order] = {}
    problems: list[Problem] = []
    notices: list[Notice] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip().startswith("#"):
            continue
        parsed = parse_line(state, player, raw, number, seq)
        if parsed is None:
            continue
        if isinstance(parsed, Problem):
            problems.append(parsed)
            continue
        refused = check_order(state, parsed)
        if refused is not None:
            problems.append(
                Problem(
                    number,
                    raw.strip(),
                    refused.kind,
                    refused.reason,
                    refused.facts,
                    refused.suggestions,
                )
            )
            continue
        key = parsed.unit or ""
        if key in kept:
            notices.append(
                Notice(
                    number,
                    "replaces_earlier",
                    {
                        "unit": key,
                        "earlier_line": kept[key].line,
                        "earlier": kept[key].canonical(),
                        "now": parsed.canonical(),
                    },
                )
            )
            del kept[key]
        kept[key] = parsed
    notices += _blocking(state, player, kept)
    return OrderSheet(player, tuple(kept.values()), tuple(problems), tuple(notices))


def _blocking(state: State, player: str, kept: dict[str, Order]) -> list[Notice]:
    """Warnings for the sheet's moves that its own orders stop: a move into
    a system whose unit stays (it holds, with an order or none, supports or
    attacks: movement comes before battle), or two moves into one system."""
    out: list[Notice] = []
    moves = [o for o in kept.values() if isinstance(o, Move)]
    into: dict[str, list[Move]] = {}
    for m in moves:
        into.setdefault(m.to, []).append(m)
    for m in moves:
        if len(into[m.to]) > 1:
            others = [o.canonical() for o in into[m.to] if o is not m]
            out.append(Notice(m.line, "moves_collide", {"move": m.canonical(), "to": m.to,
                                                        "other": others[0]}))  # fmt: skip
            continue
        if state.units.get(m.to) != player:
            continue
        there = kept.get(m.to)
        if isinstance(there, Move):
            continue  # it moves away: a chain, a swap
        stays = there.canonical() if there is not None else f"{m.to} holds (no order for it)"
        out.append(Notice(m.line, "move_into_staying_unit", {"move": m.canonical(), "to": m.to,
                                                             "stays": stays}))  # fmt: skip
    return out


def default_orders(
    state: State, player: str, orders: list[Order] | tuple[Order, ...]
) -> tuple[Order, ...]:
    """Holds for the player's units left without an order."""
    ordered = {o.unit for o in orders}
    return tuple(
        Hold(player=player, system=s)
        for s, who in sorted(state.units.items())
        if who == player and s not in ordered
    )
