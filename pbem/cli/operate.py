"""The commands on a server's storage and mail: serve, play as a player,
retry a quarantined mail, seat a player, revoke reply addresses, the game
master's commands, the scoreboard, kept reports, stored mail."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.app import App
from pbem.cli.demo import standalone_html
from pbem.cli.errors import InputError
from pbem.cli.listening import check_free, with_flags
from pbem.commands import master, master_status, rollback
from pbem.commands.lobby import rank_lines
from pbem.config import EMAIL, PLAYER_NAME, load_config, parse_duration
from pbem.lifecycle.opening import open_app
from pbem.lifecycle.seats import add_player
from pbem.lifecycle.start import start_game
from pbem.serving import logs
from pbem.serving.server import serve
from pbem.store.database import is_url, shown
from pbem.turns.localtime import TIME_FORMS
from pbem.turns.runner import TurnRunner
from pbem.words import plural


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    logs.configure(quiet=args.quiet, verbose=getattr(args, "verbose", False))
    base = Path(args.file).resolve().parent
    check_free(with_flags(load_config(args.file), args, base))  # before the store opens
    app = open_app(args.file)
    app.config = with_flags(app.config, args, base)
    serve(app)
    return 0


def cmd_migrate(args: argparse.Namespace, out: TextIO) -> int:
    """The store's schema brought to this version's newest: the one
    command that changes a schema. Running nodes of the previous version
    keep working on it (migrations add before they take away)."""
    from pbem.store import Store, revision
    from pbem.store.database import head_revision

    logging.getLogger("alembic").setLevel(logging.WARNING)
    server = load_config(args.file).server
    store = Store.open(server.storage, timeouts=server.storage_timeouts)
    try:
        was, head = revision.revision(store), head_revision()
        where = shown(store.url) if is_url(server.storage) else str(server.storage)
        if was is not None and was > head:
            revision.check(store)  # says which version of pbem it needs
        store.migrate()
    finally:
        store.close()
    if was == head:
        print(f"the store at {where} is at revision {head} already: nothing to do", file=out)
    elif was is None:
        print(f"the store at {where} is built, at revision {head}", file=out)
    else:
        print(f"the store at {where} was at revision {was}; it is now at {head}", file=out)
    return 0


def cmd_retry(args: argparse.Namespace, out: TextIO) -> int:
    app = open_app(args.config, schema="check")
    if not app.store.retry_mail(args.message):
        raise InputError(f"mail #{args.message} is not quarantined")
    print(
        f"mail #{args.message} is queued again; a running server takes it within a second", file=out
    )
    return 0


def cmd_seat(args: argparse.Namespace, out: TextIO) -> int:
    """The game master seats a player (the same as their JOIN): a password
    mail goes out; the last seat starts the game."""

    if not PLAYER_NAME.match(args.name):
        raise InputError(f"{args.name!r} cannot be a player's name")
    if not EMAIL.match(args.email):
        raise InputError(f"{args.email!r} is not an email address")
    if args.timezone:
        try:
            ZoneInfo(args.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise InputError(f"{args.timezone!r} is not a time zone") from None
    app = open_app(args.config, schema="check")
    cfg = app.game_config(args.game)
    with app.store.tx() as conn:
        row = app.store.game(conn, args.game)
        if row is None or cfg is None:
            raise InputError(f"there is no game {args.game!r}")
        if row.status != "forming":
            raise InputError(f"{args.game} has started: it has no free seat")
        seated = app.store.players(conn, args.game)
        if any(p.name.lower() == args.name.lower() for p in seated):
            raise InputError(f"{args.game} has a player called {args.name} already")
        if any(p.email.lower() == args.email.lower() for p in seated):
            raise InputError(f"{args.email} has a seat in {args.game} already")
        add_player(app, conn, cfg, args.name, args.email, args.timezone)
        taken = len(seated) + 1
        if taken >= cfg.seats:
            start_game(app, conn, cfg)
    started = " - every seat is taken and the game has started" if taken >= cfg.seats else ""
    print(
        f"{args.name} <{args.email}> is seated in {args.game} ({taken} of {cfg.seats})"
        f"{started}; the password mail is queued",
        file=out,
    )
    return 0


def cmd_new_token(args: argparse.Namespace, out: TextIO) -> int:
    app = open_app(args.config, schema="check")
    with app.store.tx() as conn:
        player = next(
            (p for p in app.store.players(conn, args.game) if p.name == args.player), None
        )
        if player is None:
            raise InputError(f"{args.game} has no player called {args.player!r}")
        app.store.bump_token(conn, player.id)
    print(
        f"{args.player}'s earlier reply addresses for {args.game} no longer work; the next "
        "mail the server sends them carries a new one",
        file=out,
    )
    return 0


def cmd_reachable(args: argparse.Namespace, out: TextIO) -> int:
    """The addresses no longer mailed because their mail bounces; with an
    address, mail it again (its count of failures starts afresh)."""
    app = open_app(args.config, schema="check")
    if args.address is None:
        gone = app.store.unreachable_addresses()
        for address, since in gone:
            print(f"{address}  unreachable since {since:%Y-%m-%d %H:%M} UTC", file=out)
        print(f"{plural(len(gone), 'address')} not mailed", file=out)
        return 0
    with app.store.tx() as conn:
        was = app.store.mark_reachable(conn, args.address)
    state = "is mailed again" if was else "was not marked unreachable; its count starts afresh"
    print(f"{args.address.lower()} {state}", file=out)
    return 0


def cmd_master(args: argparse.Namespace, out: TextIO) -> int:
    """The game master's commands, as by mail."""
    app = open_app(args.config, schema="check")
    want = {"extend": 1, "replace": 2, "remove": 1}.get(args.action, 0)
    if args.action == "deadline" and not 1 <= len(args.args) <= 3:
        raise InputError(f"deadline takes a date and a time: {TIME_FORMS}")
    if args.action != "deadline" and len(args.args) != want:
        what = {"extend": "DURATION", "replace": "PLAYER EMAIL", "remove": "PLAYER"}
        raise InputError(
            f"{args.action} takes "
            + (f"{plural(want, 'argument')} ({what[args.action]})" if want else "no arguments")
            + f", not {len(args.args)}"
        )
    try:
        if args.action == "end" and not args.yes and not _sure(app, args.game, out):
            print(f"{args.game} goes on: nothing was done", file=out)
            return 1
        if args.action == "adjudicate":
            with app.store.tx(write=False) as conn:
                turn = master.check_adjudicate(app, conn, args.game)
            done = TurnRunner(app).run(args.game, turn, "master")
            if done is None:
                raise InputError(f"turn {turn} of {args.game} was resolved meanwhile")
            print(f"{args.game}: {done.phase} resolved; the reports are queued", file=out)
            return 0
        with app.store.tx() as conn:
            if args.action == "status":
                text = "\n".join(master_status.status(app, conn, args.game))
            elif args.action == "pause":
                text = master.pause(app, conn, args.game)
            elif args.action == "resume":
                text = master.resume(app, conn, args.game)
            elif args.action == "extend":
                text = master.extend(app, conn, args.game, args.args[0])
            elif args.action == "deadline":
                text = master.set_deadline(app, conn, args.game, " ".join(args.args))
            elif args.action == "replace":
                text = master.replace(app, conn, args.game, *args.args)
            elif args.action == "remove":
                text = master.remove(app, conn, args.game, args.args[0])
            elif args.action == "rollback":
                text = rollback.rollback(app, conn, args.game)
            else:
                text = master.end(app, conn, args.game)
    except master.MasterError as exc:
        raise InputError(str(exc)) from None
    print(text, file=out)
    return 0


