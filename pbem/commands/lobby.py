"""Commands for anyone, about the server's games: LIST, RANK, JOIN, LEAVE,
WATCH, UNWATCH. They need no game section and no password: a seat is tied
to the address that JOINs, a watcher to the address that WATCHes."""

from __future__ import annotations

import hmac
import re
import secrets

from pbem.commands.context import Context
from pbem.commands.registry import Family, Use, Where, Who
from pbem.config import PLAYER_NAME, GameConfig
from pbem.lifecycle.seats import add_player
from pbem.lifecycle.start import start_game
from pbem.store import GameRow
from pbem.words import plural

family = Family("lobby")


@family.command(
    "LIST",
    who=Who.ANYONE,
    where=Where.SERVER,
    help="the games on this server and their state",
    doc="the games on this server",
)
def list_games(ctx: Context, use: Use) -> None:
    app, store, now = ctx.app, ctx.app.store, ctx.now
    rows = [
        g
        for g in store.all_games(ctx.conn)
        if g.finished_at is None
        or (cfg := app.game_config(g.name)) is None
        or now - g.finished_at <= cfg.keep
    ]
    ctx.say("Games on this server:")
    for lobby in (c for c in app.config.games if c.lobby):
        ctx.say(
            f"  {lobby.name:<16} {app.engine(lobby.game).title}: JOIN {lobby.name} "
            f"to play; a lobby opens for every {lobby.seats} players"
        )
    for g in rows:
        ctx.say(_listed(ctx, g))
    if not rows:
        ctx.say("  none")


def _listed(ctx: Context, g: GameRow) -> str:
    """One game's line of LIST."""
    app = ctx.app
    engine = app.engine(g.kind)
    players = len(app.store.players(ctx.conn, g.name))
    cfg = app.game_config(g.name)
    if g.status == "forming" and cfg is not None:
        return (
            f"  {g.name:<16} {engine.title}, open: {players} of {cfg.seats} "
            f"seats taken (JOIN {g.name}): {app.game_address(g.name)}"
        )
    state = engine.load_state(g.state)
    status = g.status
    if g.finished_at is not None and cfg is not None:
        until = g.finished_at + cfg.keep
        status = f"over, readable until {until:%Y-%m-%d}"
    private = " (private)" if cfg is not None and cfg.visibility == "private" else ""
    return (
        f"  {g.name:<16} {engine.title}, {engine.phase(state)[1]}, "
        f"{plural(players, 'player')}, {status}{private}: {app.game_address(g.name)}"
    )


@family.command(
    "RANK",
    who=Who.ANYONE,
    where=Where.SERVER,
    help="the scoreboard: players with points, best first",
    doc="the scoreboard of games that keep one (Empire): players with points, best first",
)
def rank(ctx: Context, use: Use) -> None:
    ctx.say(*rank_lines(ctx.app.store.ranking(ctx.conn)))


def rank_lines(ranking: list[tuple[str, int, int]]) -> list[str]:
    """The scoreboard as text (RANK and `pbem rank`)."""
    if not ranking:
        return ["The scoreboard is empty: no player has points yet."]
    out = ["The scoreboard (points over finished games, never below 0):"]
    for i, (email, points, games) in enumerate(ranking, 1):
        out.append(
            f"  {i:>3}. {email:<32} {plural(points, 'point'):>11} in {plural(games, 'game')}"
        )
    return out


@family.command(
    "JOIN",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="game",
    help="join a game that is open for players",
    usage="`JOIN game [as name]`",
    doc="take a free seat in a game open for players (the last seat starts it)",
)
def join(ctx: Context, use: Use) -> None:
    ctx.say(f"line {use.line}: " + _join(ctx, use.arg))


def _join(ctx: Context, arg: str) -> str:
    """JOIN game [as name]: take a seat in a game that is open."""
    app, store, conn = ctx.app, ctx.app.store, ctx.conn
    words = arg.split()
    game = words[0].lower() if words else ""
    cfg = app.game_config(game)
    if cfg is not None and cfg.lobby and cfg.name == game:
        game = _open_lobby(ctx, cfg)  # the lobby to sit in, opened if need be
        cfg = app.game_config(game)
    row = store.game(conn, game) if game else None
    if row is None or cfg is None:
        return f"JOIN {arg}: there is no game called {game!r}"
    if row.status != "forming":
        return f"JOIN {game}: the game has started; ask its game master for a seat"
    seated = store.players(conn, game)
    sender = ctx.sender
    if any(p.email.lower() == sender.lower() for p in seated):
        return f"JOIN {game}: {sender} has a seat in {game} already"
    wanted = words[2] if len(words) >= 3 and words[1].lower() == "as" else _name_of(sender)
    if not PLAYER_NAME.match(wanted):
        return (
            f"JOIN {game}: {wanted!r} cannot be a player's name (a letter, then letters, "
            f"digits, _ or -); write JOIN {game} as <name>"
        )
    if any(p.name.lower() == wanted.lower() for p in seated):
        return f"JOIN {game}: the name {wanted!r} is taken; write JOIN {game} as <name>"
    add_player(app, conn, cfg, wanted, sender, None)
    ctx.worker.forget()
    taken = len(seated) + 1
    where = f" in the lobby {game}" if cfg.lobby else ""
    if taken >= cfg.seats:
        start_game(app, conn, cfg)
        return (
            f"JOIN {game}: you play as {wanted}{where}; every seat is taken and the "
            "game has started"
        )
    return (
        f"JOIN {game}: you play as {wanted}{where} ({taken} of {cfg.seats} seats "
        "taken); your password is on its way"
    )


