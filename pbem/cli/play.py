"""`pbem play GAME PLAYER LINE...`: a mail to the running server as a
player would send it, and the answer printed, for a game master trying a
game and a newcomer learning it (README).

A seated player's mail goes from their address to their own reply
address (no password needed). Anyone else, named by address, mails the
game's address as a stranger would: that is how JOIN and WATCH are tried;
``--confirm`` then answers the mail that asks to confirm them, as a reply
would, and prints what the server says to that. The answer is printed as
the player gets it; when the server held it (the day's reply cap), that is
said first, on standard error, since the player would not have it now."""

from __future__ import annotations

import argparse
import email
import email.policy
import smtplib
import sys
import time
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any, TextIO

from pbem.cli.errors import InputError
from pbem.config import EMAIL
from pbem.lifecycle.opening import open_app
from pbem.lifecycle.seats import NoSuchPlayer, seated_player
from pbem.store import OutboxRow


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    app = open_app(args.config, schema="check")
    with app.store.tx(write=False) as conn:
        known = app.store.game(conn, args.game) is not None or app.has_game(args.game)
        seated = [p for p in app.store.players(conn, args.game) if p.status == "active"]
    if not known:
        raise InputError(f"there is no game {args.game!r} (`pbem check` lists them)")
    try:
        player = seated_player(seated, args.game, args.player)
        sender, to = player.email, app.reply_address(player)
    except NoSuchPlayer as missing:
        if missing.ambiguous:
            raise InputError(str(missing)) from None
        if not EMAIL.match(args.player):
            raise InputError(
                f"{missing}; give an address to mail it as someone not seated (JOIN, WATCH)"
            ) from None
        sender, to = args.player, app.game_address(args.game)
    text = "\n".join(args.lines) if args.lines else sys.stdin.read()
    answer = _exchange(app, args, sender, to, f"{args.game}: orders", text, out)
    if answer is None:
        return 1
    asked = str(answer["Reply-To"] or "")  # the last answer: the confirmation asked, if one
    if args.confirm and asked.startswith("confirm+"):
        confirmed = _exchange(app, args, sender, asked, f"Re: {answer['Subject']}", "", out)
        return 0 if confirmed is not None else 1
    if asked.startswith("confirm+"):
        print(
            f"(the server asks {sender} to confirm by replying to {asked}: "
            "`pbem play ... --confirm` does)",
            file=sys.stderr,
        )
    return 0


def _exchange(
    app: Any, args: argparse.Namespace, sender: str, to: str, subject: str, text: str, out: TextIO
) -> EmailMessage | None:
    """Send one mail and print the server's answer to it; the answer, or
    None when none came within --wait."""
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = to
    mail["Subject"] = subject
    mail["Message-ID"] = make_msgid(domain=sender.partition("@")[2] or "localhost")
    mail.set_content(text + "\n")
    host = app.config.server.host
    port = app.config.server.port if args.port is None else args.port
    try:
        with smtplib.SMTP(host, port, timeout=30) as smtp:
            smtp.send_message(mail)
    except OSError as exc:
        raise InputError(
            f"no mail server answers on {host}:{port} ({exc.strerror or exc}): start it with "
            "`make run` (pbem serve), or give its --port"
        ) from None
    print(f"sent as {sender} to {to}", file=sys.stderr)
    until = time.monotonic() + args.wait
    while time.monotonic() < until:
        found = _answers_to(app, sender, str(mail["Message-ID"]))
        if found:
            for row, answer in found:
                if row.status in ("held", "digested"):
                    print(
                        f"(the server held this answer: {sender} has had the day's replies; "
                        "it goes out in the digest after midnight UTC, and the last reply "
                        "sent said so)",
                        file=sys.stderr,
                    )
                body = answer.get_body(("plain",))
                text = "" if body is None else body.get_content().replace("\r\n", "\n")
                print(text, file=out, end="")
            return found[-1][1]
        time.sleep(0.2)
    print(
        f"no answer within {args.wait:g} s; it will come to {sender} "
        f"({app.config.server.outbound.maildir}/new/ for a Maildir)",
        file=sys.stderr,
    )
    return None


def _answers_to(app: Any, address: str, message_id: str) -> list[tuple[OutboxRow, EmailMessage]]:
    """The server's answers to the mail ``message_id`` (its receipt, and
    the mail asking to confirm a JOIN), once in the outbox: rows and mails."""
    found = []
    for row in app.store.outbox_rows(None, address):
        msg = email.message_from_bytes(row.message, policy=email.policy.default)
        if msg["In-Reply-To"] == message_id:
            found.append((row, msg))
    return found
