"""Commands for anyone, about the server's games: LIST, RANK, JOIN, LEAVE,
WATCH, UNWATCH. They need no game section and no password: a seat is tied
to the address that JOINs, a watcher to the address that WATCHes. So
JOIN, LEAVE, WATCH and UNWATCH act only once that address confirms them
(pbem/commands/confirm.py): each has a check, run when it comes, and the
command itself, run (and checked again) when it is confirmed. A private
game is none of these commands' business for anyone but its own
(pbem/commands/observing.py)."""

from __future__ import annotations

import hmac
import re
import secrets

from pbem.commands import confirm
from pbem.commands.confirm import Verdict
from pbem.commands.context import Context
from pbem.commands.observing import (
    UNSEEN_PER_MAIL,
    ask_with_password,
    confirmed_with_password,
    hidden,
    observer_password,
    unknown,
)
from pbem.commands.registry import Family, Use, Where, Who
from pbem.config import PLAYER_NAME, GameConfig
from pbem.lifecycle.seats import add_player
from pbem.lifecycle.start import start_game
from pbem.store import GameRow, PlayerRow
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
    rows = [g for g in rows if not hidden(ctx, g.name)]
    ctx.say("Games on this server:")
    for lobby in (c for c in app.config.games if c.lobby and not hidden(ctx, c.name)):
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
    """The scoreboard by mail: players by the name they played under, never
    by their address (anyone may ask)."""
    names = ctx.app.store.ranked_names(ctx.conn)
    ctx.say(*rank_lines(ctx.app.store.ranking(ctx.conn), names))


def rank_lines(
    ranking: list[tuple[str, int, int]], names: dict[str, str] | None = None
) -> list[str]:
    """The scoreboard as text (RANK: each player's name, from ``names``;
    `pbem rank`, for the server's operator: addresses)."""
    if not ranking:
        return ["The scoreboard is empty: no player has points yet."]
    out = ["The scoreboard (points over finished games, never below 0):"]
    for i, (email, points, games) in enumerate(ranking, 1):
        who = email if names is None else names.get(email, "?")
        out.append(f"  {i:>3}. {who:<32} {plural(points, 'point'):>11} in {plural(games, 'game')}")
    return out


@family.command(
    "JOIN",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="game",
    help="join a game that is open for players (once you confirm)",
    usage="`JOIN game [as name]`",
    doc="take a free seat in a game open for players (the last seat starts it), once you "
    "confirm by replying to the mail that asks",
)
def join(ctx: Context, use: Use) -> None:
    confirm.ask(ctx, use)


def _join_check(ctx: Context, arg: str) -> Verdict:
    """JOIN as asked: refused now, or what it will do once confirmed."""
    app, store, conn = ctx.app, ctx.app.store, ctx.conn
    words = arg.split()
    asked = words[0].lower() if words else ""
    game, cfg = asked, app.game_config(asked)
    wanted = _wanted(words, ctx.sender)
    text = f"JOIN {asked} as {wanted}"
    if hidden(ctx, asked):
        return Verdict(asked, f"JOIN {asked}: {unknown(asked)}")
    if cfg is not None and cfg.lobby and cfg.name == asked:
        free = _free_lobby(ctx, cfg)
        if free is None:  # a new lobby opens on confirmation: only the name to check
            refusal = _name_refused(asked, wanted)
            title = app.engine(cfg.game).title
            plan = (
                f"take a seat as {wanted} in a lobby of {asked} ({title}); no lobby has a "
                f"free seat now, so a new one opens. The game starts when {cfg.seats} "
                "players have joined it. Your password comes in a mail of its own."
            )
            return Verdict(asked, refusal, text, text, plan)
        game, cfg = free, app.game_config(free)
    row = store.game(conn, game) if game else None
    refusal = _join_refused(ctx, arg, game, row, cfg, wanted)
    if refusal is not None or cfg is None:
        return Verdict(asked, refusal or "", text)
    taken = len(store.players(conn, game))
    where = f"the lobby {game} of {asked}" if game != asked else game
    plan = f"take a seat as {wanted} in {where} ({app.engine(cfg.game).title})"
    return Verdict(asked, None, text, text, plan + _starts(cfg.seats, taken))


def _starts(seats: int, taken: int) -> str:
    return (
        f"; seats taken so far: {taken} of {seats}. The game starts when every seat is "
        "taken. Your password comes in a mail of its own."
    )


def _join(ctx: Context, arg: str) -> str:
    """JOIN game [as name], confirmed: take a seat in a game that is open."""
    app, store, conn = ctx.app, ctx.app.store, ctx.conn
    words = arg.split()
    game = words[0].lower() if words else ""
    cfg = app.game_config(game)
    if cfg is not None and cfg.lobby and cfg.name == game:
        game = _free_lobby(ctx, cfg) or _open_lobby(ctx, cfg)  # the lobby to sit in
        cfg = app.game_config(game)
    row = store.game(conn, game) if game else None
    wanted = _wanted(words, ctx.sender)
    refusal = _join_refused(ctx, arg, game, row, cfg, wanted)
    if refusal is not None or cfg is None:
        return refusal or ""
    seated = store.players(conn, game)
    add_player(app, conn, cfg, wanted, ctx.sender, None)
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


