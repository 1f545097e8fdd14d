"""The application object: configuration, storage, clock and secret, built
once (in the command line) and passed down. No module-level globals."""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from adjudicator import GAMES
from adjudicator.base import Game
from pbem.config import Config, GameConfig, load_config
from pbem.mail import auth, replycap
from pbem.mail.compose import compose
from pbem.store import PlayerRow, Store
from pbem.turns.clock import Clock, SystemClock
from pbem.words import colour_name, templates


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
        attachments: Sequence[tuple[bytes, str, str]] = (),
        hide: Sequence[str] = (),
    ) -> str:
        """Render a mail from templates/mail/<template>.txt.j2 and commit it
        to the outbox in the caller's transaction. Returns its Message-ID.

        The template is told ``reply_to``: a mail may say "reply to this
        mail" only when a reply does what it says (comes back to the
        player's own reply address). ``attachments``: (bytes, MIME type,
        file name) each. ``hide``: secrets (the passwords a mail carried)
        that the reply never repeats, in its subject or its text. Replies count
        toward the daily cap on replies (pbem/replycap.py): the last one says
        so, and those over it are held for a digest."""
        text = (
            templates()
            .get_template(f"mail/{template}.txt.j2")
            .render(server=self.config.server, **{"reply_to": reply_to, **data})
        )
        subject, text = hidden(subject, hide), hidden(text, hide)
        slot = replycap.slot(self, conn, kind, to)  # the daily cap on replies
        if slot == "last":
            text += replycap.LAST_NOTE.format(to=to)
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
        if attachments:
            raw = _attach(raw, attachments)
        self.store.queue_mail(
            conn,
            kind,
            to,
            message_id,
            raw,
            self.clock.now(),
            inbox_id,
            status="held" if slot == "held" else "pending",
        )
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


def hidden(text: str, secrets_: Sequence[str]) -> str:
    """``text`` with every secret in it (a whole word, any case) written as
    ********. Words under six characters are left: no password the server
    makes is that short, and a wrong guess such as "wrong" is a word our
    own sentences use."""
    for secret in sorted({x for x in secrets_ if len(x) >= 6}, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(secret)}(?![\w-])", "********", text, flags=re.I)
    return text


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
                add_player(app, conn, cfg, p.name, p.email, p.timezone, cfg.open_seats)
            if not cfg.open_seats:
                start_game(app, conn, cfg)


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
    )


def seat_of(state: Any, player: str) -> str | None:
    """The power or colour ``player`` plays in ``state`` (the games keep it
    with each player: Empire's ``power``, the others' ``colour``)."""
    for p in getattr(state, "players", ()):
        if getattr(p, "name", None) == player:
            seat = getattr(p, "power", None) or getattr(p, "colour", None)
            return colour_name(seat) if seat else None
    return None


def with_seat(state: Any, player: str) -> str:
    """``ann (England)``: a player's name with the power or colour they play."""
    seat = seat_of(state, player)
    return f"{player} ({seat})" if seat and seat.lower() != player.lower() else player


def start_game(app: App, conn: Connection, cfg: GameConfig) -> None:
    """Every seat is taken: the game starts, players in the order they were
    seated, and each is mailed the start mail."""
    engine = app.engine(cfg.game)
    row = app.store.game(conn, cfg.name)
    assert row is not None
    seated = [p for p in app.store.players(conn, cfg.name) if p.status == "active"]
    source = cfg.map if cfg.map in engine.maps() else Path(cfg.map).read_text(encoding="utf-8")
    state = engine.start(engine.load_map(source), [p.name for p in seated], cfg.options, row.seed)
    text = engine.dump_state(state)
    now = app.clock.now()
    deadline = first_deadline(cfg, now)
    app.store.set_game(
        conn,
        cfg.name,
        state=text,
        status="running",
        turn=engine.phase(state)[0],
        deadline=deadline,
        turn_started_at=now,
    )
    app.store.start_turn(conn, cfg.name, engine.phase(state)[0], text, now)
    for p in seated:
        start_mail(app, conn, cfg, engine, state, p, seated, deadline)


