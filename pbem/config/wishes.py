"""games.yaml's ``power:`` and ``preferences:`` of a player: the seat the
game master gives (Empire: a power) and the seats a player wishes for, most
wished first. Read here for their kind, and checked with the map for their
names (the game names its seats: Game.seat_names, Game.read_seat)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from adjudicator.base import closest_names
from pbem.config.checker import Checker
from pbem.config.model import PlayerConfig

KEYS = ("power", "preferences")


def wished(c: Checker, rp: dict, label: str) -> tuple[str | None, tuple[str, ...]]:
    """A player's ``power`` and ``preferences`` as written."""
    power = c.string(rp, "power", f"{label}: power")
    prefs = rp.get("preferences")
    if prefs is None:
        return power, ()
    if not isinstance(prefs, list) or not all(isinstance(p, str) for p in prefs) or not prefs:
        c.add(
            rp,
            "preferences",
            f"{label}: preferences must be a list of powers, the most wished first "
            "([France, Germany])",
        )
        return power, ()
    if power is not None:
        c.add(rp, "preferences", f"{label}: give power or preferences, not both")
    return power, tuple(prefs)


def seat_word(engine: Any, board: Any, word: str) -> tuple[str | None, str]:
    """The seat a word names, or None and why not: a "did you mean" with
    the closest names, else the list of every seat."""
    seat = engine.read_seat(board, word)
    if seat is not None:
        return seat, ""
    names = engine.seat_names(board)
    close = closest_names(word, names)
    hint = f"did you mean: {', '.join(close)}?" if close else f"the powers: {', '.join(names)}"
    return None, f"there is no power {word!r} ({hint})"


def seats_given(
    c: Checker, raw: dict, label: str, engine: Any, board: Any, players: list[PlayerConfig]
) -> list[PlayerConfig]:
    """The players with their seats and wishes in the game's own names;
    each unknown name, and a seat given twice, is a problem on its line."""
    listed = {str(rp.get("name")): rp for rp in raw.get("players") or [] if isinstance(rp, dict)}
    if not engine.seat_names(board):
        why = f"{engine.title} players do not choose what they play (Empire players do)"
        no_seats_given(c, raw, label, why)
        return [replace(p, power=None, preferences=()) for p in players]
    out: list[PlayerConfig] = []
    given: dict[str, str] = {}
    for p in players:
        rp = listed.get(p.name, raw)
        power = None
        if p.power is not None:
            power, why = seat_word(engine, board, p.power)
            if why:
                c.add(rp, "power", f"{label}: {p.name}: power: {why}")
            elif power in given:
                c.add(rp, "power", f"{label}: {power} is given to both {given[power]} and {p.name}")
                power = None
            else:
                given[power] = p.name  # type: ignore[index]
        out.append(replace(p, power=power, preferences=_ranked(c, rp, label, engine, board, p)))
    return out


def _ranked(
    c: Checker, rp: dict, label: str, engine: Any, board: Any, p: PlayerConfig
) -> tuple[str, ...]:
    """A player's list of wishes in the game's names: each name known, none twice."""
    ranked: list[str] = []
    where = rp.get("preferences")
    for i, word in enumerate(p.preferences):
        seat, why = seat_word(engine, board, word)
        at = (where, i) if isinstance(where, list) else (rp, "preferences")
        if why:
            c.add(*at, f"{label}: {p.name}: preferences: {why}")
        elif seat in ranked:
            c.add(*at, f"{label}: {p.name}: preferences: {seat} is on the list twice")
        elif seat is not None:
            ranked.append(seat)
    return tuple(ranked)


def no_seats_given(c: Checker, raw: dict, label: str, why: str) -> None:
    """Every ``power`` and ``preferences`` of the game's players is a
    problem: ``why`` they do not apply."""
    for rp in raw.get("players") or []:
        for key in KEYS:
            if isinstance(rp, dict) and key in rp:
                c.add(rp, key, f"{label}: {rp.get('name')}: {key}: {why}")