def _join_refused(
    ctx: Context,
    arg: str,
    game: str,
    row: GameRow | None,
    cfg: GameConfig | None,
    wanted: str,
) -> str | None:
    """Why JOIN cannot seat the sender in ``game`` now (None: it can)."""
    if row is None or cfg is None or hidden(ctx, game):
        return f"JOIN {game}: {unknown(game)}"
    if row.status != "forming":
        return f"JOIN {game}: the game has started; ask its game master for a seat"
    seated = ctx.app.store.players(ctx.conn, game)
    sender = ctx.sender
    if any(p.email.lower() == sender.lower() for p in seated):
        return f"JOIN {game}: {sender} has a seat in {game} already"
    refusal = _name_refused(game, wanted)
    if refusal is None and any(p.name.lower() == wanted.lower() for p in seated):
        refusal = f"JOIN {game}: the name {wanted!r} is taken; write JOIN {game} as <name>"
    return refusal


def _name_refused(game: str, wanted: str) -> str | None:
    if PLAYER_NAME.match(wanted):
        return None
    return (
        f"JOIN {game}: {wanted!r} cannot be a player's name (a letter, then letters, "
        f"digits, _ or -); write JOIN {game} as <name>"
    )


def _wanted(words: list[str], sender: str) -> str:
    """The name JOIN asks for: ``as name``, else one made of the address."""
    return words[2] if len(words) >= 3 and words[1].lower() == "as" else _name_of(sender)


def _name_of(sender: str) -> str:
    """A player's name made of an address (ann.lee@... plays as annlee)."""
    wanted = re.sub(r"[^A-Za-z0-9_-]", "", sender.partition("@")[0]) or "player"
    if not wanted[0].isalpha():
        wanted = "p" + wanted
    return wanted[:32]


def _free_lobby(ctx: Context, cfg: GameConfig) -> str | None:
    """The lobby of a lobby game that has free seats, if one has."""
    store = ctx.app.store
    for g in store.all_games(ctx.conn):
        base, _, number = g.name.rpartition("-")
        if base == cfg.name and number.isdigit() and g.status == "forming":
            if len(store.players(ctx.conn, g.name)) < cfg.seats:
                return g.name
    return None


def _open_lobby(ctx: Context, cfg: GameConfig) -> str:
    """A new lobby of a lobby game (the next number)."""
    store = ctx.app.store
    numbers = [0]
    for g in store.all_games(ctx.conn):
        base, _, number = g.name.rpartition("-")
        if base == cfg.name and number.isdigit():
            numbers.append(int(number))
    name = f"{cfg.name}-{max(numbers) + 1}"
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
    help="give up your seat in a game that has not started (once you confirm)",
    doc="give up your seat in a game or lobby that has not started, once you confirm",
)
def leave(ctx: Context, use: Use) -> None:
    confirm.ask(ctx, use)


def _seat_to_leave(ctx: Context, game: str) -> tuple[GameRow, PlayerRow] | None:
    """The sender's seat in a game (or a lobby of it) that has not started."""
    store, conn, sender = ctx.app.store, ctx.conn, ctx.sender.lower()
    for g in store.all_games(conn):
        base = g.name.rpartition("-")[0]
        if game not in (g.name, base) or g.status != "forming":
            continue
        for p in store.players(conn, g.name):
            if p.email.lower() == sender:
                return g, p
    return None


def _no_seat(ctx: Context, game: str) -> str:
    return (
        f"LEAVE {game}: {ctx.sender.lower()} has no seat in a game called {game!r} that "
        "has not started (a started game is left with RESIGN)"
    )


def _leave_check(ctx: Context, arg: str) -> Verdict:
    game = arg.split()[0].lower() if arg.split() else ""
    seat = _seat_to_leave(ctx, game)
    if seat is None:
        return Verdict(game, _no_seat(ctx, game))
    g, p = seat
    plan = f"give up your seat in {g.name}, where you are {p.name} (it has not started)"
    return Verdict(game, None, f"LEAVE {game}", f"LEAVE {game}", plan)


def _leave(ctx: Context, arg: str) -> str:
    """LEAVE game, confirmed: give up a seat in a lobby (or open game) not
    yet started."""
    game = arg.split()[0].lower() if arg.split() else ""
    seat = _seat_to_leave(ctx, game)
    if seat is None:
        return _no_seat(ctx, game)
    g, p = seat
    ctx.app.store.delete_player(ctx.conn, p.id)
    ctx.worker.forget()
    left = len(ctx.app.store.players(ctx.conn, g.name))
    return f"LEAVE {game}: you have left {g.name} ({plural(left, 'seat')} taken)"