def _sure(app: App, name: str, out: TextIO) -> bool:
    """Ask, at the terminal, before a game is ended for good."""
    with app.store.tx(write=False) as conn:
        master.game_of(app, conn, name)  # a game that does not run is refused now
    print(master.END_PLAN.format(game=name), file=out)
    print(f"End {name} now? Type yes to end it: ", end="", file=out, flush=True)
    try:
        return sys.stdin.readline().strip().lower() == "yes"
    except OSError:
        return False


def cmd_rank(args: argparse.Namespace, out: TextIO) -> int:
    app = open_app(args.config, schema="check")
    with app.store.tx(write=False) as conn:
        lines = rank_lines(app.store.ranking(conn))
    print("\n".join(lines), file=out)
    return 0


def cmd_report(args: argparse.Namespace, out: TextIO) -> int:
    app = open_app(args.config, schema="check")
    with app.store.tx(write=False) as conn:
        found = app.store.report(conn, args.game, args.reader, args.turn)
        turns = app.store.report_turns(conn, args.game)
    if found is None:
        kept = f"turns kept: {', '.join(map(str, turns))}" if turns else "none is kept yet"
        raise InputError(f"no such report of {args.game} ({kept})")
    if args.html:  # a page of its own: the map inlined, not a cid: part no browser shows
        page = standalone_html(found.html, found.png) if found.png else found.html
    else:
        page = found.text
    print(page.replace("\r\n", "\n"), file=out, end="")
    if args.out is None:
        print("\n(the map picture: add --out FOLDER to write it)", file=sys.stderr)
        return 0
    folder = Path(args.out)
    png = folder / f"map-{args.game}-{found.turn}.png"
    svg = folder / f"map-{args.game}-{found.turn}.svg"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        png.write_bytes(found.png)
        svg.write_text(found.svg, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the map picture into {folder}: {exc.strerror}") from None
    print(f"\n(map picture: {png} and {svg})", file=sys.stderr)
    return 0


def cmd_inbox(args: argparse.Namespace, out: TextIO) -> int:
    if args.last is not None and args.last < 1:
        raise InputError(f"--last {args.last}: give a number of mails, 1 or more")
    since = None if args.since is None else _since(args.since)
    app = open_app(args.config, schema="check")
    if isinstance(since, timedelta):  # a span back from now, by the server's clock
        since = app.clock.now() - since
    for row in app.store.mails(args.state, since, args.last):
        note = f" ({row.note})" if row.note else ""
        error = f" [attempts {row.attempts}]" if row.attempts else ""
        if row.state == "quarantined" and row.error:  # why, in its last line
            error += f" [{row.error.strip().splitlines()[-1][:200]}]"
        print(
            f"#{row.id:<6} {row.received_at:%Y-%m-%d %H:%M:%S} {row.state:<11} "
            f"from {row.mail_from or '<>'} to {', '.join(row.rcpt_to)}{note}{error}",
            file=out,
        )
    states = app.store.mail_states()
    print("; ".join(f"{k} {v}" for k, v in sorted(states.items())) or "no mail", file=out)
    return 0


def _since(text: str) -> datetime | timedelta:
    """--since: a time (a date or time, UTC unless it says its zone), or
    a span back from now (90m, 2h, 1d)."""
    span = parse_duration(text)
    if span is not None and not text.strip().isdigit():
        return span
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InputError(
            f"--since {text}: give a date or time (2026-03-01, 2026-03-01T18:00, "
            "2026-03-01T18:00+01:00) or a span back from now (90m, 2h, 1d)"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def cmd_nodes(args: argparse.Namespace, out: TextIO) -> int:
    """The server nodes working on this store, what each holds, the backlog."""
    from pbem.serving.lease import HOLD, NAME

    app = open_app(args.config, schema="check")
    store, wall = app.store, time.time()
    print(f"storage {shown(store.url)}", file=out)
    if store.shared:
        rows = store.node_rows(wall)
        for row in rows:
            print(_node_line(row, wall), file=out)
        alive = sum(1 for r in rows if r.until >= wall)
        print(f"{plural(alive, 'node')} alive" + ("" if rows else " (none has started)"), file=out)
    else:
        lease = store.lease_of(NAME)
        if lease is None or lease.until < wall:
            print("no worker is running (an SQLite file has one node at a time)", file=out)
        else:
            print(
                f"one node at a time on an SQLite file: process {lease.pid} on {lease.host} "
                f"holds the worker lease (renewed {wall - (lease.until - HOLD):.0f} s ago)",
                file=out,
            )
    b = store.backlog(wall, app.clock.now())
    print(
        f"backlog: {plural(b.spooled, 'mail')} received, not yet in the inbox; "
        f"{plural(b.claimed + b.unclaimed, 'mail')} to process "
        f"({b.claimed} claimed by a node, {b.unclaimed} waiting); "
        f"{plural(b.to_send, 'mail')} to send now, {b.waiting} to try again later",
        file=out,
    )
    return 0


def _node_line(row: Any, wall: float) -> str:
    ago = wall - row.beat
    up = _span(wall - row.since)
    if row.until >= wall:
        health = f"alive, heartbeat {ago:.1f} s ago, up {up}"
    else:
        health = f"GONE: no heartbeat for {ago:.0f} s (the next node to look frees its claims)"
    where = f", {row.listen}" if row.listen else ""
    where += f", pbem {row.version}" if row.version else ""
    return (
        f"  {row.holder}: process {row.pid} on {row.host}{where}\n"
        f"    {health}\n"
        f"    holds {plural(row.claimed_mails, 'mail')} and {row.claimed_sends} to send; "
        f"since it started: {plural(row.mails, 'mail')} processed, "
        f"{plural(row.turns, 'turn')} resolved, {row.sent} sent"
    )


def _span(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
