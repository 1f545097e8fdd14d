"""Seating a player: the seat row, the password and the one mail that
carries it; finding a seated player by name or address; and how a player
is named with the power or colour they play."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from adjudicator.base import Game
from pbem.app import App
from pbem.config import GameConfig
from pbem.mail import auth
from pbem.store import PlayerRow
from pbem.words import colour_name


def add_player(
    app: App,
    conn: Connection,
    cfg: GameConfig,
    name: str,
    email: str,
    tz: str | None,
    waiting: int | None = None,
) -> PlayerRow:
    """Seat a player and mail them their password. ``waiting``: how many
    more players the game waits for (None: count the free seats)."""
    engine = app.engine(cfg.game)
    password = auth.new_password()
    app.store.add_player(conn, cfg.name, name, email, tz, auth.hash_password(password))
    player = next(x for x in app.store.players(conn, cfg.name) if x.name == name)
    if waiting is None:
        waiting = max(0, cfg.seats - len(app.store.players(conn, cfg.name)))
    password_mail(app, conn, cfg, player, password, engine.title, waiting)
    return player


def password_mail(
    app: App,
    conn: Connection,
    cfg: GameConfig,
    player: PlayerRow,
    password: str,
    title: str,
    waiting: int,
) -> None:
    """The one mail that carries a password; a reply to it comes back to
    the player's own reply address."""
    reply = app.reply_address(player)
    app.queue(
        conn,
        "password",
        player.email,
        f"Your password for {cfg.name}",
        "password",
        {
            "game": cfg,
            "player": player,
            "password": password,
            "title": title,
            "address": app.game_address(cfg.name),
            "reply_address": reply,
            "waiting": waiting,
        },
        reply_to=reply,
        auto="auto-generated",
        game=cfg.name,
    )


class NoSuchPlayer(LookupError):
    """No player, or more than one, answers to the name or address asked
    for; the message says which, for the one who asked."""

    def __init__(self, message: str, ambiguous: bool) -> None:
        super().__init__(message)
        self.ambiguous = ambiguous


def seated_player(seated: Sequence[PlayerRow], game: str, who: str) -> PlayerRow:
    """The one of ``seated`` (players of ``game``) whom ``who`` names: by
    name or by address, in any case. NoSuchPlayer when nobody answers to
    it (the message names the players) or more than one does (it names
    those, with their addresses)."""
    wanted = who.strip().lower()
    found = [p for p in seated if wanted in (p.name.lower(), p.email.lower())]
    if len(found) == 1:
        return found[0]
    if found:
        both = " and ".join(f"{p.name} ({p.email})" for p in found)
        raise NoSuchPlayer(
            f"{who!r} names more than one player of {game}: {both}",
            ambiguous=True,
        )
    names = ", ".join(p.name for p in seated) or "nobody yet"
    raise NoSuchPlayer(f"{game} has no player {who!r} (players: {names})", ambiguous=False)


def seat_of(engine: Game, state: Any, player: str) -> str | None:
    """The power or colour ``player`` plays in ``state``, in words (the game
    says which: Game.seat)."""
    seat = engine.seat(state, player)
    return colour_name(seat) if seat else None


def with_seat(engine: Game, state: Any, player: str) -> str:
    """``ann (England)``: a player's name with the power or colour they play."""
    seat = seat_of(engine, state, player)
    return f"{player} ({seat})" if seat and seat.lower() != player.lower() else player
