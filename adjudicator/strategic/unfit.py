"""Units an order names that its type keeps out of it, whatever the
position (RULINGS.md: where the player can see why an order would do
nothing when it is read, it is refused on the receipt): in an attack,
units with attack 0 (transports, supply ships, engineers, zeppelins,
satellites, ICBMs); in a move, satellites and ICBMs (they are launched);
in a refuel, units that need no fuel (zeppelins, and every unit that is no
plane). The receipt leaves them out of the order with a note (``notice``)
and keeps the others; if none is left, the line is refused (``problem``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from adjudicator.strategic import air
from adjudicator.strategic.orders import Attack, Move, Refuel
from adjudicator.strategic.rules import UnitType, tables
from adjudicator.strategic.state import State

LAUNCHED = ("space", "missile")  # domains that are launched, never moved by orders


@dataclass(frozen=True)
class Rule:
    """Which units of an order's kind are unfit for it, and the codes of
    the receipt's note (some left out) and refusal (all of them)."""

    unfit: Callable[[UnitType], bool]
    notice: str
    problem: str


RULES: dict[type, Rule] = {
    Attack: Rule(lambda k: not k.attacks, "left_out", "never_attacks"),
    Move: Rule(lambda k: k.domain in LAUNCHED, "not_moved", "launched_not_moved"),
    Refuel: Rule(lambda k: not air.needs_fuel(k.key), "no_fuel_needed", "needs_no_fuel"),
}
NOTICES = frozenset(r.notice for r in RULES.values())
PROBLEMS = frozenset(r.problem for r in RULES.values())


def facts(state: State, ids: tuple[str, ...]) -> dict[str, Any]:
    """The units left out and the names of their types."""
    kinds = tables().units
    names = sorted({kinds[state.units[u].kind].name for u in ids})
    return {"units": list(ids), "unit_types": names}


def sort_out(state: State, order: Any) -> Any:
    """``order`` without the units its kind keeps out (named in its
    ``left_out``); or, if none is left, (the refusal's code, its facts,
    suggestions: ``launch sat2 at K12`` for what is launched)."""
    rule = RULES.get(type(order))
    if rule is None:
        return order
    kinds = tables().units
    out = tuple(u for u in order.units if rule.unfit(kinds[state.units[u].kind]))
    if not out:
        return order
    if len(out) < len(order.units):
        kept = tuple(u for u in order.units if u not in out)
        return replace(order, units=kept, left_out=out)
    where = getattr(order, "target_name", "")
    launched = [u for u in out if kinds[state.units[u].kind].domain in LAUNCHED]
    suggest = [f"launch {u} at {where}" for u in launched] if where else []
    return rule.problem, facts(state, out), suggest