def _name_of(sender: str) -> str:
    """A player's name made of an address (ann.lee@... plays as annlee)."""
    wanted = re.sub(r"[^A-Za-z0-9_-]", "", sender.partition("@")[0]) or "player"
    if not wanted[0].isalpha():
        wanted = "p" + wanted
    return wanted[:32]


def _open_lobby(ctx: Context, cfg: GameConfig) -> str:
    """The lobby of a lobby game that has free seats; a new one (the next
    number) when none has."""
    store = ctx.app.store
    numbers = []
    for g in store.all_games(ctx.conn):
        base, _, number = g.name.rpartition("-")
        if base == cfg.name and number.isdigit():
            numbers.append(int(number))
            if g.status == "forming" and len(store.players(ctx.conn, g.name)) < cfg.seats:
                return g.name
    name = f"{cfg.name}-{max(numbers, default=0) + 1}"
    instance = ctx.app.game_config(name)
    assert instance is not None
    seed = instance.seed if instance.seed is not None else secrets.randbits(48)
    store.add_game(ctx.conn, name, cfg.game, "", 0, seed, ctx.now, status="forming")
    ctx.worker.forget()
    return name


@family.command(
    "LEAVE",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="game",
    help="give up your seat in a game that has not started",
    doc="give up your seat in a game or lobby that has not started",
)
def leave(ctx: Context, use: Use) -> None:
    """LEAVE game: give up a seat in a lobby (or open game) not yet started."""
    store, conn, sender = ctx.app.store, ctx.conn, ctx.sender.lower()
    game = use.arg.split()[0].lower() if use.arg.split() else ""
    for g in store.all_games(conn):
        base = g.name.rpartition("-")[0]
        if game not in (g.name, base) or g.status != "forming":
            continue
        for p in store.players(conn, g.name):
            if p.email.lower() == sender:
                store.delete_player(conn, p.id)
                ctx.worker.forget()
                left = len(store.players(conn, g.name))
                ctx.say(
                    f"line {use.line}: LEAVE {game}: you have left {g.name} "
                    f"({plural(left, 'seat')} taken)"
                )
                return
    ctx.say(
        f"line {use.line}: LEAVE {game}: {sender} has no seat in a game called {game!r} that "
        "has not started (a started game is left with RESIGN)"
    )


@family.command(
    "WATCH",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="game",
    help="receive the game's turn reports as an observer",
    usage="`WATCH game [password]`",
    doc="receive the game's reports as an observer; a private game needs its observer password",
)
def watch(ctx: Context, use: Use) -> None:
    _watch(ctx, use, True)


@family.command(
    "UNWATCH",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="game",
    help="stop receiving them",
    doc="stop receiving the game's reports",
)
def unwatch(ctx: Context, use: Use) -> None:
    _watch(ctx, use, False)


def _watch(ctx: Context, use: Use, on: bool) -> None:
    store, name = ctx.app.store, use.name
    game = use.arg.lower().split()[0] if use.arg else ""
    if store.game(ctx.conn, game) is None:
        ctx.say(f"line {use.line}: {name}: there is no game called {game!r}")
        return
    refused = _watch_refused(ctx, game, use.arg) if on else None
    if refused:
        ctx.say(f"line {use.line}: WATCH {game}: {refused}")
        return
    changed = store.watch(ctx.conn, game, ctx.sender, on)
    verb = "now watching" if on else "no longer watching"
    ctx.say(
        f"line {use.line}: {ctx.mail.from_addr} is {verb} {game}"
        + ("" if changed else " (no change)")
    )


def _watch_refused(ctx: Context, game: str, arg: str) -> str | None:
    """Why WATCH may not be granted: a private game is watched only with
    its observer password (``WATCH game password``)."""
    cfg = ctx.app.game_config(game)
    if cfg is None or cfg.visibility != "private":
        return None
    given = arg.split()[1] if len(arg.split()) > 1 else ""
    if not cfg.observer_password:
        return f"{game} is private: only its players and the observers its game master lists"
    if not given:
        return f"{game} is private: write WATCH {game} <observer password> (its game master has it)"
    if not hmac.compare_digest(given, cfg.observer_password):
        return "the observer password is wrong"
    return None
