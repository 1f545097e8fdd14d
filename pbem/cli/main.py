"""The pbem command line.

    pbem check [FILE]              check games.yaml (every problem, with lines)
    pbem adjudicate ...            run one turn from files (for game masters)
    pbem maps [GAME] [--picture D] the maps shipped with a game; draw them
    pbem genmap ...                write a random connected map
    pbem preview [FILE]            one offline turn of every configured game
    pbem demo [--dir DIR]          six scripted players play a whole game by mail
    pbem serve [FILE]              the mail server
    pbem migrate [FILE]            bring the store's schema to this version's
    pbem dkim-key --selector S     a key to DKIM-sign outgoing mail; its DNS record
    pbem play GAME PLAYER LINE...  send a mail as a player; print the receipt
    pbem inbox, retry N            stored mail; process quarantined mail again
    pbem nodes                     the server nodes on this store, their claims, the backlog
    pbem reachable [ADDRESS]       addresses not mailed (their mail bounces); mail one again
    pbem seat GAME NAME EMAIL      seat a player in a game open for players
    pbem new-token GAME PLAYER     revoke a player's reply addresses
    pbem master GAME ACTION ...    pause, resume, extend, deadline, adjudicate, replace, remove,
                                   end, rollback
    pbem report GAME [--turn N]    print a kept turn report (--out DIR: its map picture)
    pbem rank                      the scoreboard
    pbem --version                 the release, and the commit it was built from

Exit status: 0 done, 2 bad input (every problem is printed), 1 a fault.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

# Only what every run needs is imported here: a command's module (and with
# it the storage, the mail rooms, the games) is imported when that command
# runs. `pbem serve`'s worker process imports this module again before it
# starts (multiprocessing's spawn), and needs none of the other commands.

Command = Callable[[argparse.Namespace, TextIO], Any]


def _at(module: str, name: str) -> Command:
    """The command ``name`` of ``pbem.cli.<module>``, imported when it runs."""

    def run(args: argparse.Namespace, out: TextIO) -> Any:
        return getattr(importlib.import_module(f"pbem.cli.{module}"), name)(args, out)

    run.__name__ = run.__qualname__ = name
    return run


def main(argv: Sequence[str] | None = None) -> int:
    from adjudicator.base import GameError
    from pbem.cli.errors import InputError
    from pbem.config import ConfigError
    from pbem.store.rows import StoreError

    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser(argv[0] if argv else None).parse_args(argv)
    try:
        return _run(args)
    except (InputError, GameError) as exc:
        print(f"pbem: {exc}", file=sys.stderr)
        return 2
    except ConfigError as exc:
        from pbem.words import plural

        print(f"pbem: {plural(len(exc.problems), 'problem')}:", file=sys.stderr)
        for p in exc.problems:
            print(f"  {p}", file=sys.stderr)
        return 2
    except StoreError as exc:  # the database down, its schema not this version's
        from pbem.store.revision import Unreachable, WrongRevision

        plain = isinstance(exc, (Unreachable, WrongRevision))
        said = str(exc) if plain else "storage failed: " + str(exc).strip().splitlines()[0]
        print(f"pbem: {said}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (`pbem inbox | head`): nothing to say
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout at exit
        return 0
    except OSError as exc:  # a file the user named cannot be read or written
        if exc.filename is None:
            raise
        print(f"pbem: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    """The command, then every store it opened closed."""
    from pbem.lifecycle.closing import closing_stores

    with closing_stores():
        return int(args.run(args, sys.stdout) or 0)


def _command(sub: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A subcommand whose ``--help`` says what it does (its one-line help
    as a sentence, when it has no longer description)."""
    if "description" not in kwargs and kwargs.get("help"):
        text = kwargs["help"]
        kwargs["description"] = text[0].upper() + text[1:] + "."
    return sub.add_parser(name, **kwargs)


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every command; or, for a run that names
    its command, only that command's group (a group's help and choices may
    need every game's rules, which `pbem serve` and the server commands do
    not)."""
    parser = argparse.ArgumentParser(prog="pbem", description="A play-by-email game server.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(required=True, metavar="COMMAND")
    if command == "--version":  # no command's group is needed to say it
        return parser
    named = [add for add, names in GROUPS if command in names]
    for add in named or [add for add, _ in GROUPS]:
        add(sub)
    return parser


class _Version(argparse.Action):
    """``pbem --version``: the release, and the commit of a checkout or of
    the checkout a wheel was built from (pbem/version.py)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print pbem's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from pbem.version import version

        print(f"pbem {version()}")
        parser.exit()


