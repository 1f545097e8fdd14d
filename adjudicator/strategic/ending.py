"""The end of the game (strategic-initiative.html, section 16; RULINGS.md):
after the game's length in ticks (960 by default), the team of allies with
the most cities wins, each member a win; if two or more teams tie for the
most, nobody wins and the game is a draw among them."""

from __future__ import annotations

from collections import Counter

from adjudicator.base import Event, Outcome
from adjudicator.strategic.diplomacy import teams
from adjudicator.strategic.state import State


def end(state: State, events: list[Event]) -> Outcome | None:
    """Step 5 of a tick, last: once ``state.tick`` reaches ``state.length``
    the game ends; sets ``state.outcome`` and tells every nation. Returns
    the outcome (None while the game goes on). Scores are each nation's
    cities at the end."""
    if state.outcome is not None or state.tick < state.length:
        return state.outcome
    outcome, facts = final(state)
    state.outcome = outcome
    events.append(Event("game_over", facts, frozenset(state.nations)))
    return outcome


def final(state: State) -> tuple[Outcome, dict[str, object]]:
    """The outcome as the position stands, and the facts of its event:
    every team with its members and cities, the winners, the drawn."""
    count = Counter(c.owner for c in state.cities.values() if c.owner is not None)
    scored = [(sum(count[n] for n in team), sorted(team)) for team in teams(state)]
    best = max((cities for cities, _ in scored), default=0)
    top = [members for cities, members in scored if cities == best]
    winners: list[str] = top[0] if len(top) == 1 else []
    drawn = [] if winners else sorted(n for members in top for n in members)
    reason = "most_cities" if winners else "draw"
    scores = {n: count[n] for n in sorted(state.nations)}
    facts: dict[str, object] = {
        "reason": reason,
        "winners": winners,
        "drawn": drawn,
        "teams": [{"members": members, "cities": cities} for cities, members in scored],
    }
    return Outcome(reason, tuple(winners), scores), facts
