"""`pbem password GAME PLAYER`: a player's password, as the server mailed
it, for trying a game on one's own machine (README). Passwords are kept
only as hashes; the mail that gave one is kept in the outbox, so the
newest password mail to that player's address for that game is read.
Prints the password alone, nothing else, so that it can be used in a
shell: ``"$(pbem password alpha ann)"``."""

from __future__ import annotations

import argparse
import email
import email.policy
import re
from typing import TextIO

from pbem.cli.errors import InputError
from pbem.lifecycle.opening import open_app
from pbem.lifecycle.seats import NoSuchPlayer, seated_player

LINE = re.compile(r"^\s*PASSWORD\s+(\S+)\s*$", re.M)


def cmd_password(args: argparse.Namespace, out: TextIO) -> int:
    app = open_app(args.config, schema="check")
    with app.store.tx(write=False) as conn:
        if app.store.game(conn, args.game) is None:
            raise InputError(f"there is no game {args.game!r} (`pbem check` lists them)")
        seated = app.store.players(conn, args.game)
    try:
        player = seated_player(seated, args.game, args.player)
    except NoSuchPlayer as missing:
        raise InputError(str(missing)) from None
    for row in reversed(app.store.outbox_rows("password", player.email)):
        mail = email.message_from_bytes(row.message, policy=email.policy.default)
        body = mail.get_body(("plain",))
        text = body.get_content() if body is not None else ""
        if not text.startswith(f"Welcome to {args.game},"):
            continue
        found = LINE.search(text)
        if found:
            print(found.group(1), file=out)
            return 0
    raise InputError(
        f"no password mail to {player.name} ({player.email}) for {args.game} is kept "
        "(the server has not mailed one yet, or it was removed)"
    )
