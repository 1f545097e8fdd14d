"""Gunboat: a game played anonymously (games.yaml ``anonymous: true``,
for a game whose engine can name its players by what they play:
``Game.masked``; Empire). Its players and observers see powers only,
never another player's name or address: in reports, the start mail,
press, STATUS, the master's notices, HISTORY (the reports as mailed) and
the web pages. The game master sees everything. At the game's end the
names are revealed, as njudge does: the final report and the game-over
mail name every player with their power.

Hiding is done where a reader's data is made: the state is read through
``Game.masked`` (each player renamed to their seat), the turn's results
with each order's player renamed the same way, so every template and
every map picture shows seats and has no name to show."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from adjudicator.base import Game, TurnResult
from pbem.app import App
from pbem.config import GameConfig
from pbem.store import GameRow


def hides(cfg: GameConfig | None, engine: Game, state: Any, master: bool = False) -> bool:
    """Whether a reader (not the game master) sees seats instead of names:
    an anonymous game that has not ended (its end reveals the names)."""
    return (
        cfg is not None
        and cfg.anonymous
        and not master
        and state is not None
        and engine.outcome(state) is None
    )


def names(engine: Game, state: Any) -> dict[str, str]:
    """Each player of ``state`` -> the seat they are shown by."""
    masked = engine.masked(state)
    if masked is None:
        return {}
    return {p.name: engine.seat(state, p.name) or "(a player who left)" for p in state.players}


def shown(engine: Game, state: Any, name: str, hide: bool) -> str:
    """A player as a reader sees them: the seat in a hidden game."""
    return names(engine, state).get(name, name) if hide else name


def shown_in(app: App, cfg: GameConfig, row: GameRow, player: str) -> str:
    """A player as the game's players see them, in the game as stored."""
    engine = app.engine(row.kind)
    state = engine.load_state(row.state)
    return shown(engine, state, player, hides(cfg, engine, state))


def masked_turn(engine: Game, result: TurnResult, mask: dict[str, str]) -> TurnResult:
    """A turn's result (already filtered for its reader) with the state
    masked and every order's player named by their seat."""
    results = tuple(
        replace(r, order=replace(r.order, player=mask.get(r.order.player, r.order.player)))
        for r in result.results
    )
    return TurnResult(engine.masked(result.state), results, result.events)


def for_reader(
    engine: Game, result: TurnResult, viewer: str | None, hide: bool
) -> tuple[TurnResult, str | None]:
    """(the result as the reader sees it, the reader's viewer name in it)."""
    seen = result.for_viewer(viewer)
    if not hide:
        return seen, viewer
    mask = names(engine, result.state)
    return masked_turn(engine, seen, mask), mask.get(viewer or "", viewer)


def view_of(engine: Game, state: Any, viewer: str | None, hide: bool) -> Any:
    """``engine.view`` for a reader, through the mask in a hidden game."""
    if not hide:
        return engine.view(state, viewer)
    mask = names(engine, state)
    return engine.view(engine.masked(state), mask.get(viewer or "", viewer))
