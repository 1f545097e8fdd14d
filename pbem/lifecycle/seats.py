"""Seating a player: the seat row, the password and the one mail that
carries it; and how a player is named with the power or colour they play."""

from __future__ import annotations

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


def seat_of(engine: Game, state: Any, player: str) -> str | None:
    """The power or colour ``player`` plays in ``state``, in words (the game
    says which: Game.seat)."""
    seat = engine.seat(state, player)
    return colour_name(seat) if seat else None


def with_seat(engine: Game, state: Any, player: str) -> str:
    """``ann (England)``: a player's name with the power or colour they play."""
    seat = seat_of(engine, state, player)
    return f"{player} ({seat})" if seat and seat.lower() != player.lower() else player