def _file_commands(sub: Any) -> None:
    """Commands on files, no server needed."""
    from adjudicator import GAMES
    from pbem.cli.defaults import MAPMAKER

    p = _command(sub, "check", help="check games.yaml")
    p.add_argument("file", nargs="?", default="games.yaml")
    p.set_defaults(run=_at("files", "cmd_check"))

    _adjudicate_command(sub)

    p = _command(
        sub,
        "maps",
        help="list the maps shipped with a game; draw them",
        description="List the maps shipped with a game (every game when none is named). "
        "With --picture DIR, also draw each map at the start of a game, as the turn "
        "reports show it, to DIR/<game>-<map>.png and .svg.",
    )
    p.add_argument("game", nargs="?", choices=sorted(GAMES), help="the game (default: all)")
    p.add_argument("--picture", metavar="DIR", help="draw each map's start position here")
    p.add_argument(
        "--players", type=int, help="players in the drawn start (default: as many as it takes)"
    )
    p.set_defaults(run=_at("files", "cmd_maps"))

    p = _command(sub, "genmap", help=f"write a random connected {MAPMAKER.title} map")
    p.add_argument(
        "--game",
        choices=sorted(k for k, g in GAMES.items() if g.generates_maps),
        help=f"the game (default: {MAPMAKER.name})",
    )
    p.add_argument("--systems", type=int, required=True, help="how many places the map has")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="file to write (default: standard output)")
    p.set_defaults(run=_at("files", "cmd_genmap"))


