"""Processing stored mail: every mail answered 250 reaches exactly one final
state (applied, refused, ignored, bounce, duplicate, quarantined).

Mail is read (pure, outside any transaction), then each mail is handled in
a savepoint of one transaction per batch: its submissions, its replies in
the outbox and its final state commit together or not at all. A mail whose
handling raises is rolled back alone, counted, and after two failures
quarantined with the game master told; the others go on. Every mail is
claimed by its worker before it is read, and finished only under that claim
(exactly once, even with two workers).
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets
import time
import traceback
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import Connection

from adjudicator.base import Game, OrderMode
from pbem import master
from pbem.app import App, Recipient
from pbem.commands import COMMANDS, Section, read_commands, subject_password
from pbem.config import PLAYER_NAME
from pbem.faults import die
from pbem.lifecycle.seats import add_player, with_seat
from pbem.lifecycle.start import start_game
from pbem.mail import auth
from pbem.mail.compose import BadAddress, safe_address
from pbem.mail.parse import ParsedMail, is_daemon, parse_mail, read_clock
from pbem.reports import compact_options, report_mail
from pbem.serving.lease import identity
from pbem.store import ClaimLost, GameRow, InboxRow, PlayerRow, StoreError
from pbem.turns.deadlines import cron_after
from pbem.turns.localtime import local
from pbem.words import plural, say, wrap

log = logging.getLogger("pbem.inbox")

QUARANTINE_AFTER = 2  # failures of one mail before it is quarantined
MAX_CLAIMS = 5  # claims of a mail never finished (its worker died) before quarantine
CLAIM_SECONDS = 60.0  # how long a claim on a mail lasts
CHECKPOINT_SECONDS = 0.5  # how often the worker checkpoints the spool while mail flows
FAILURES_BEFORE_ALERT = 5  # wrong credentials from one address in an hour
BLOCK_AFTER = 20  # failures in an hour after which passwords from it are not checked
# (the slow hash is not run for that address for a while: no guessing at
# speed). The address is told once, with the time checks resume; its
# reply addresses (checked without a password) keep working.
# hold the write lock of the main file at most about this long at a time
# (the SMTP side writes only to the spool, a file of its own, so it never
# waits on this: longer transactions mean fewer fsyncs per mail)
BATCH_SECONDS = 0.05


@dataclass
class GameReply:
    """One game's part of a receipt."""

    game: str
    title: str = ""
    phase: str = ""
    accepted: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    holding: list[str] = field(default_factory=list)
    standing: list[str] = field(default_factory=list)  # orders in force after this mail
    replaced: bool = False
    received: bool = False  # orders run as received: a mail adds to the earlier ones
    kept_previous: bool = False
    messages: list[str] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    deadline: str = ""
    error: str = ""  # the whole section was refused
    paused: bool = False  # refused: password checks from the sender are paused
    quiet: bool = False  # refused again during that pause: not answered (told once)


class _MailFailed(Exception):
    """Handling one mail raised; its transaction is rolled back."""


