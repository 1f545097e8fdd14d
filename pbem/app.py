"""The context every part of the host is handed: configuration, storage,
clock, secret, the password verifier, the game addresses, the games and
their engines, the mail composer and the fault-injection hook. Built once
(pbem/lifecycle/opening.py: ``open_app``) and passed down; no module-level
globals. It sits at the bottom of the house and imports none of the rooms:
what it needs of them (the composer, the verifier and the reply-token
signer of pbem/mail/, the fault hook's kill of pbem/faults.py) is handed to
it when it is built, and named here only as types."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from adjudicator import GAMES

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from adjudicator.base import Game
    from pbem.config import Config, GameConfig
    from pbem.store import PlayerRow, Store
    from pbem.turns.clock import Clock


@dataclass(frozen=True)
class Recipient:
    kind: str  # "game", "reply", "server", or one of config's TAGGED
    game: str | None = None
    player: str | None = None
    token: str | None = None


class Composer(Protocol):
    """What the context asks of the mail composer (pbem/mail/compose.py)."""

    def queue(
        self,
        app: App,
        conn: Connection,
        kind: str,
        to: str,
        subject: str,
        template: str,
        data: dict[str, Any],
        **options: Any,
    ) -> str: ...

    def alert_master(
        self, app: App, conn: Connection, game: str | None, subject: str, text: str
    ) -> None: ...


class Verifier(Protocol):
    """What the context asks of the password verifier (pbem/mail/auth.py)."""

    def known(self, password: str, stored: str) -> bool: ...

    def known_wrong(self, password: str, stored: str) -> bool: ...

    def check(self, password: str, stored: str) -> bool: ...


class Signer(Protocol):
    """The reply-token signer (pbem/mail/auth.py: ``reply_token``)."""

    def __call__(self, secret: str, game: str, player: str, version: int) -> str: ...


def _no_kill() -> None:
    raise RuntimeError("a fault point that kills was armed with no kill handed in")


@dataclass
class App:
    config: Config
    store: Store
    clock: Clock
    secret: str
    composer: Composer
    verifier: Verifier
    sign: Signer  # reply tokens
    faults: frozenset[str] = field(default_factory=frozenset)  # PBEM_FAULT: see fault()
    kill: Callable[[], None] = _no_kill  # what a fault point without an error does

    # -- addresses -------------------------------------------------------------

    @property
    def domain(self) -> str:
        return self.config.server.domain

    def game_address(self, game: str) -> str:
        return f"{game}@{self.domain}"

    def reply_address(self, player: PlayerRow) -> str:
        token = self.sign(self.secret, player.game, player.name, player.token_version)
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
        from pbem.config import TAGGED  # the names of games.yaml's rules

        tag, plus, token = local.partition("+")
        if plus and tag in TAGGED and re.fullmatch(r"[a-z0-9_.=-]{1,120}", token):
            return Recipient(tag, token=token)
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
        found = self.config.by_name.get(name)
        if found is not None:
            return found
        base, dash, number = name.rpartition("-")
        if dash and number.isdigit() and not number.startswith("0"):
            g = self.config.by_name.get(base)
            if g is not None and g.lobby:
                seed = None if g.seed is None else g.seed + int(number)
                return replace(g, name=name, seed=seed)
        return None

    def engine(self, kind: str) -> Game:
        return GAMES[kind]

    # -- mail --------------------------------------------------------------------

    def queue(
        self,
        conn: Connection,
        kind: str,
        to: str,
        subject: str,
        template: str,
        data: dict[str, Any],
        **options: Any,
    ) -> str:
        """Render a mail from templates/mail/<template>.txt.j2 and commit it
        to the outbox in the caller's transaction; its Message-ID. The
        options and the rules are the composer's: pbem/mail/compose.py."""
        return self.composer.queue(self, conn, kind, to, subject, template, data, **options)

    def alert_master(self, conn: Connection, game: str | None, subject: str, text: str) -> None:
        """Tell the game master (of ``game``, or of every game)."""
        self.composer.alert_master(self, conn, game, subject, text)

    def alert_operator(self, conn: Connection, subject: str, text: str) -> None:
        """Tell the server's operator (games.yaml's server ``operator``) of
        trouble with the server itself; without one, every game master."""
        operator = self.config.server.operator
        if operator is None:
            self.alert_master(conn, None, subject, text)
            return
        data = {"subject": subject, "text": text, "game": None}
        self.composer.queue(
            self, conn, "alert", operator, f"[pbem] {subject}", "alert", data, auto="auto-generated"
        )

    # -- crash tests ---------------------------------------------------------------

    def fault(self, point: str, error: Exception | None = None) -> None:
        """A named fault-injection point of the crash tests. Nothing happens
        unless ``point`` is one of ``faults`` (PBEM_FAULT, or set by a test):
        then ``error`` is raised, or without one the server is killed with
        SIGKILL as a power cut would. Never set in production."""
        if point not in self.faults:
            return
        if error is not None:
            raise error
        self.kill()  # pragma: no cover - the process ends here