def _server_commands(sub: Any) -> None:
    """Running the server, and commands on its storage and mail."""
    from pbem.cli.keys import add_command as add_dkim_key

    p = _command(sub, "serve", help="run the mail server (SMTP in, mail out)")
    p.add_argument("file", nargs="?", default="games.yaml")
    p.add_argument("--host", help="listen on this address (default: games.yaml)")
    p.add_argument("--port", type=int, help="listen on this port (default: games.yaml)")
    p.add_argument(
        "--lmtp",
        metavar="ADDRESS",
        help="take LMTP on this host:port or socket path (default: games.yaml's lmtp, if any)",
    )
    p.add_argument(
        "--web-port", type=int, help="the web pages' port, if games.yaml has web (default: its)"
    )
    p.add_argument(
        "--metrics-port",
        type=int,
        help="the health and metrics port, if games.yaml has metrics (default: its)",
    )
    p.add_argument("--quiet", action="store_true", help="log warnings only")
    p.add_argument("--verbose", action="store_true", help="log everything, each SMTP command too")
    p.set_defaults(run=_at("operate", "cmd_serve"))

    p = _command(
        sub,
        "migrate",
        help="bring the store's schema to this version of pbem",
        description="Bring the store's schema to this version of pbem's newest (or build "
        "a new store). Only this command changes a schema: every other command on a store "
        "behind this version says so and stops. Running nodes of the previous version keep "
        "working on the new schema; restart them on this version one by one.",
    )
    p.add_argument("file", nargs="?", default="games.yaml")
    p.set_defaults(run=_at("operate", "cmd_migrate"))

    add_dkim_key(sub, _command)

    p = _command(
        sub,
        "play",
        help="send a mail as a player and print the receipt",
        description="Send a mail to a running server as one of a game's players (from their "
        "address, to their own reply address: no password needed), wait for the receipt "
        "and print it. Each LINE is a line of the mail: orders or commands "
        '("Sol x Alnitak", STATUS). No LINE: the mail is read from standard input.',
    )
    p.add_argument("game")
    p.add_argument(
        "player",
        help="the player's name in the game, or an address (someone not seated: JOIN, WATCH)",
    )
    p.add_argument("lines", nargs="*", metavar="LINE", help="a line of the mail")
    p.add_argument("--config", default="games.yaml")
    p.add_argument("--port", type=int, help="the server's port (default: games.yaml)")
    p.add_argument("--wait", type=float, default=20.0, help="seconds to wait for the receipt")
    p.add_argument(
        "--confirm",
        action="store_true",
        help="answer the mail that asks to confirm a JOIN or WATCH, as a reply would",
    )
    p.set_defaults(run=_at("play", "cmd_play"))

    p = _command(
        sub,
        "password",
        help="print a player's password, from the mail the server sent them",
    )
    p.add_argument("game")
    p.add_argument("player", help="the player's name in the game, or their address")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("password", "cmd_password"))

    p = _command(sub, "retry", help="process a quarantined mail again")
    p.add_argument("message", type=int, help="the mail's number (#N in the alert)")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("operate", "cmd_retry"))

    p = _command(sub, "seat", help="seat a player in a game open for players")
    p.add_argument("game")
    p.add_argument("name")
    p.add_argument("email")
    p.add_argument("--timezone")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("operate", "cmd_seat"))

    p = _command(sub, "new-token", help="revoke a player's reply addresses")
    p.add_argument("game")
    p.add_argument("player")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("operate", "cmd_new_token"))

    p = _command(sub, "inbox", help="list stored mail and its state")
    p.add_argument("--config", default="games.yaml")
    p.add_argument("--state", help="only mail in this state (new, applied, answered, refused, ...)")
    p.add_argument("--last", type=int, metavar="N", help="only the last N mails")
    p.add_argument(
        "--since",
        metavar="TIME",
        help="only mail received since TIME: a date or time (2026-03-01, "
        "2026-03-01T18:00; UTC unless it says its zone) or a span back from now (90m, 2h, 1d)",
    )
    p.set_defaults(run=_at("operate", "cmd_inbox"))

    p = _command(sub, "nodes", help="the server nodes on this store, their claims, the backlog")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("operate", "cmd_nodes"))

    p = _command(
        sub,
        "reachable",
        help="list the addresses not mailed because their mail bounces; "
        "with an address, mail it again",
    )
    p.add_argument("address", nargs="?")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("operate", "cmd_reachable"))

    p = _command(
        sub,
        "backup",
        help="copy an SQLite store and its spool while the server runs (files of mode 0600)",
    )
    p.add_argument(
        "file",
        help="the copy's file (its spool goes beside it), or a folder (a name without a suffix)",
    )
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("backup", "cmd_backup"))


def _master_commands(sub: Any) -> None:
    """The game master's commands, the scoreboard, kept reports."""
    p = _command(
        sub,
        "master",
        help="the game master's commands",
        description="pause, resume, extend DURATION, deadline TIME (2026-11-29 18:00 in "
        "the game's time zone, or with a zone), adjudicate (now), replace PLAYER EMAIL, "
        "remove PLAYER, end (asks first), rollback (the last phase), status",
    )
    # "-6h" is an argument (refused by extend with a hint), not an option
    p._negative_number_matcher = re.compile(r"^-\d")
    p.add_argument("game")
    p.add_argument(
        "action",
        choices=(
            "pause resume extend deadline adjudicate replace remove end rollback status".split()
        ),
    )
    p.add_argument(
        "args",
        nargs="*",
        help="extend: a duration; deadline: a date and time; replace: PLAYER EMAIL; remove: PLAYER",
    )
    p.add_argument("--yes", action="store_true", help="end: do not ask before ending the game")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("operate", "cmd_master"))

    p = _command(sub, "rank", help="the scoreboard: players with points, best first")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("operate", "cmd_rank"))

    p = _command(
        sub, "report", help="print a kept turn report (with --out, write its map picture too)"
    )
    p.add_argument("game")
    p.add_argument("--turn", type=int, help="the turn (default: the last reported)")
    p.add_argument(
        "--reader",
        default="",
        help="a player's name or an observer's address (default: the master's copy)",
    )
    p.add_argument(
        "--html",
        action="store_true",
        help="print the HTML report, its map inlined, instead of the text",
    )
    p.add_argument(
        "--out", help="a folder to write the map picture into (map-GAME-TURN.png and .svg)"
    )
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=_at("operate", "cmd_report"))