class Processor:
    def __init__(self, app: App, holder: str | None = None) -> None:
        self.app = app
        self.holder = holder or identity()  # whose claims this worker's are
        self._checkpointed = 0.0
        self._states: dict[str, tuple[str, Any]] = {}  # game -> (state JSON, state)
        self._sheets: dict[tuple[str, str], tuple[Any, str, Any]] = {}  # standing orders read
        self._cache: dict[tuple[str, str], Any] = {}
        self._pruned_at: Any = None
        self.turn_requests: set[str] = set()  # games to check for an early turn
        self.forced: list[tuple[str, int]] = []  # turns the game master resolves now

    def _state(self, engine: Any, game: str, text: str) -> Any:
        """The game's state, parsed once for as long as it does not change."""
        cached = self._states.get(game)
        if cached is None or cached[0] != text:
            cached = (text, engine.load_state(text))
            self._states[game] = cached
        return cached[1]

    def _read_previous(self, engine: Game, state: Any, game: str, player: str, text: str) -> Any:
        """A player's standing orders read again (remembered while the
        state and the text stay the same: each mail of a player's re-reads
        them)."""
        key = (game, player)
        cached = self._sheets.get(key)
        if cached is None or cached[0] is not state or cached[1] != text:
            cached = (state, text, engine.read_orders(state, player, text))
            self._sheets[key] = cached
        return cached[2]

    # -- the queue ---------------------------------------------------------------

    def run_pending(self, batch: int = 200) -> int:
        """Process up to ``batch`` stored mails; returns how many.

        The mails are claimed first, in the transaction that moves newly
        spooled mail into the inbox and checks they are free (store.take_mail),
        then read (parsed) outside any lock. Then they are handled in short
        transactions: each commits once it has held the write lock about
        BATCH_SECONDS, so a receipt is never long in coming.
        Finishing a mail checks it is still this worker's, so a mail's
        effects commit once. Each mail is a savepoint of its transaction."""
        rows, tired = self.app.store.take_mail(
            self.holder, batch, CLAIM_SECONDS, time.time(), self.app.clock.now(), MAX_CLAIMS
        )
        for row in tired:
            self._quarantined(row, row.claims, row.error or "")
        if rows:
            self._checkpoint()
        if not rows:
            self._prune()
            return len(tired)
        with read_clock():
            parsed = {row.id: self._parse(row) for row in rows}
        failed: list[tuple[InboxRow, str]] = []
        queue = list(rows)
        while queue:
            attempted: list[InboxRow] = []
            try:
                with self.app.store.tx() as conn:
                    self._cache = {}
                    started = time.monotonic()
                    while queue and time.monotonic() - started < BATCH_SECONDS:
                        row = queue.pop(0)
                        attempted.append(row)
                        try:
                            self._handle_one(conn, row, parsed[row.id])
                        except Exception as exc:
                            raise _MailFailed from exc
                    if "during_process" in self.app.faults:
                        die()  # handled but not committed
            except _MailFailed:
                # that transaction rolled back: handle its mails again, each
                # in a savepoint of its own, so only the failing one fails
                failed += self._one_by_one(attempted, parsed)
        for row, error in failed:
            log.error("mail %s failed: %s", row.id, error.strip().splitlines()[-1])
            attempts = self.app.store.fail_mail(
                row.id, error, QUARANTINE_AFTER, self.app.clock.now(), self.holder
            )
            if attempts >= QUARANTINE_AFTER:
                self._quarantined(row, attempts, error)
        return len(rows) + len(tired)

    def _quarantined(self, row: InboxRow, attempts: int, error: str) -> None:
        """Tell the game master a mail is quarantined."""
        with self.app.store.tx() as conn:
            self.app.alert_master(
                conn,
                None,
                f"mail #{row.id} quarantined",
                f"Mail #{row.id} from {row.mail_from or '(no sender)'} failed "
                f"{attempts} times and is quarantined (`pbem inbox --state quarantined` "
                f"lists it). Retry it with `pbem retry {row.id}` once the cause is "
                f"fixed.\n\nLast error:\n{error}",
            )

    def _checkpoint(self) -> None:
        """Now and then, the spool's log into its file (the SMTP side,
        which writes the spool while clients wait, never does it)."""
        now = time.monotonic()
        if now - self._checkpointed > CHECKPOINT_SECONDS:
            self._checkpointed = now
            try:
                self.app.store.checkpoint_spool()
            except StoreError as exc:
                log.warning("checkpointing the spool failed: %s", exc)

    def _prune(self) -> None:
        """When idle, now and then: forget spooled copies a day old (the
        inbox keeps every mail)."""
        now = self.app.clock.now()
        if self._pruned_at is None or now - self._pruned_at > timedelta(minutes=10):
            self._pruned_at = now
            self.app.store.prune_spool(now - timedelta(days=1))

    def _handle_one(self, conn: Connection, row: InboxRow, mail: ParsedMail | Exception) -> None:
        if (
            "poison" in self.app.faults
            and not isinstance(mail, Exception)
            and "poison" in mail.subject.lower()
        ):
            raise RuntimeError("fault injected: a poison mail")
        self.handle(conn, row, mail)

    def _one_by_one(
        self, rows: list[InboxRow], parsed: dict[int, ParsedMail | Exception]
    ) -> list[tuple[InboxRow, str]]:
        failed = []
        with self.app.store.tx() as conn:
            self._cache = {}
            for row in rows:
                savepoint = conn.begin_nested()
                try:
                    self._handle_one(conn, row, parsed[row.id])
                    savepoint.commit()
                except ClaimLost:  # another worker finished it: not a failure
                    savepoint.rollback()
                    self._cache = {}
                except Exception:
                    savepoint.rollback()
                    self._cache = {}
                    failed.append((row, traceback.format_exc(limit=8)))
        return failed

    # -- reads, remembered for one transaction (it holds the write lock, so
    #    nothing else changes them; our own writes forget them)

    def _game(self, conn: Connection, name: str) -> Any:
        key = ("game", name)
        if key not in self._cache:
            self._cache[key] = self.app.store.game(conn, name)
        return self._cache[key]

    def _players_by_email(self, conn: Connection, email: str) -> list[PlayerRow]:
        key = ("email", email.lower())
        if key not in self._cache:
            self._cache[key] = self.app.store.players_by_email(conn, email)
        return self._cache[key]

    def _parse(self, row: InboxRow) -> ParsedMail | Exception:
        try:
            return parse_mail(row.raw, row.mail_from)
        except Exception as exc:  # parse_mail never raises by design; keep the mail safe
            return exc

    # -- one mail ------------------------------------------------------------------

    def handle(self, conn: Connection, row: InboxRow, mail: ParsedMail | Exception) -> str:
        app, store, now = self.app, self.app.store, self.app.clock.now()
        if isinstance(mail, Exception):
            raise mail

        def final(state: str, note: str | None = None) -> str:
            store.finish_mail(conn, row.id, state, note, now, self.holder)
            return state

        if mail.bounce:
            matched = store_bounce_matches(conn, app, mail)
            return final("bounce", f"{mail.bounce}; bounced mail: {matched or 'not matched'}")
        if mail.auto:
            return final("ignored", mail.auto)
        if mail.message_id:
            earlier = store.earlier_with_message_id(conn, mail.message_id, row.id)
            if earlier is not None:
                return final("duplicate", f"same Message-ID as mail #{earlier}")
        if mail.from_addr is None:
            return final("refused", "no readable From: address; nobody to answer")
        try:
            safe_address(mail.from_addr)
        except BadAddress:
            return final("refused", "the From: address cannot be answered safely")
        if mail.too_complex:
            self._reply_if_player(
                conn,
                row,
                mail,
                "refusal",
                "Your mail could not be read",
                f"Your mail was not read: {mail.too_complex}.",
            )
            return final("refused", f"too complex: {mail.too_complex}")

        recipients = [r for r in (app.recipient(a) for a in row.rcpt_to) if r is not None]
        games = [r.game for r in recipients if r.game]
        default_game = games[0] if len(set(games)) == 1 else None
        read = read_commands(mail.lines, default_game)
        _fold_history(read.sections, default_game, app.has_game)
        passwords = list(read.passwords)
        in_subject = subject_password(mail.subject)
        if in_subject:
            passwords.append(in_subject)
        tokens = {r.game: r for r in recipients if r.kind == "reply"}

        replies: list[GameReply] = []
        applied = False
        sender_players = self._players_by_email(conn, mail.from_addr)
        for key, section in read.sections.items():
            if key is None:
                if section.orders or section.commands or section.press:
                    replies.append(
                        GameReply(
                            "",
                            error="these lines name no game: send them to the game's address "
                            "or put a line GAME <name> above them",
                            refused=[
                                {"line": n, "text": t.strip(), "why": "no game"}
                                for n, t in section.orders
                            ],
                        )
                    )
                continue
            if (
                not (section.orders or section.commands or section.press)
                and key not in tokens
                and (len(read.sections) > 1 or read.server_commands)
            ):
                continue  # an empty section of a mail that has other business
            reply, did = self._game_section(
                conn, row, mail, section, passwords, tokens.get(key), sender_players
            )
            if reply is not None:
                replies.append(reply)
            applied = applied or did

        server_lines = self._server_commands(conn, mail, read.server_commands, default_game)
        if replies and all(r.quiet for r in replies) and not server_lines:
            return final("refused", "password checks from this address are paused")
        replies = [r for r in replies if not r.quiet]

        if not replies and not server_lines:
            if mail.notes:  # nothing could be read: say so, if the sender plays here
                self._reply_if_player(
                    conn,
                    row,
                    mail,
                    "refusal",
                    "Your mail could not be read",
                    "Nothing in your mail could be read as orders:\n"
                    + "\n".join(f"- {n}" for n in mail.notes),
                )
                return final("refused", "; ".join(mail.notes))
            return final("ignored", "nothing to do")
        to = self._registered_address(sender_players, mail.from_addr)
        if to is None:  # credentials were used from elsewhere: the owner was told
            return final("refused", "credentials used from an unregistered address")
        if self._reply_allowed(conn, to, now):
            subject = (
                "Re: " + (mail.subject or "your orders")
                if not mail.subject.lower().startswith("re:")
                else mail.subject
            )
            app.queue(
                conn,
                "receipt",
                to,
                subject,
                "receipt",
                {
                    "row": row,
                    "mail": mail,
                    "games": replies,
                    "server_lines": server_lines,
                    "received": now.strftime("%Y-%m-%d %H:%M:%S UTC"),
                },
                reply_to=self._reply_to(conn, sender_players, replies),
                in_reply_to=mail.message_id,
                references=mail.references,
                inbox_id=row.id,
                hide=passwords,
            )
        return final("applied" if applied else "refused")

    # -- a game section ------------------------------------------------------------

    def _game_section(
        self,
        conn: Connection,
        row: InboxRow,
        mail: ParsedMail,
        section: Section,
        passwords: list[str],
        token: Recipient | None,
        sender_players: list[PlayerRow],
    ) -> tuple[GameReply | None, bool]:
        app, store, now = self.app, self.app.store, self.app.clock.now()
        name = section.game or ""
        game_row = self._game(conn, name)
        cfg = app.game_config(name)
        if game_row is None or cfg is None:
            return GameReply(
                name,
                error=f"there is no game called {name!r} here (send LIST "
                f"to {app.config.server.address} for the games)",
            ), False
        engine = app.engine(game_row.kind)
        reply = GameReply(name, title=engine.title)
        player = next((p for p in sender_players if p.game == name and p.status == "active"), None)

        def token_ok(p: PlayerRow) -> bool:
            return (
                token is not None
                and token.player == p.name.lower()
                and auth.check_token(app.secret, name, p.name, p.token_version, token.token or "")
            )

        def password_ok(p: PlayerRow) -> bool:
            tries = passwords[:3]
            if any(app.verifier.known(pw, p.password_hash) for pw in tries):
                return True
            if not tries or store.recent_auth_failures(conn, mail.from_addr, now) >= BLOCK_AFTER:
                return False  # nothing to check, or too many failures: no more slow checks
            return any(app.verifier.check(pw, p.password_hash) for pw in tries)

        if (
            player is None
            and cfg.master_email
            and mail.from_addr.lower() == cfg.master_email.lower()
        ):
            return self._master_section(conn, mail, section, passwords, cfg, reply)
        if (
            player is None
            and section.commands
            and all(c == "HISTORY" for _, c, _ in section.commands)
        ):
            watching = {e.lower() for e in cfg.observers} | set(store.watchers(conn, name))
            if mail.from_addr.lower() in watching:  # an observer asks for a report
                reply.messages += self._history(
                    conn, name, mail.from_addr.lower(), mail.from_addr, section.commands
                )
                return reply, True
        if player is None:
            everyone = store.players(conn, name)
            owner = next((p for p in everyone if token_ok(p)), None) or next(
                (p for p in everyone if passwords and password_ok(p)), None
            )
            if owner is not None:
                # right credentials, wrong address: tell the owner, apply nothing
                app.queue(
                    conn,
                    "alert",
                    owner.email,
                    f"Your credentials for {name} were used",
                    "credentials_elsewhere",
                    {
                        "game": name,
                        "player": owner,
                        "sender": mail.from_addr,
                        "received": now.isoformat(),
                    },
                    auto="auto-generated",
                )
                return None, False
            reply.error = (
                f"{mail.from_addr} is not a player of {name}. Observers can write WATCH {name}."
            )
            return reply, False
        relay = app.config.server.trusted_relay
        if relay and not auth.relay_verified(
            mail.headers.get("authentication-results"), relay, mail.from_addr
        ):
            reply.error = (
                "nothing was applied: this server takes orders only from mail that its "
                f"relay ({relay}) found signed by your domain (DKIM or DMARC), and yours "
                "was not."
            )
            return reply, False
        if not (token_ok(player) or password_ok(player)):
            if store.recent_auth_failures(conn, mail.from_addr, now) >= BLOCK_AFTER:
                reply.error, reply.quiet = "password checks from this address are paused", True
                return reply, False  # told once, when the pause began
            failures = store.add_auth_failure(conn, mail.from_addr, name, now)
            if failures == FAILURES_BEFORE_ALERT:
                app.alert_master(
                    conn,
                    name,
                    f"repeated failed credentials for {name}",
                    f"{failures} mails in the last hour claimed to come from "
                    f"{player.email} ({player.name}) without the right password "
                    "or reply address. Nothing was applied.",
                )
            if failures >= BLOCK_AFTER:
                reply.error = self._paused(conn, mail.from_addr, player, cfg.timezone)
                reply.paused = True  # its Reply-To works: the closing says how, per game
                reply.received = engine.order_mode is OrderMode.RECEIVED
                return reply, False
            reply.error = (
                "nothing was applied: the password is missing or wrong. Put a "
                "line PASSWORD <your password> in the mail, or reply to a mail "
                "from this server."
            )
            return reply, False

        if game_row.status == "forming":
            seated = len(store.players(conn, name))
            reply.error = (
                f"{name} has not started yet: {seated} of {cfg.seats} players have joined, "
                "and it starts when every seat is taken."
            )
            return reply, False
        state = self._state(engine, name, game_row.state)
        turn, phase = engine.phase(state)
        reply.phase = phase
        if game_row.status == "finished" or engine.outcome(state) is not None:
            reply.error = "the game is over"
            return reply, False
        # the game master's commands, from a player, are order lines after all
        # (a game's own orders may start with such a word: "remove F Kiel")
        for number, command, arg in [c for c in section.commands if c[1] in MASTER_ONLY]:
            section.orders.append((number, f"{command} {arg}".strip()))
        section.orders.sort()
        section.commands = [c for c in section.commands if c[1] not in MASTER_ONLY]
        late = self._too_late(game_row, row, turn, phase)
        if late and (section.orders or any(c == "READY" for _, c, _ in section.commands)):
            reply.error = late
            return reply, False
        did = False
        received = engine.order_mode is OrderMode.RECEIVED
        reply.received = received
        if received:  # each mail adds orders; the stored texts are canonical
            queue = store.submission_queue(conn, name, turn, player.name).get(player.name, [])
            previous_lines = [
                t for _, text, _ in queue for t in text.splitlines() if not t.startswith("#")
            ]
            previous_sheet = None
        else:
            previous = store.current_submission(conn, name, turn, player.name)
            previous_sheet = (
                self._read_previous(engine, state, name, player.name, previous[1])
                if previous and previous[1]
                else None
            )
            previous_lines = [
                o.canonical() for o in (previous_sheet.orders if previous_sheet else ())
            ]
        standing = previous_lines
        standing_orders = previous_sheet.orders if previous_sheet else ()
        for number, _, _ in [c for c in section.commands if c[1] == "CLEAR"][:1]:
            if previous_lines:
                store.add_submission(conn, name, turn, player.name, row.id, "", row.received_at)
                reply.messages.append(
                    f"line {number}: your earlier orders for {phase} are withdrawn"
                )
                did = True
            else:
                reply.messages.append(f"line {number}: there were no orders to withdraw")
            previous_lines, standing, standing_orders = [], [], ()

        if section.orders:
            width = max(n for n, _ in section.orders)
            text_lines = [""] * width
            for n, text in section.orders:
                text_lines[n - 1] = text
            sheet = engine.read_orders(state, player.name, "\n".join(text_lines), seq=row.id)
            for o in sheet.orders:
                reply.accepted.append({"line": o.line, "text": o.canonical()})
            for p in sheet.problems:
                reply.refused.append(
                    {
                        "line": p.line,
                        "text": p.text,
                        "why": say(engine.name, "problems", p.reason, dict(p.facts)),
                        "suggestions": list(p.suggestions),
                    }
                )
            for n in sheet.warnings:
                facts = _dated(n.facts, game_row, cfg, player.timezone or cfg.timezone)
                said = say(engine.name, "notices", n.reason, facts)
                reply.notices.append(f"line {n.line}: {said}")
            if sheet.orders and received:
                new_lines = [o.canonical() for o in sheet.orders]
                store.add_submission(
                    conn, name, turn, player.name, row.id, "\n".join(new_lines), row.received_at
                )
                reply.added = new_lines
                standing = previous_lines + new_lines
                did = True
            elif sheet.orders:
                new_lines = [o.canonical() for o in sheet.orders]
                store.add_submission(
                    conn, name, turn, player.name, row.id, "\n".join(new_lines), row.received_at
                )
                reply.replaced = True
                reply.added = [t for t in new_lines if t not in previous_lines]
                reply.removed = [t for t in previous_lines if t not in new_lines]
                standing = new_lines
                standing_orders = sheet.orders
                did = True
            else:
                reply.kept_previous = bool(previous_lines)
        if received and engine.tracks_presence and not reply.added:
            # any mail from a player counts as being there (the game's absence rules)
            store.add_submission(conn, name, turn, player.name, row.id, PRESENT, row.received_at)
            did = True
        reply.standing = standing
        reply.holding = [
            o.canonical() for o in engine.default_orders(state, player.name, standing_orders)
        ]

        for number, command, _arg in section.commands:
            if command == "READY":
                store.set_ready(conn, name, turn, player.name)
                reply.messages.append(f"line {number}: READY noted for {phase}")
                if cfg.early:
                    self.turn_requests.add(name)  # the worker checks once this commits
                did = True
            elif command == "CLEAR":
                continue  # done above, before this mail's orders
            elif command == "CLEAR":
                continue  # done above, before this mail's orders
            elif command == "STATUS":
                reply.status = self._status_lines(engine, state, player.name)
            elif command == "NEW TOKEN":
                store.bump_token(conn, player.id)
                self._cache = {}
                reply.messages.append(
                    f"line {number}: new reply address made; replies to older mail no longer work"
                )
                did = True
            elif command == "RESIGN":
                master.remove(app, conn, name, player.name, resigned=True)
                self._cache = {}
                reply.messages.append(f"line {number}: you have resigned from {name}")
                did = True
            elif command == "SET TIMEZONE":
                zone = _zone(_arg)
                if zone is None:
                    reply.messages.append(
                        f"line {number}: {_arg!r} is not a time zone; write it as Area/City, "
                        "for example SET TIMEZONE Europe/Oslo"
                    )
                else:
                    store.set_player(conn, player.id, timezone=zone)
                    self._cache = {}
                    player = replace(player, timezone=zone)
                    reply.messages.append(f"line {number}: deadlines are shown in {zone} now")
                    did = True
            elif command == "HISTORY":
                reply.messages += self._history(
                    conn,
                    name,
                    player.name,
                    player.email,
                    [(number, command, _arg)],
                    app.reply_address(player),
                )
                did = True
            else:
                reply.messages.append(f"line {number}: {command} is not available here")
        for number, to, body in section.press:
            everyone = store.players(conn, name)
            reply.messages.append(self._press(conn, name, turn, player, everyone, number, to, body))
            did = True

        if game_row.deadline is not None and game_row.status == "running":
            reply.deadline = local(game_row.deadline, player.timezone or cfg.timezone)
        elif game_row.status == "paused":
            reply.deadline = "none while the game is paused"
        return reply, did

    def _master_section(
        self,
        conn: Connection,
        mail: ParsedMail,
        section: Section,
        passwords: list[str],
        cfg: Any,
        reply: GameReply,
    ) -> tuple[GameReply, bool]:
        """The game master's mail: the master password, then commands."""
        app, name, now = self.app, cfg.name, self.app.clock.now()
        sender = cfg.master_email
        relay = app.config.server.trusted_relay
        if relay and not auth.relay_verified(
            mail.headers.get("authentication-results"), relay, mail.from_addr
        ):
            reply.error = (
                f"nothing was applied: the relay ({relay}) did not find this mail signed by "
                "your domain (DKIM or DMARC)"
            )
            return reply, False
        blocked = app.store.recent_auth_failures(conn, sender, now) >= BLOCK_AFTER
        if blocked or not any(
            hmac.compare_digest(p, cfg.master_password or "") for p in passwords[:3]
        ):
            if blocked:
                reply.error, reply.quiet = "password checks from this address are paused", True
                return reply, False  # told once, when the pause began
            if app.store.add_auth_failure(conn, sender, name, now) >= BLOCK_AFTER:
                reply.error = self._paused(conn, sender, None, cfg.timezone)
                return reply, False
            reply.error = (
                "nothing was applied: the game master's password is missing or wrong "
                "(a line PASSWORD <password>, as in games.yaml)"
            )
            return reply, False
        if section.orders:
            reply.messages.append(
                "order lines are for players; the game master's commands are: "
                + ", ".join(sorted(MASTER_ONLY | {"STATUS", "HISTORY"}))
            )
        did = False
        for number, command, arg in section.commands:
            try:
                if command == "PAUSE":
                    text = master.pause(app, conn, name)
                elif command == "RESUME":
                    text = master.resume(app, conn, name)
                elif command == "EXTEND":
                    text = master.extend(app, conn, name, arg)
                elif command == "ADJUDICATE":
                    turn = master.check_adjudicate(app, conn, name)
                    self.forced.append((name, turn))
                    text = f"the turn of {name} is resolved now; the reports follow"
                elif command == "REPLACE":
                    m = re.fullmatch(r"(\S+)\s+(?:with|by|->)\s+(\S+)", arg, re.I)
                    if m is None:
                        raise master.MasterError("write REPLACE <player> WITH <email>")
                    text = master.replace(app, conn, name, m[1], m[2])
                elif command == "REMOVE":
                    text = master.remove(app, conn, name, arg.split()[0] if arg else "")
                elif command == "END GAME":
                    text = master.end(app, conn, name)
                elif command == "STATUS":
                    reply.status = master.status(app, conn, name)
                    continue
                elif command == "HISTORY":
                    reply.messages += self._history(
                        conn, name, "", cfg.master_email, [(number, command, arg)]
                    )
                    continue
                else:
                    text = f"{command} is not available here"
                    reply.messages.append(f"line {number}: {text}")
                    continue
            except master.MasterError as exc:
                reply.messages.append(f"line {number}: {command}: {exc}")
                continue
            self._cache = {}
            did = True
            reply.messages.append(f"line {number}: {text}")
        if not section.commands:
            reply.messages.append("no commands found (send HELP for the list)")
        return reply, did

    def _history(
        self,
        conn: Connection,
        game: str,
        reader: str,
        email: str,
        commands: list[tuple[int, str, str]],
        reply_to: str | None = None,
    ) -> list[str]:
        """HISTORY [phase]: the reader's own copy of a kept report, mailed
        again. The phase is named as the game names it (``tick 3``,
        ``S1901M``, ``turn 2``) or by its number; none: the last."""
        out = []
        cfg = self.app.game_config(game)
        row = self.app.store.game(conn, game)
        for number, _, arg in commands:
            if (
                cfg is not None
                and row is not None
                and row.finished_at is not None
                and self.app.clock.now() - row.finished_at > cfg.keep
            ):
                out.append(
                    f"line {number}: {game} ended more than {plural(cfg.keep.days, 'day')} ago"
                )
                continue
            phases = self._kept_phases(conn, game, row)
            turn = None
            if arg.strip():
                turn = _phase_turn(arg, phases)
                if turn is None:
                    out.append(
                        f"line {number}: {game} has no report of a phase called "
                        f"{arg.strip()!r}"
                        + (
                            f" (reports kept: {', '.join(phases.values())})"
                            if phases
                            else " (no report is kept yet)"
                        )
                    )
                    continue
            found = self.app.store.report(conn, game, reader, turn)
            if found is None:
                out.append(
                    f"line {number}: no report"
                    + (f" of {phases.get(turn, turn)}" if turn else "")
                    + (" for you" if turn and phases else "")
                    + (" yet" if not phases else "")
                )
                continue
            message_id, raw = report_mail(
                self.app,
                email,
                found.subject + " (again)",
                found.text,
                found.html,
                found.svg,
                found.png,
                None,
                self.app.clock.now(),
                reply_to,
                found.turn,
            )
            self.app.store.queue_mail(
                conn, "history", email, message_id, raw, self.app.clock.now(), None
            )
            out.append(
                f"line {number}: the report of {phases.get(found.turn, found.turn)} is on its way"
            )
        return out

    def _kept_phases(self, conn: Connection, game: str, row: GameRow | None) -> dict[int, str]:
        """The phases of ``game`` with a kept report: turn -> the game's name
        for the phase (``tick 3``, ``S1901M``)."""
        if row is None:
            return {}
        kept = set(self.app.store.report_turns(conn, game))
        engine = self.app.engine(row.kind)
        return {
            turn: engine.phase(engine.load_state(state))[1]
            for turn, state in self.app.store.turn_states(conn, game)
            if turn in kept
        }

    def _too_late(self, game: GameRow, row: InboxRow, turn: int, phase: str) -> str | None:
        """Why a mail's orders cannot count, if they cannot: it arrived after
        the deadline of the turn being played, or before that turn began
        (it was meant for the turn already resolved)."""
        at = row.received_at
        if game.status == "running" and game.deadline is not None and at >= game.deadline:
            return (
                f"too late for {phase}: your mail arrived at {at:%Y-%m-%d %H:%M:%S} UTC, after "
                f"its deadline ({game.deadline:%Y-%m-%d %H:%M:%S} UTC). Nothing was applied; "
                "the turn is being resolved. Send your orders again for the next turn once "
                "its report arrives."
            )
        if game.turn_started_at is not None and at < game.turn_started_at:
            return (
                f"too late for the turn before {phase}: your mail arrived at "
                f"{at:%Y-%m-%d %H:%M:%S} UTC but that turn had been resolved when it was read. "
                f"Nothing was applied; send your orders again for {phase}."
            )
        return None

    def _status_lines(self, engine: Any, state: Any, player: str) -> list[str]:
        view = engine.view(state, player)
        lines = [f"{view.phase}: you play {with_seat(state, player)}"]
        for row in view.standings:
            measures = ", ".join(f"{k} {v}" for k, v in row.measures)
            lines.append(
                f"  {with_seat(state, row.player):<20} {measures}"
                + ("" if row.status == "active" else f" ({row.status})")
            )
        units = sorted(view.options)
        if units:
            lines.append(f"Your units: {', '.join(units)}")
        for unit, options in view.options.items():  # what each may do: its connections
            lines.append(wrap(f"  {unit}: {compact_options(unit, options)}", hang="      "))
        return lines

    def _press(
        self,
        conn: Connection,
        game: str,
        turn: int,
        sender: PlayerRow,
        everyone: list[PlayerRow],
        number: int,
        to: str,
        body: list[str],
    ) -> str:
        words = to.split()
        anonymous = bool(words) and words[-1].upper() in ("ANON", "ANONYMOUS")
        if anonymous:
            to = " ".join(words[:-1])
        allowed = self.app.game_config(game).press  # type: ignore[union-attr]
        if allowed == "none":
            return f"line {number}: press not sent: this game has no press"
        if anonymous and allowed == "signed":
            return f"line {number}: press not sent: press in this game is signed"
        anonymous = anonymous or allowed == "anonymous"
        names = {p.name.lower(): p for p in everyone if p.status == "active"}
        if to.strip().upper() == "ALL":
            targets = [p for p in names.values() if p.name != sender.name]
        else:
            wanted = [w.strip().lower() for w in to.replace(";", ",").split(",") if w.strip()]
            unknown = [w for w in wanted if w not in names]
            if unknown or not wanted:
                return (
                    f"line {number}: press not sent: no player called {', '.join(unknown)}"
                    if unknown
                    else f"line {number}: press not sent: say to whom (ALL or names)"
                )
            targets = [names[w] for w in wanted]
        text = "\n".join(body).strip()
        if not text:
            return f"line {number}: press not sent: it is empty"
        for p in targets:
            self.app.queue(
                conn,
                "press",
                p.email,
                f"[{game}] press" + ("" if anonymous else f" from {sender.name}"),
                "press",
                {
                    "game": game,
                    "sender": None if anonymous else sender.name,
                    "text": text,
                    "to": [t.name for t in targets],
                },
                reply_to=self.app.reply_address(p),
                auto="auto-generated",
            )
        if to.strip().upper() == "ALL":  # kept for the turn report
            self.app.store.add_press(
                conn, game, turn, None if anonymous else sender.name, text, self.app.clock.now()
            )
        kind = "anonymous press" if anonymous else "press"
        return f"line {number}: {kind} sent to {', '.join(sorted(t.name for t in targets))}"

    # -- server commands -------------------------------------------------------------

    def _server_commands(
        self,
        conn: Connection,
        mail: ParsedMail,
        commands: list[tuple[int, str, str]],
        addressed: str | None = None,
    ) -> list[str]:
        app, store = self.app, self.app.store
        out: list[str] = []
        for number, name, arg in commands:
            if name == "HELP":
                out.append("Commands (one a line, any case; the game's orders between them):")
                for c in COMMANDS:
                    usage = (c.name + " " + c.args).strip()
                    if len(usage) > 24:  # a long one: its description on a line of its own
                        out.append(f"  {usage}")
                        usage = ""
                    out.append(f"  {usage:<24} {c.description}")
            elif name == "LIST":
                now = app.clock.now()
                rows = [
                    g
                    for g in store.all_games(conn)
                    if g.finished_at is None
                    or (cfg := app.game_config(g.name)) is None
                    or now - g.finished_at <= cfg.keep
                ]
                out.append("Games on this server:")
                for lobby in (c for c in app.config.games if c.lobby):
                    out.append(
                        f"  {lobby.name:<16} {app.engine(lobby.game).title}: JOIN {lobby.name} "
                        f"to play; a lobby opens for every {lobby.seats} players"
                    )
                for g in rows:
                    engine = app.engine(g.kind)
                    players = len(store.players(conn, g.name))
                    cfg = app.game_config(g.name)
                    if g.status == "forming" and cfg is not None:
                        out.append(
                            f"  {g.name:<16} {engine.title}, open: {players} of {cfg.seats} "
                            f"seats taken (JOIN {g.name}): {app.game_address(g.name)}"
                        )
                        continue
                    state = engine.load_state(g.state)
                    status = g.status
                    if g.finished_at is not None and cfg is not None:
                        until = g.finished_at + cfg.keep
                        status = f"over, readable until {until:%Y-%m-%d}"
                    private = (
                        " (private)" if cfg is not None and cfg.visibility == "private" else ""
                    )
                    out.append(
                        f"  {g.name:<16} {engine.title}, {engine.phase(state)[1]}, "
                        f"{plural(players, 'player')}, {status}{private}: "
                        f"{app.game_address(g.name)}"
                    )
                if not rows:
                    out.append("  none")
            elif name == "RANK":
                out.extend(rank_lines(store.ranking(conn)))
            elif name in ("WATCH", "UNWATCH"):
                game = arg.lower().split()[0] if arg else ""
                if store.game(conn, game) is None:
                    out.append(f"line {number}: {name}: there is no game called {game!r}")
                    continue
                refused = self._watch_refused(game, arg) if name == "WATCH" else None
                if refused:
                    out.append(f"line {number}: WATCH {game}: {refused}")
                    continue
                changed = store.watch(conn, game, mail.from_addr or "", name == "WATCH")
                verb = "now watching" if name == "WATCH" else "no longer watching"
                out.append(
                    f"line {number}: {mail.from_addr} is {verb} {game}"
                    + ("" if changed else " (no change)")
                )
            elif name == "JOIN":
                out.append(f"line {number}: " + self._join(conn, mail, arg))
            elif name == "LEAVE":
                out.append(f"line {number}: " + self._leave(conn, mail, arg))
            elif name == "REACT":
                out.append(f"line {number}: " + self._react(conn, mail, arg, addressed))
        return out

    def _watch_refused(self, game: str, arg: str) -> str | None:
        """Why WATCH may not be granted: a private game is watched only with
        its observer password (``WATCH game password``)."""
        cfg = self.app.game_config(game)
        if cfg is None or cfg.visibility != "private":
            return None
        given = arg.split()[1] if len(arg.split()) > 1 else ""
        if not cfg.observer_password:
            return f"{game} is private: only its players and the observers its game master lists"
        if not given:
            return (
                f"{game} is private: write WATCH {game} <observer password> (its game master "
                "has it)"
            )
        if not hmac.compare_digest(given, cfg.observer_password):
            return "the observer password is wrong"
        return None

    def _join(self, conn: Connection, mail: ParsedMail, arg: str) -> str:
        """JOIN game [as name]: take a seat in a game that is open."""
        app, store = self.app, self.app.store
        words = arg.split()
        game = words[0].lower() if words else ""
        cfg = app.game_config(game)
        if cfg is not None and cfg.lobby and cfg.name == game:
            game = self._open_lobby(conn, cfg)  # the lobby to sit in, opened if need be
            cfg = app.game_config(game)
        row = store.game(conn, game) if game else None
        if row is None or cfg is None:
            return f"JOIN {arg}: there is no game called {game!r}"
        if row.status != "forming":
            return f"JOIN {game}: the game has started; ask its game master for a seat"
        seated = store.players(conn, game)
        sender = mail.from_addr or ""
        if any(p.email.lower() == sender.lower() for p in seated):
            return f"JOIN {game}: {sender} has a seat in {game} already"
        if len(words) >= 3 and words[1].lower() == "as":
            wanted = words[2]
        else:
            wanted = re.sub(r"[^A-Za-z0-9_-]", "", sender.partition("@")[0]) or "player"
            if not wanted[0].isalpha():
                wanted = "p" + wanted
            wanted = wanted[:32]
        if not PLAYER_NAME.match(wanted):
            return (
                f"JOIN {game}: {wanted!r} cannot be a player's name (a letter, then letters, "
                f"digits, _ or -); write JOIN {game} as <name>"
            )
        if any(p.name.lower() == wanted.lower() for p in seated):
            return f"JOIN {game}: the name {wanted!r} is taken; write JOIN {game} as <name>"
        add_player(app, conn, cfg, wanted, sender, None)
        self._cache = {}
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

    def _open_lobby(self, conn: Connection, cfg: Any) -> str:
        """The lobby of a lobby game that has free seats; a new one (the next
        number) when none has."""
        store = self.app.store
        numbers = []
        for g in store.all_games(conn):
            base, _, number = g.name.rpartition("-")
            if base == cfg.name and number.isdigit():
                numbers.append(int(number))
                if g.status == "forming" and len(store.players(conn, g.name)) < cfg.seats:
                    return g.name
        name = f"{cfg.name}-{max(numbers, default=0) + 1}"
        instance = self.app.game_config(name)
        assert instance is not None
        seed = instance.seed if instance.seed is not None else secrets.randbits(48)
        store.add_game(conn, name, cfg.game, "", 0, seed, self.app.clock.now(), status="forming")
        self._cache = {}
        return name

    def _react(self, conn: Connection, mail: ParsedMail, arg: str, addressed: str | None) -> str:
        """REACT [game] text: a spectator's short reaction, relayed to every
        player and spectator of the game; one per cooldown per spectator."""
        app, store, now = self.app, self.app.store, self.app.clock.now()
        sender = (mail.from_addr or "").lower()
        first, _, rest = arg.partition(" ")
        game, text = (first.lower(), rest) if app.has_game(first.lower()) else (addressed, arg)
        text = " ".join(text.split())
        if not game or store.game(conn, game) is None:
            return "REACT: name the game: REACT <game> <text>"
        cfg = app.game_config(game)
        assert cfg is not None
        watching = {e.lower() for e in cfg.observers} | set(store.watchers(conn, game))
        if sender not in watching:
            return f"REACT {game}: only spectators react; WATCH {game} first"
        if not text:
            return f"REACT {game}: the reaction is empty"
        if len(text) > REACTION_MAX:
            return f"REACT {game}: a reaction is at most {REACTION_MAX} characters"
        last = store.last_reaction(conn, game, sender)
        if last is not None and now - last < cfg.react_cooldown:
            wait = cfg.react_cooldown - (now - last)
            minutes, seconds = divmod(int(wait.total_seconds()) + 1, 60)
            return (
                f"REACT {game}: not sent: one reaction per {_span(cfg.react_cooldown)}; "
                f"wait {minutes} min {seconds} s"
            )
        store.add_reaction(conn, game, sender, text, now)
        to = {p.email for p in store.players(conn, game) if p.status == "active"} | watching
        for email in sorted(to - {sender}, key=str.lower):
            app.queue(
                conn,
                "reaction",
                email,
                f"[{game}] a reaction from {sender}",
                "alert",
                {"subject": f"{sender} reacts", "text": text, "game": game},
                auto="auto-generated",
            )
        told = plural(len(to - {sender}), "player and spectator", "players and spectators")
        return f"REACT {game}: sent to {told}"

    def _leave(self, conn: Connection, mail: ParsedMail, arg: str) -> str:
        """LEAVE game: give up a seat in a lobby (or open game) not yet started."""
        store, sender = self.app.store, (mail.from_addr or "").lower()
        game = arg.split()[0].lower() if arg.split() else ""
        for g in store.all_games(conn):
            base = g.name.rpartition("-")[0]
            if game not in (g.name, base) or g.status != "forming":
                continue
            for p in store.players(conn, g.name):
                if p.email.lower() == sender:
                    store.delete_player(conn, p.id)
                    self._cache = {}
                    left = len(store.players(conn, g.name))
                    return f"LEAVE {game}: you have left {g.name} ({plural(left, 'seat')} taken)"
        return (
            f"LEAVE {game}: {sender} has no seat in a game called {game!r} that has not started "
            "(a started game is left with RESIGN)"
        )

    # -- replies ---------------------------------------------------------------------

    def _registered_address(self, players: list[PlayerRow], sender: str) -> str | None:
        for p in players:
            if p.email.lower() == sender.lower():
                return p.email
        return sender

    def _paused(self, conn: Connection, sender: str, player: PlayerRow | None, tz: str = "") -> str:
        """The one refusal that says password checks from ``sender`` are
        paused, until when, and what still works."""
        times = self.app.store.auth_failure_times(conn, sender, self.app.clock.now())
        until = times[max(0, len(times) - BLOCK_AFTER)] + timedelta(hours=1)
        when = local(until, (player.timezone if player else "") or tz or "UTC")
        way = (
            "Replying to this mail, or to any mail from this server, still works: "
            "its reply address is checked without the password."
            if player
            else "The command line on the server (pbem master) still works."
        )
        return wrap(  # a paragraph of its own, wrapped for a mail window
            f"nothing was applied: {BLOCK_AFTER} mails in the last hour came from this "
            "address with a wrong password (or none), so password checks from it are "
            f"paused until {when}. Mails with a password sent before then are not "
            f"answered. {way} If you did not send those mails, someone else used your address.",
            hang="",
        )

    def _reply_to(
        self, conn: Connection, players: list[PlayerRow], replies: list[GameReply]
    ) -> str | None:
        """The player's reply address for the first game answered (read
        again if this mail asked for a new token)."""
        games = [r.game for r in replies if r.game and (not r.error or r.paused)]
        for p in players:
            if games and p.game == games[0] and p.status == "active":
                if any("new reply address" in m for r in replies for m in r.messages):
                    p = next(x for x in self.app.store.players(conn, p.game) if x.id == p.id)
                return self.app.reply_address(p)
        return None

    def _reply_allowed(self, conn: Connection, to: str, now: Any) -> bool:
        """Whether ``to`` may be answered at all: never a daemon's address.
        (An automatic mail never gets this far: handle() ends it first, by
        the one predicate mailparse.automatic. The daily cap is counted
        where every reply is queued: App.queue, pbem/replycap.py.)"""
        return not is_daemon(to)

    def _reply_if_player(
        self, conn: Connection, row: InboxRow, mail: ParsedMail, kind: str, subject: str, text: str
    ) -> None:
        players = self.app.store.players_by_email(conn, mail.from_addr or "")
        if not players or not self._reply_allowed(conn, players[0].email, self.app.clock.now()):
            return
        self.app.queue(
            conn,
            kind,
            players[0].email,
            subject,
            "alert",
            {"subject": subject, "text": text, "game": None},
            in_reply_to=mail.message_id,
            inbox_id=row.id,
        )


