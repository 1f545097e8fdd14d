"""Opening the server on games.yaml: the context every part of the host is
handed (pbem/app.py), and the games of games.yaml set up in storage."""

from __future__ import annotations

import secrets
from pathlib import Path

from pbem.app import App
from pbem.config import load_config
from pbem.faults import die, from_environment
from pbem.lifecycle.closing import opened
from pbem.lifecycle.seats import add_player
from pbem.lifecycle.start import start_game
from pbem.mail import auth
from pbem.mail.compose import Composer
from pbem.store import Store, revision
from pbem.turns.clock import Clock, SystemClock


def open_app(
    config_path: str | Path,
    clock: Clock | None = None,
    store: Store | None = None,
    schema: str = "build",
) -> App:
    """Load games.yaml, open storage, set up new games. Only ``pbem
    migrate`` changes a schema: a store behind or ahead of this version
    is refused (WrongRevision, saying what to do); ``schema`` "build"
    builds a brand-new empty store (``pbem serve``, the tests, the demo),
    "check" refuses it too (the other commands), "as is" checks nothing
    (a running server's own processes: it checked as it started, and a
    newer release's migrations keep the schema readable by this one)."""
    config = load_config(config_path)
    if store is None:
        store = Store.open(config.server.storage, timeouts=config.server.storage_timeouts)
        opened(store)  # a command closes it when it ends (closing.py)
    if schema != "as is":
        revision.check(store, create=schema == "build")
    secret = store.setting("reply_secret", auth.new_secret)
    assert secret is not None
    app = App(
        config,
        store,
        clock or SystemClock(),
        secret,
        Composer(),
        auth.Verifier(),
        auth.reply_token,
        from_environment(),
        die,
    )
    sync_games(app)
    return app


def sync_games(app: App) -> None:
    """Set up the games of games.yaml that storage does not have yet: each
    listed player is mailed a password; a game with every seat taken
    starts, one with open seats waits for JOINs. Running games keep their
    state and players: games.yaml never rewinds a game."""
    now = app.clock.now()
    with app.store.tx() as conn:
        for cfg in app.config.games:
            if cfg.lobby:
                continue  # its lobbies are opened by JOIN
            if app.store.game(conn, cfg.name) is not None:
                continue  # a running game's players change by the game master's commands
            seed = cfg.seed if cfg.seed is not None else secrets.randbits(48)
            app.store.add_game(conn, cfg.name, cfg.game, "", 0, seed, now, status="forming")
            for p in cfg.players:
                row = add_player(app, conn, cfg, p.name, p.email, p.timezone, cfg.open_seats)
                if p.preferences:  # as if the player had sent PREFERENCE
                    app.store.set_player(conn, row.id, preferences="\n".join(p.preferences))
            if not cfg.open_seats:
                start_game(app, conn, cfg)
