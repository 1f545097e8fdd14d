"""PREFERENCE: a player ranks the seats (Empire's powers) while the game
waits for its players, as njudge's SET PREFERENCE and Diplicity's nation
preferences. The list is stored with the seat and read when the game
starts (pbem/lifecycle/start.py; the game chooses: Game.start_seated)."""

from __future__ import annotations

import re

from pbem.commands.context import GameContext
from pbem.commands.registry import Family, Use, Who
from pbem.config.wishes import seat_word
from pbem.lifecycle.seats import seat_of
from pbem.lifecycle.start import board_of

family = Family("preference")

HOW = (
    "the powers go where they place the players highest on their lists, all lists "
    "taken together, ties settled by the game's seed"
)


@family.command(
    "PREFERENCE",
    who=Who.PLAYER,
    args="power ...",
    help="the powers you wish to play, most wished first (before the game starts)",
    usage="`PREFERENCE France Germany Italy`",
    doc="the powers you wish to play, the most wished first (any of the seven, `Eng`, "
    "`Fra`... will do), in a game that has not started: it counts when the game starts, "
    "where the powers go so as to place everyone as high on their lists as can be, ties "
    "settled by the game's seed; a new one replaces it (Empire)",
    forming=True,
)
def preference(ctx: GameContext, use: Use) -> None:
    refusal = _refused(ctx)
    if refusal is not None:
        ctx.say(f"line {use.line}: PREFERENCE: {refusal}")
        return
    board = board_of(ctx.engine, ctx.cfg)
    names = ctx.engine.seat_names(board)
    words = [w for w in re.split(r"[\s,;>]+", use.arg) if w]
    if not words:
        now = ", ".join(ctx.me.wishes) or "none"
        ctx.say(
            f"line {use.line}: PREFERENCE: name the powers in the order you wish them, "
            f"for example PREFERENCE {' '.join(names[:3])} (the powers: {', '.join(names)}). "
            f"Your list now: {now}."
        )
        return
    ranked: list[str] = []
    for word in words:
        seat, why = seat_word(ctx.engine, board, word)
        if seat is None or seat in ranked:
            why = why or f"{seat} is on the list twice"
            ctx.say(f"line {use.line}: PREFERENCE: {why}; nothing was recorded")
            return
        ranked.append(seat)
    ctx.app.store.set_player(ctx.conn, ctx.me.id, preferences="\n".join(ranked))
    ctx.worker.forget()
    ctx.changed = True
    ctx.say(
        f"PREFERENCE recorded for {ctx.game}: {', '.join(ranked)}, in that order. It counts "
        f"when the game starts: {HOW}. A new PREFERENCE replaces it."
    )


def _refused(ctx: GameContext) -> str | None:
    """Why the sender may not rank the seats of this game now."""
    engine, cfg = ctx.engine, ctx.cfg
    if ctx.game_row.status != "forming":
        seat = seat_of(engine, ctx.state, ctx.me.name) if ctx.state is not None else None
        you = f"; you play {seat}" if seat else ""
        return (
            f"{ctx.game} has started and its powers are given{you}. A preference counts "
            "only before a game starts"
        )
    if cfg.position or not engine.seat_names(board_of(engine, cfg)):
        return f"{engine.title} players do not choose what they play"
    given = next((p.power for p in cfg.players if p.name == ctx.me.name and p.power), None)
    if given:
        return f"the game master gave you {given} (games.yaml); nothing was recorded"
    return None