REACTION_MAX = 200


def _fold_history(sections: dict[str | None, Section], default: str | None, is_game: Any) -> None:
    """``HISTORY tick 3`` or ``HISTORY S1901M`` in a mail to a game's
    address names a phase of that game, not a game called "tick": such a
    section (HISTORY lines only, under a word that is no game) goes back to
    the game the mail was addressed to, with its word as the phase."""
    if default is None or default not in sections:
        return
    for key in [k for k in sections if k is not None and k != default and not is_game(k)]:
        section = sections[key]
        if section.orders or section.press or section.line == 0:
            continue
        if not section.commands or any(c != "HISTORY" for _, c, _ in section.commands):
            continue
        for number, command, arg in section.commands:
            sections[default].commands.append((number, command, f"{key} {arg}".strip()))
        del sections[key]


def _phase_words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _phase_turn(wanted: str, phases: dict[int, str]) -> int | None:
    """The turn a HISTORY argument names: the phase as the game names it
    (any case and spacing; ``turn 2`` for Implosion's ``turn 2 of 10``), or
    its number."""
    words = _phase_words(wanted)
    if not words:
        return None
    if len(words) == 1 and words[0].isdigit() and int(words[0]) in phases:
        return int(words[0])
    for turn, name in phases.items():
        have = _phase_words(name)
        if "".join(words) == "".join(have) or have[: len(words)] == words:
            return turn
    return None


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


