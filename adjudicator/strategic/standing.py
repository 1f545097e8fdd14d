"""Standing orders (RULINGS.md): a move or attack that went beyond a day's
mobility goes on at step 3 of later ticks, in the order given, as far as
mobility allows. One whose way is blocked or whose target can no longer be
reached (a sea square a ship of its own side holds, too) is dropped and its
owner told; a new order for a unit replaces it
(units.release). A standing order was paid when given: it costs no
command points as it goes on."""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.base import Event, Rng
from adjudicator.strategic.combat import assault
from adjudicator.strategic.firing import enemies_at, may_attack
from adjudicator.strategic.movement import (
    FAILED,
    Going,
    run_group,
    target_refusal,
)
from adjudicator.strategic.places import Places
from adjudicator.strategic.resolve import Happened
from adjudicator.strategic.rules import tables
from adjudicator.strategic.sight import sees_square
from adjudicator.strategic.state import Standing, State, Unit


def run_standing(state: State, rng: Rng, events: list[Event], places: Places | None = None) -> None:
    """Step 3 of a tick: every standing order, in the order given."""
    places = places or Places(state)
    kept: list[Standing] = []
    for standing in list(state.standing):
        rest = continue_standing(state, standing, rng, events, places)
        if rest is not None:
            kept.append(rest)
    state.standing = kept


def continue_standing(
    state: State, standing: Standing, rng: Rng, events: list[Event], places: Places | None = None
) -> Standing | None:
    """Carry one standing order on: what is left of it, or None when it is
    done or dropped (the units it names that are gone are left out)."""
    places = places or Places(state)
    units = [
        state.units[u]
        for u in standing.units
        if u in state.units and state.units[u].owner == standing.nation
    ]
    if not units:
        return None
    if standing.action == "attack":
        goings = _attack_on(state, places, standing, units, rng, events)
    else:
        refusal = target_refusal(state, places, standing.nation, standing.target)
        if refusal and sees_square(state, standing.nation, standing.target, places, units):
            _dropped(state, standing, [u.id for u in units], str(refusal[0]), events)
            return None
        goings = run_group(state, places, units, standing.target, 0, events, rng)
    for why in sorted({g.status for g in goings if g.status in FAILED}):
        failed = [g.unit for g in goings if g.status == why]
        _dropped(state, standing, failed, why, events)
    held = [g.unit for g in goings if g.status == "stopped" and not g.stopped_by]
    if held:  # RULINGS.md: a ship of its own side holds the target: it cannot be carried out
        _dropped(state, standing, held, "held_by_your_side", events)
    for why in ("intercepted", "interdicted"):  # stopped on the way: the rest is dropped
        stopped = [g.unit for g in goings if g.stopped_by == why and _short(state, standing, g)]
        if stopped:
            _dropped(state, standing, stopped, why, events)
    going = tuple(g.unit for g in goings if g.status == "going")
    if not going:
        return None
    return Standing(standing.nation, going, standing.target, standing.action, standing.seq,
                    standing.line)  # fmt: skip


def _short(state: State, standing: Standing, going: Going) -> bool:
    """A unit stopped on the way that had more to do: an attack, or a move
    not yet at its target."""
    unit = state.units.get(going.unit)
    return standing.action == "attack" or unit is None or unit.square != standing.target


def _attack_on(
    state: State,
    places: Places,
    standing: Standing,
    units: list[Unit],
    rng: Rng,
    events: list[Event],
) -> list[Going]:
    """A standing attack: dropped if nothing it may attack is left there;
    while the target is out of sight, the units only close in on it."""
    if not sees_square(state, standing.nation, standing.target, places, units):
        goings = run_group(state, places, units, standing.target, 1, events, rng)
        if not sees_square(state, standing.nation, standing.target, places, units):
            return goings
    enemies = enemies_at(state, places, standing.nation, standing.target)
    kinds = tables().units
    able = [u for u in units if any(may_attack(state, kinds[u.kind], e) for e in enemies)]
    if not able:
        _dropped(state, standing, [u.id for u in units], "nothing_to_attack", events)
        return []
    if len(able) < len(units):
        left = [u.id for u in units if u not in able]
        _dropped(state, standing, left, "cannot_attack", events)
    goings, _ = assault(state, places, able, standing.target, rng, events)
    return goings


def _dropped(
    state: State, standing: Standing, units: Sequence[str], why: str, events: list[Event]
) -> None:
    """Tell the owner a standing order (or some of its units) was dropped.
    A private notice: it has no ``square`` fact, only the ``target``."""
    facts = {
        "nation": standing.nation,
        "units": list(units),
        "target": state.grid.name(standing.target),
        "action": standing.action,
        "why": why,
        "seq": standing.seq,
        "line": standing.line,
    }
    events.append(Event(Happened.STANDING_DROPPED, facts, frozenset({standing.nation})))
