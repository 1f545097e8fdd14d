"""The application object: configuration, storage, clock and secret, built
once (in the command line) and passed down. No module-level globals."""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from adjudicator import GAMES
from adjudicator.base import Game
from pbem import auth
from pbem.clock import Clock, SystemClock
from pbem.config import Config, GameConfig, load_config
from pbem.outmail import compose
from pbem.store import PlayerRow, Store
from pbem.words import templates


@dataclass(frozen=True)
class Recipient:
    kind: str  # "game", "reply", "server"
    game: str | None = None
    player: str | None = None
    token: str | None = None


@dataclass
class App:
    config: Config
    store: Store
    clock: Clock
    secret: str
    faults: frozenset[str] = field(default_factory=frozenset)
    verifier: auth.Verifier = field(default_factory=auth.Verifier)

    # -- addresses -------------------------------------------------------------

    @property
    def domain(self) -> str:
        return self.config.server.domain

    def game_address(self, game: str) -> str:
        return f"{game}@{self.domain}"

    def reply_address(self, player: PlayerRow) -> str:
        token = auth.reply_token(self.secret, player.game, player.name, player.token_version)
        return f"{player.game}+{player.name.lower()}.{token}@{self.domain}"

    def recipient(self, address: str) -> Recipient | None:
        """What an envelope recipient means; None for an address that is
        not ours (refused at RCPT with 550)."""
        local, at, domain = address.strip().strip("<>").rpartition("@")
        if not at or domain.lower() != self.domain.lower():
            return None
        local = local.lower()
        server_local = self.config.server.address.partition("@")[0].lower()
        if local in (server_local, "pbem", "judge"):
            return Recipient("server")
        m = re.fullmatch(r"([a-z0-9][a-z0-9-]*)\+([a-z][a-z0-9_-]*)\.([a-z2-7]+)", local)
        if m and self.has_game(m[1]):
            return Recipient("reply", m[1], m[2], m[3])
        if self.has_game(local):
            return Recipient("game", local)
        return None

    def has_game(self, name: str) -> bool:
        return self.game_config(name) is not None

    def game_config(self, name: str) -> GameConfig | None:
        """A game of games.yaml, or a lobby opened from one (``terra-3`` of
        the lobby game ``terra``), with its own name."""
        for g in self.config.games:
            if g.name == name:
                return g
        base, dash, number = name.rpartition("-")
        if dash and number.isdigit() and not number.startswith("0"):
            for g in self.config.games:
                if g.name == base and g.lobby:
                    seed = None if g.seed is None else g.seed + int(number)
                    return replace(g, name=name, seed=seed)
        return None

    def engine(self, kind: str) -> Game:
        return GAMES[kind]

    # -- mail ---------------------------------------------------------------------

    def queue(
        self,
        conn: Connection,
        kind: str,
        to: str,
        subject: str,
        template: str,
        data: dict[str, Any],
        *,
        reply_to: str | None = None,
        in_reply_to: str | None = None,
        references: tuple[str, ...] = (),
        inbox_id: int | None = None,
        auto: str = "auto-replied",
    ) -> str:
        """Render a mail from templates/mail/<template>.txt.j2 and commit it
        to the outbox in the caller's transaction. Returns its Message-ID."""
        text = (
            templates()
            .get_template(f"mail/{template}.txt.j2")
            .render(server=self.config.server, **data)
        )
        message_id, raw = compose(
            sender=self.config.server.address,
            to=to,
            subject=subject,
            text=text,
            domain=self.domain,
            when=self.clock.now(),
            reply_to=reply_to,
            in_reply_to=in_reply_to,
            references=references,
            auto=auto,
        )
        self.store.queue_mail(conn, kind, to, message_id, raw, self.clock.now(), inbox_id)
        return message_id

    def alert_master(self, conn: Connection, game: str | None, subject: str, text: str) -> None:
        """Tell the game master (of ``game``, or of every game)."""
        masters = {
            g.master_email
            for g in self.config.games
            if g.master_email and (game is None or g.name == game)
        }
        for email in sorted(masters):
            self.queue(
                conn,
                "alert",
                email,
                f"[pbem] {subject}",
                "alert",
                {"subject": subject, "text": text, "game": game},
                auto="auto-generated",
            )


def open_app(
    config_path: str | Path, clock: Clock | None = None, store: Store | None = None
) -> App:
    """Load games.yaml, open and migrate storage, set up new games."""
    config = load_config(config_path)
    store = store or Store.at(config.server.storage)
    store.migrate()
    secret = store.setting("reply_secret", auth.new_secret)
    assert secret is not None
    faults = frozenset(f for f in os.environ.get("PBEM_FAULT", "").split(",") if f)
    app = App(config, store, clock or SystemClock(), secret, faults)
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
                add_player(app, conn, cfg, p.name, p.email, p.timezone)
            if not cfg.open_seats:
                start_game(app, conn, cfg)


def add_player(
    app: App, conn: Connection, cfg: GameConfig, name: str, email: str, tz: str | None
) -> PlayerRow:
    """Seat a player and mail them their password."""
    engine = app.engine(cfg.game)
    password = auth.new_password()
    app.store.add_player(conn, cfg.name, name, email, tz, auth.hash_password(password))
    player = next(x for x in app.store.players(conn, cfg.name) if x.name == name)
    app.queue(
        conn,
        "password",
        email,
        f"Your password for {cfg.name}",
        "password",
        {
            "game": cfg,
            "player": player,
            "password": password,
            "title": engine.title,
            "address": app.game_address(cfg.name),
            "reply_address": app.reply_address(player),
            "waiting": max(0, cfg.seats - len(app.store.players(conn, cfg.name))),
        },
        auto="auto-generated",
    )
    return player


def start_game(app: App, conn: Connection, cfg: GameConfig) -> None:
    """Every seat is taken: the game starts, players in the order they were
    seated, and each is told."""
    engine = app.engine(cfg.game)
    row = app.store.game(conn, cfg.name)
    assert row is not None
    seated = [p for p in app.store.players(conn, cfg.name) if p.status == "active"]
    source = cfg.map if cfg.map in engine.maps() else Path(cfg.map).read_text(encoding="utf-8")
    state = engine.start(engine.load_map(source), [p.name for p in seated], cfg.options, row.seed)
    text = engine.dump_state(state)
    now = app.clock.now()
    from pbem.turns import next_deadline

    app.store.set_game(
        conn,
        cfg.name,
        state=text,
        status="running",
        turn=engine.phase(state)[0],
        deadline=next_deadline(cfg, now),
        turn_started_at=now,
    )
    app.store.start_turn(conn, cfg.name, engine.phase(state)[0], text, now)
    if cfg.open_seats or len(seated) > len(cfg.players):  # players joined: say it started
        from pbem.reports import compact_options, local

        for p in seated:
            options = engine.view(state, p.name).options
            app.queue(
                conn,
                "started",
                p.email,
                f"{cfg.name} has started",
                "started",
                {
                    "game": cfg,
                    "title": engine.title,
                    "players": [x.name for x in seated],
                    "address": app.game_address(cfg.name),
                    "phase": engine.phase(state)[1],
                    "deadline": local(next_deadline(cfg, now), p.timezone or cfg.timezone),
                    "options": [(u, compact_options(u, o)) for u, o in options.items()],
                },
                reply_to=app.reply_address(p),
                auto="auto-generated",
            )