def _trying_commands(sub: Any) -> None:
    """Trying the games out: a turn of each, a whole game by mail."""
    p = _command(sub, "preview", help="play one offline turn of every game in games.yaml")
    p.add_argument("file", nargs="?", default="games.yaml")
    p.set_defaults(run=_at("files", "cmd_preview"))

    p = _command(
        sub,
        "demo",
        help="six scripted players play a whole Office Wars game by mail",
        description="Start a server on 127.0.0.1, let six scripted players join and play a "
        "whole game by real mail over SMTP on an accelerated clock, then print the winner, "
        "the turns and mails, and where the final report is.",
    )
    p.add_argument("--dir", help="where to keep the demo's files (default: a new temporary folder)")
    p.add_argument("--seed", type=int, default=7)
    p.set_defaults(run=_at("files", "cmd_demo"))


def _adjudicate_command(sub: Any) -> None:
    """pbem adjudicate: one turn from files."""
    from adjudicator import GAMES
    from pbem.cli.defaults import FIRST, POSITIONS

    p = _command(
        sub,
        "adjudicate",
        help="run one turn from files",
        description="Run one turn from files and write the new state. The "
        "orders file has one order a line, each prefixed by the player's name "
        "or colour: 'ann: Sol attacks Vega'.",
    )
    p.add_argument(
        "--game",
        choices=sorted(GAMES),
        help=f"the game (default: the state file's; {POSITIONS.name} for --position; "
        f"else {FIRST.name})",
    )
    p.add_argument(
        "--map",
        help="a shipped map or a map file (a fresh start; not needed where the game has one map)",
    )
    start = p.add_mutually_exclusive_group(required=True)
    start.add_argument("--state", help="the state file to start from")
    start.add_argument("--players", help="a fresh start: player names, comma-separated")
    start.add_argument(
        "--position",
        help=f"a position as text to start from ({POSITIONS.title}; docs/rules/), or a rule "
        "case holding one with its orders and seed (tests/cases/strategic/): prints "
        "every order's result and the next position (--out: write it to a file)",
    )
    p.add_argument("--orders", help="the orders file (no orders: every unit holds)")
    p.add_argument("--seed", type=int, help="the turn's seed (default: from the game's seed)")
    p.add_argument("--game-seed", type=int, default=0, help="the game's seed (fresh start)")
    p.add_argument("--out", help="where to write the new state (default state-<turn>.json)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse to adjudicate if any order line is refused (exit 2)",
    )
    p.set_defaults(run=_at("files", "cmd_adjudicate"))


# Each group of commands and the commands it adds (tests/test_cli.py checks
# the names against the parsers the groups make).
GROUPS: tuple[tuple[Callable[[Any], None], frozenset[str]], ...] = (
    (_file_commands, frozenset({"check", "adjudicate", "maps", "genmap"})),
    (
        _server_commands,
        frozenset(
            "serve migrate dkim-key play password retry seat new-token inbox nodes reachable "
            "backup".split()
        ),
    ),
    (_master_commands, frozenset({"master", "rank", "report"})),
    (_trying_commands, frozenset({"preview", "demo"})),
)