PRESENT = "# a mail came"  # a submission without orders: the player was there


def _span(delta: Any) -> str:
    minutes = int(delta.total_seconds()) // 60
    return f"{minutes} minutes" if minutes != 1 else "minute"


MASTER_ONLY = frozenset(
    {"PAUSE", "RESUME", "EXTEND", "ADJUDICATE", "REPLACE", "REMOVE", "END GAME"}
)


def _dated(facts: Any, game_row: GameRow, cfg: Any, zone: str) -> dict[str, Any]:
    """A game's notice facts with each ``{"deadline": k}`` (the k-th deadline
    from now, 1 the coming one) written as that date in the player's time
    zone (docs/interface.md)."""
    out = dict(facts)
    for key, value in facts.items():
        if not (isinstance(value, dict) and set(value) == {"deadline"}):
            continue
        when = game_row.deadline
        if when is None:
            out[key] = "a deadline to come (the game has none now)"
            continue
        for _ in range(int(value["deadline"]) - 1):
            when = cron_after(cfg, when)
        out[key] = local(when, zone)
    return out


def _zone(text: str) -> str | None:
    """A time zone's key, or None if it is not one."""
    name = text.strip().split()[0] if text.strip() else ""
    if not re.fullmatch(r"[A-Za-z_]+(/[A-Za-z0-9_+-]+)*", name):
        return None
    try:
        return ZoneInfo(name).key
    except (ZoneInfoNotFoundError, ValueError):
        return None


def store_bounce_matches(conn: Connection, app: App, mail: ParsedMail) -> str:
    """Match a bounce to the mail of ours it names; returns a note."""
    found = app.store.match_bounce(conn, mail.bounced_ids, f"bounced: {mail.bounce}")
    return "" if found is None else f"outbox #{found[0]} to {found[1]}"