@family.command(
    "WATCH",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="game",
    help="receive the game's turn reports as an observer (once you confirm)",
    usage="`WATCH game [password]`",
    doc="receive the game's reports as an observer, once you confirm; a private game "
    "needs its observer password",
)
def watch(ctx: Context, use: Use) -> None:
    """Asked once a game a mail: a mail of guesses is one guess. With a
    password, of games the sender may not see: a few a mail (each such
    request is kept until it is confirmed or expires)."""
    words = use.arg.split()
    game = words[0].lower() if words else ""
    if ("WATCH", game) in ctx.asked:
        ctx.say(f"line {use.line}: WATCH {game}: a mail asks WATCH of a game once; not read")
        return
    unseen = len(words) > 1 and (ctx.app.store.game(ctx.conn, game) is None or hidden(ctx, game))
    if unseen and sum(1 for c, _ in ctx.asked if c == "WATCH?") >= UNSEEN_PER_MAIL:
        ctx.say(
            f"line {use.line}: WATCH {game}: a mail asks WATCH with a password of at most "
            f"{UNSEEN_PER_MAIL} games; not read"
        )
        return
    ctx.asked |= {("WATCH", game), *([("WATCH?", game)] if unseen else [])}
    confirm.ask(ctx, use)


@family.command(
    "UNWATCH",
    who=Who.ANYONE,
    where=Where.SERVER,
    args="game",
    help="stop receiving them (once you confirm)",
    doc="stop receiving the game's reports, once you confirm",
)
def unwatch(ctx: Context, use: Use) -> None:
    confirm.ask(ctx, use)


def _watch_check(ctx: Context, arg: str, on: bool) -> Verdict:
    """WATCH or UNWATCH as asked: refused now, nothing to change, or what
    it will do once confirmed. A WATCH with a password of a game the
    sender may not see waits, whatever the name and password, for the
    confirmation that checks them (pbem/commands/observing.py)."""
    name = "WATCH" if on else "UNWATCH"
    words = arg.split()
    game = words[0].lower() if words else ""
    if ctx.app.store.game(ctx.conn, game) is None or hidden(ctx, game):
        if on and len(words) > 1:
            return ask_with_password(game, words[1])
        return Verdict(game, f"{name}: {unknown(game)}")
    refused = _watch_refused(ctx, game, arg) if on else None
    if refused:
        return Verdict(game, f"WATCH {game}: {refused}")
    watching = ctx.sender.lower() in ctx.app.store.watchers(ctx.conn, game)
    if watching == on:
        return Verdict(game, _watched(ctx, game, on, False))
    text = " ".join([name, game, *words[1:2]])
    if on:
        plan = f"send you every turn report of {game} as an observer, until you UNWATCH {game}"
    else:
        plan = f"stop sending you the turn reports of {game}"
    return Verdict(game, None, text, f"{name} {game}", plan)


def _watch(ctx: Context, arg: str, on: bool) -> str:
    """WATCH or UNWATCH, confirmed."""
    words = arg.split()
    game = words[0].lower() if words else ""
    if on and len(words) > 1 and (ctx.app.store.game(ctx.conn, game) is None or hidden(ctx, game)):
        refused = confirmed_with_password(ctx, game, words[1])
        if refused is not None:
            return refused
        changed = ctx.app.store.watch(ctx.conn, game, ctx.sender, on)
        return _watched(ctx, game, on, changed)
    verdict = _watch_check(ctx, arg, on)
    if verdict.answer is not None:
        return verdict.answer
    changed = ctx.app.store.watch(ctx.conn, verdict.game, ctx.sender, on)
    return _watched(ctx, verdict.game, on, changed)


def _watched(ctx: Context, game: str, on: bool, changed: bool) -> str:
    verb = "now watching" if on else "no longer watching"
    return f"{ctx.sender} is {verb} {game}" + ("" if changed else " (no change)")


def _watch_refused(ctx: Context, game: str, arg: str) -> str | None:
    """Why WATCH may not be granted to one of the game's own (a player, the
    game master): a private game is watched only with its observer
    password (``WATCH game password``)."""
    cfg = ctx.app.game_config(game)
    right = None if cfg is None else observer_password(ctx.app.secret, cfg)
    if cfg is None or right is None:
        return None
    given = arg.split()[1] if len(arg.split()) > 1 else ""
    if not given:
        return f"{game} is private: write WATCH {game} <observer password> (its game master has it)"
    if not hmac.compare_digest(given.encode(), right.encode()):  # any text, as bytes
        return "the observer password is wrong"
    return None


confirm.confirmable("JOIN", _join_check, _join)
confirm.confirmable("LEAVE", _leave_check, _leave)
confirm.confirmable("WATCH", lambda c, a: _watch_check(c, a, True), lambda c, a: _watch(c, a, True))
confirm.confirmable(
    "UNWATCH", lambda c, a: _watch_check(c, a, False), lambda c, a: _watch(c, a, False)
)