def first_deadline(cfg: GameConfig, now: Any) -> Any:
    """The first phase's deadline: the first cron time at least half a
    phase (``min_phase``, or the cron period) away, so a game that starts
    just before a slot is not over before its players have read the start
    mail."""
    from pbem.turns.runner import cron_after

    deadline = cron_after(cfg, now)
    least = cfg.min_phase if cfg.min_phase is not None else cron_after(cfg, deadline) - deadline
    while deadline - now < least / 2:
        deadline = cron_after(cfg, deadline)
    return deadline


def start_mail(
    app: App,
    conn: Connection,
    cfg: GameConfig,
    engine: Game,
    state: Any,
    p: PlayerRow,
    seated: Sequence[PlayerRow],
    deadline: Any,
) -> None:
    """What a player needs on the first day: the game, the power or colour
    they play, the first deadline in their own time zone, the orders their
    units may give with two examples, the rules guide and the map."""
    from pbem.mapdraw import picture, to_png
    from pbem.reports import compact_options, local

    view = engine.view(state, p.name)
    attachments = [(to_png(picture(engine.name, view, ())), "image/png", "map.png")]
    guide = rules_guide(engine.name)
    if guide is not None:
        attachments.append((guide, "text/plain", f"rules-{engine.name}.txt"))
    app.queue(
        conn,
        "started",
        p.email,
        f"[{cfg.name}] the game starts: you play {with_seat(state, p.name)}",
        "started",
        {
            "game": cfg,
            "title": engine.title,
            "you": with_seat(state, p.name),
            "seat": seat_of(state, p.name),
            "players": [with_seat(state, x.name) for x in seated],
            "address": app.game_address(cfg.name),
            "phase": engine.phase(state)[1],
            "deadline": local(deadline, p.timezone or cfg.timezone),
            "options": [(u, compact_options(u, o)) for u, o in view.options.items()],
            "examples": order_examples(
                view.options, lambda o: not engine.read_orders(state, p.name, o).problems
            ),
            "guide": guide is not None,
            "kind": engine.name,
        },
        reply_to=app.reply_address(p),
        auto="auto-generated",
        attachments=attachments,
    )


def order_examples(
    options: Mapping[str, Sequence[str]], valid: Any = lambda order: True
) -> list[str]:
    """Two orders the player's own units may give: preferably a unit doing
    something other than holding, with two different kinds of order. Only
    options the game reads as orders (``valid``): some games describe a
    unit's options ("-> any state") rather than list them."""
    flat = [o for opts in options.values() for o in opts if valid(o)]
    moving = [o for o in flat if not re.search(r"\bholds?$|^hold\b", o, re.I)]
    picked: list[str] = []
    for o in moving + flat:
        verb = o.split()[1:2] if len(o.split()) > 1 else o.split()[:1]
        if o in picked or any(x.split()[1:2] == verb for x in picked):
            continue
        picked.append(o)
        if len(picked) == 2:
            break
    for o in flat:  # one kind of order only: two of them
        if len(picked) < 2 and o not in picked:
            picked.append(o)
    return picked


def rules_guide(game: str) -> bytes | None:
    """docs/rules/<game>.md, the guide for players (None where the docs are
    not installed)."""
    path = Path(__file__).resolve().parent.parent / "docs" / "rules" / f"{game}.md"
    return path.read_bytes() if path.is_file() else None


def _attach(raw: bytes, attachments: Sequence[tuple[bytes, str, str]]) -> bytes:
    """A composed text mail with files attached (multipart/mixed)."""
    import email
    import email.policy

    msg = email.message_from_bytes(raw, policy=email.policy.default)
    for data, mime, filename in attachments:
        maintype, _, subtype = mime.partition("/")
        if maintype == "text":
            msg.add_attachment(data.decode("utf-8"), subtype=subtype, filename=filename)
        else:
            msg.add_attachment(data, maintype, subtype, filename=filename)
    return msg.as_bytes(policy=email.policy.SMTP)  # CRLF: relays refuse bare LF
