"""Strategic Initiative reports rendered from a real engine state, with the
context the host gives a report template (pbem.reports.context's keys),
for a player, an observer and the game master. The scripted game is the
benchmark's players on a generated board."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from adjudicator.base import OrderSheet, Rng, TurnResult, turn_seed
from adjudicator.strategic import sight
from adjudicator.strategic.board import new_unit
from adjudicator.strategic.game import GAME, clock
from adjudicator.strategic.state import State
from pbem.reports import OBSERVER, Reader, _ran, render, sealed_hash
from pbem.words import say

PLAYERS = ["ann", "bob", "cid"]
WHEN = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def scripted(ticks: int, seed: int = 4, length: int | None = None) -> tuple[State, TurnResult]:
    """A game of three scripted players (the benchmark's script: moves,
    builds, war on the next player) for ``ticks`` ticks, orders read from
    text as mail is; war is declared at tick 2 so that there is fighting.
    The last state and the last tick's result."""
    from bench.strategic import script

    options = {} if length is None else {"length": length}
    state = raiders(GAME.start(GAME.load_map("islands"), PLAYERS, options, seed))
    rng = Rng(seed)
    result = None
    for _ in range(ticks):
        seen = sight.all_visible(state)
        sheets: list[OrderSheet] = []
        for i, p in enumerate(PLAYERS):
            text = script(state, p, rng, seen[p])
            if state.tick == 1:
                text += f"\ndeclare war on {PLAYERS[(i + 1) % len(PLAYERS)]}\nstatus"
            sheets.append(GAME.read_orders(state, p, text, state.tick + 1))
        result = GAME.adjudicate(state, sheets, turn_seed(seed, state.tick + 1))
        state = result.state
    assert result is not None
    return state, result


def raiders(state: State) -> State:
    """Each nation's neighbour (the next player) has a destroyer and a
    patrol boat off its ports, so that the game has sightings and fights
    from its first ticks (home islands are far apart)."""
    for i, player in enumerate(PLAYERS):
        raider = PLAYERS[(i + 1) % len(PLAYERS)]
        ports = sorted(c.square for c in state.cities.values()
                       if c.owner == player and c.designation == "port")  # fmt: skip
        for port, kind in zip(ports, ("destroyer", "patrol_boat"), strict=False):
            free = [sq for sq in state.grid.neighbours(port)
                    if not state.board.is_land(sq) and not state.units_at(sq)]  # fmt: skip
            new_unit(state, raider, kind, free[0])
    return state


SEEN_UNIT = ("id", "kind", "name", "owner", "square", "at", "hp")


def observer_board(state: State) -> dict[str, Any]:
    """A board as an observer gets it: no nation and no units of its own;
    the units some player sees now, and every city, its owner and
    designation where some player sees it."""
    master = GAME.view(state, None).board
    seen = frozenset().union(*sight.all_visible(state).values())

    def city(c: dict[str, Any]) -> dict[str, Any]:
        known = c["square"] in seen
        return {"name": c["name"], "square": c["square"], "at": c["at"], "known": known,
                "owner": c["owner"] if known else None,
                "designation": c["designation"] if known else None}  # fmt: skip

    units = [
        {k: u[k] for k in SEEN_UNIT} | {"status": "seen"}
        for u in master["units"]
        if u["square"] in seen
    ]
    return {
        **{k: master[k] for k in ("width", "height", "grid", "land")},
        "viewer": None,
        "seen": seen,
        "units": units,
        "cities": [city(c) for c in master["cities"]],
        "nation": None,
        "nations": [sight.other_entry(state, n, n.name) for n in state.nations.values()],
    }


def reader(role: str, name: str | None = None) -> Reader:
    if role == "player":
        return Reader(name or "", f"{name}@example.org", name, "player", "UTC")
    if role == "observer":
        return Reader("watch@example.org", "watch@example.org", OBSERVER, "observer", "UTC")
    return Reader("", "gm@example.org", None, "master", "UTC")


def context(state: State, result: TurnResult, who: Reader, report: str,
            board: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """Every key pbem.reports.context gives a template, filled from the
    engine's state and tick as the host fills them, and ``report``."""
    seen = result.for_viewer(who.viewer)
    view = GAME.view(state, who.viewer if who.role != "observer" else None)
    outcome = GAME.outcome(state)
    standings = [
        {"player": s.player, "label": f"{s.player} ({GAME.seat(state, s.player)})",
         "cells": [v for _, v in s.measures], "status": s.status}
        for s in view.standings
    ]  # fmt: skip
    return {
        "server": SimpleNamespace(address="judge@example.org", name="pbem"),
        "game": "isles",
        "title": GAME.title,
        "phase": clock(state.tick),
        "turn": state.tick,
        "next_phase": view.phase,
        "resolved": "Mon 23 Nov 2026 12:00 UTC (UTC)",
        "why": "deadline",
        "late": False,
        "deadline_was": "Mon 23 Nov 2026 12:00 UTC (UTC)",
        "players": [],
        "ran": _ran(GAME, seen),
        "board": board if board is not None else view.board,
        "results_by_player": {},
        "events": [say("strategic", "events", e.kind, dict(e.facts)) for e in seen.events],
        "measures": ["cities", "units"],
        "standings": standings,
        "votes": [],
        "press": [],
        "deadline": None if outcome else "Mon 23 Nov 2026 12:15 UTC (UTC)",
        "options": [],
        "reader": who,
        "address": "isles@example.org",
        "chance": GAME.uses_chance,
        "seed": 1234,
        "next_seed_hash": sealed_hash("5678"),
        "outcome": outcome,
        "final": outcome is not None,
        "keep_days": 30,
        "master": who.role == "master",
        "unsubscribe": None,
        "report": report,
    }


def rendered(state: State, result: TurnResult, who: Reader, report: str,
             board: dict[str, Any] | None = None) -> tuple[str, str]:  # fmt: skip
    return render("strategic", context(state, result, who, report, board))
