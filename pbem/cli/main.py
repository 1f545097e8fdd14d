"""The pbem command line.

    pbem check [FILE]              check games.yaml (every problem, with lines)
    pbem adjudicate ...            run one turn from files (for game masters)
    pbem maps [GAME] [--picture D] the maps shipped with a game; draw them
    pbem genmap ...                write a random connected map
    pbem preview [FILE]            one offline turn of every configured game
    pbem demo [--dir DIR]          six scripted players play a whole game by mail
    pbem serve [FILE]              the mail server
    pbem play GAME PLAYER LINE...  send a mail as a player; print the receipt
    pbem inbox, retry N            stored mail; process quarantined mail again
    pbem seat GAME NAME EMAIL      seat a player in a game open for players
    pbem new-token GAME PLAYER     revoke a player's reply addresses
    pbem master GAME ACTION ...    pause, resume, extend, adjudicate, replace, remove, end
    pbem report GAME [--turn N]    print a kept turn report (--out DIR: its map picture)
    pbem rank                      the scoreboard

Exit status: 0 done, 2 bad input (every problem is printed), 1 a fault.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from adjudicator import GAMES
from adjudicator.base import Game, GameError, OrderSheet, Rng, TurnResult, turn_seed
from pbem.config import ConfigError, load_config
from pbem.lifecycle.seats import with_seat
from pbem.words import plural, say

# the defaults where a command names no game: the first game listed, the
# first with positions as text, the first that makes random maps
FIRST = next(iter(GAMES.values()))
POSITIONS = next((g for g in GAMES.values() if g.positions), FIRST)
MAPMAKER = next((g for g in GAMES.values() if g.generates_maps), FIRST)


class InputError(Exception):
    """Bad input from the user: printed, exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args, sys.stdout) or 0)
    except (InputError, GameError) as exc:
        print(f"pbem: {exc}", file=sys.stderr)
        return 2
    except ConfigError as exc:
        print(f"pbem: {plural(len(exc.problems), 'problem')}:", file=sys.stderr)
        for p in exc.problems:
            print(f"  {p}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file the user named cannot be read or written
        if exc.filename is None:
            raise
        print(f"pbem: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2


def _command(sub: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A subcommand whose ``--help`` says what it does (its one-line help
    as a sentence, when it has no longer description)."""
    if "description" not in kwargs and kwargs.get("help"):
        text = kwargs["help"]
        kwargs["description"] = text[0].upper() + text[1:] + "."
    return sub.add_parser(name, **kwargs)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pbem", description="A play-by-email game server.")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    p = _command(sub, "check", help="check games.yaml")
    p.add_argument("file", nargs="?", default="games.yaml")
    p.set_defaults(run=cmd_check)

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
        help=f"a position as text to start from ({POSITIONS.title}; docs/rules/): prints "
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
    p.set_defaults(run=cmd_adjudicate)

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
    p.set_defaults(run=cmd_maps)

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
    p.set_defaults(run=cmd_genmap)

    p = _command(sub, "serve", help="run the mail server (SMTP in, mail out)")
    p.add_argument("file", nargs="?", default="games.yaml")
    p.add_argument("--host", help="listen on this address (default: games.yaml)")
    p.add_argument("--port", type=int, help="listen on this port (default: games.yaml)")
    p.add_argument("--quiet", action="store_true", help="log warnings only")
    p.set_defaults(run=cmd_serve)

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
    p.add_argument("player", help="the player's name in the game, or their address")
    p.add_argument("lines", nargs="*", metavar="LINE", help="a line of the mail")
    p.add_argument("--config", default="games.yaml")
    p.add_argument("--port", type=int, help="the server's port (default: games.yaml)")
    p.add_argument("--wait", type=float, default=20.0, help="seconds to wait for the receipt")
    p.set_defaults(run=cmd_play)

    p = _command(sub, "retry", help="process a quarantined mail again")
    p.add_argument("message", type=int, help="the mail's number (#N in the alert)")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=cmd_retry)

    p = _command(sub, "seat", help="seat a player in a game open for players")
    p.add_argument("game")
    p.add_argument("name")
    p.add_argument("email")
    p.add_argument("--timezone")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=cmd_seat)

    p = _command(sub, "new-token", help="revoke a player's reply addresses")
    p.add_argument("game")
    p.add_argument("player")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=cmd_new_token)

    p = _command(sub, "inbox", help="list stored mail and its state")
    p.add_argument("--config", default="games.yaml")
    p.add_argument("--state", help="only mail in this state (new, applied, refused, ...)")
    p.set_defaults(run=cmd_inbox)

    p = _command(
        sub,
        "master",
        help="the game master's commands",
        description="pause, resume, extend DURATION, adjudicate (now), "
        "replace PLAYER EMAIL, remove PLAYER, end, status",
    )
    p.add_argument("game")
    p.add_argument(
        "action",
        choices=["pause", "resume", "extend", "adjudicate", "replace", "remove", "end", "status"],
    )
    p.add_argument(
        "args", nargs="*", help="extend: a duration; replace: PLAYER EMAIL; remove: PLAYER"
    )
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=cmd_master)

    p = _command(sub, "rank", help="the scoreboard: players with points, best first")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=cmd_rank)

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
    p.set_defaults(run=cmd_report)

    p = _command(sub, "preview", help="play one offline turn of every game in games.yaml")
    p.add_argument("file", nargs="?", default="games.yaml")
    p.set_defaults(run=cmd_preview)

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
    p.set_defaults(run=cmd_demo)
    return parser


# ----------------------------------------------------------------------------
# check


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    config = load_config(args.file)
    s = config.server
    print(f"{args.file}: OK", file=out)
    print(f"  server {s.domain}, listening on {s.host}:{s.port}, time zone {s.timezone}", file=out)
    print(f"  storage {s.storage}", file=out)
    for g in config.games:
        game = GAMES[g.game]
        print(
            f"  game {g.name} ({game.title}) at {g.address(s)}: map {Path(g.map).name}, "
            + (
                f"lobbies of {g.seats} players (JOIN {g.name}), "
                if g.lobby
                else f"{plural(len(g.players), 'player')}, "
            )
            + f"deadline '{g.deadline}' {g.timezone}",
            file=out,
        )
    if not config.games:
        print("  no games yet", file=out)
    return 0


# ----------------------------------------------------------------------------
# adjudicate


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the {what} {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"the {what} {path} is not UTF-8 text") from None


def _load_map(game: Game, ref: str) -> Any:
    if ref in game.maps():
        return game.load_map(ref)
    return game.load_map(_read(ref, "map file"))


def read_orders_file(game: Game, state: Any, text: str) -> dict[str, str]:
    """Split an orders file into each player's text, keeping the file's line
    numbers (other lines become blank). Raises InputError listing every
    line without a known player."""
    lines = text.splitlines()
    known = [row.player for row in game.view(state, None).standings]
    per: dict[str, list[str]] = {}
    problems = []
    owners: list[str | None] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            owners.append(None)
            continue
        who, sep, rest = stripped.partition(":")
        player = game.player_for(state, who) if sep else None
        if player is None:
            if sep:
                why = f"{who.strip()!r} is not a player's name or colour in this game"
            else:
                why = "start the line with a player's name or colour and a colon"
            problems.append(
                f"orders file, line {number}: {stripped!r}: {why} (players: {', '.join(known)})"
            )
            owners.append(None)
            continue
        owners.append(player)
        per.setdefault(player, [""] * len(lines))[number - 1] = rest.strip()
    if problems:
        raise InputError("\n".join(problems))
    return {p: "\n".join(ls) for p, ls in per.items()}


def _state_game(text: str, path: str) -> str:
    """The game a state file is of (its ``game`` key)."""
    try:
        kind = json.loads(text).get("game")
    except (ValueError, AttributeError):
        raise InputError(f"the state file {path} is not a game's state (JSON)") from None
    if kind not in GAMES:
        raise InputError(
            f"the state file {path} names no game pbem knows ({kind!r}); "
            f"give --game ({', '.join(sorted(GAMES))})"
        )
    return str(kind)


def cmd_adjudicate(args: argparse.Namespace, out: TextIO) -> int:
    if args.position:
        return _adjudicate_position(GAMES[args.game] if args.game else POSITIONS, args, out)
    if args.state:
        text = _read(args.state, "state file")
        game = GAMES[args.game or _state_game(text, args.state)]
        try:
            state = game.load_state(text)
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise InputError(
                f"the state file {args.state} is not a whole {game.title} state "
                f"(missing or wrong: {exc})"
            ) from None
    else:
        game = GAMES[args.game] if args.game else FIRST
        ref = args.map
        if not ref and len(game.maps()) == 1:
            ref = game.maps()[0]
        if not ref:
            raise InputError(
                f"a fresh start needs --map: {game.title} has the maps {', '.join(game.maps())}"
            )
        players = [p.strip() for p in args.players.split(",") if p.strip()]
        state = game.start(_load_map(game, ref), players, {}, args.game_seed)
    if game.outcome(state) is not None:
        raise InputError("this game is already over")
    sheets = _order_sheets(game, state, args)
    turn, phase = game.phase(state)
    seed = args.seed if args.seed is not None else turn_seed(state.seed, turn, phase)
    result = game.adjudicate(state, sheets, seed)
    target = Path(args.out or f"state-{turn + 1}.json")
    try:
        target.write_text(game.dump_state(result.state) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror}") from None
    if args.json:
        json.dump(
            _as_json(game, turn, phase, seed, sheets, result, target), out, indent=2, sort_keys=True
        )
        out.write("\n")
    else:
        write_turn(game, phase, sheets, result, out)
        print(f"\nNew state written to {target}.", file=out)
    return 0


def _order_sheets(game: Game, state: Any, args: argparse.Namespace) -> list[Any]:
    """The orders file read for ``state``, one sheet a player; with
    ``--strict``, any refused line stops the run with every refusal."""
    texts = read_orders_file(game, state, _read(args.orders, "orders file")) if args.orders else {}
    sheets = [game.read_orders(state, player, text) for player, text in texts.items()]
    refused = [p for s in sheets for p in s.problems]
    if args.strict and refused:
        raise InputError(
            "\n".join(
                f"orders file, line {p.line}: {p.text!r}: "
                + say(game.name, "problems", p.reason, dict(p.facts))
                for p in refused
            )
        )
    return sheets


def _adjudicate_position(game: Game, args: argparse.Namespace, out: TextIO) -> int:
    """One phase from a position as text: every order's result, then the
    next position (the game's ``load_position``/``dump_position``)."""
    if not game.positions:
        raise InputError(f"{game.title} has no positions as text: use --state")
    state = game.load_position(_read(args.position, "position file"))
    sheets = _order_sheets(game, state, args)
    turn, phase = game.phase(state)
    result = game.adjudicate(state, sheets, args.seed or 0)
    text = game.dump_position(result.state)
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {args.out}: {exc.strerror}") from None
    if args.json:
        data = game.phase_result(state, result)
        data["refused"] = {
            s.player: [p.to_dict() for p in s.problems] for s in sheets if s.problems
        }
        data["notes"] = {s.player: [n.to_dict() for n in s.warnings] for s in sheets if s.warnings}
        json.dump(data, out, indent=2, sort_keys=True)
        out.write("\n")
        return 0
    write_turn(game, phase, sheets, result, out)
    print(f"\nThe next position{f' (written to {args.out})' if args.out else ''}:", file=out)
    out.write(text)
    return 0


def _as_json(
    game: Game,
    turn: int,
    phase: str,
    seed: int,
    sheets: list[OrderSheet],
    result: TurnResult,
    target: Path,
) -> dict[str, Any]:
    outcome = game.outcome(result.state)
    return {
        "game": game.name,
        "turn": turn,
        "phase": phase,
        "seed": seed,
        "refused": {s.player: [p.to_dict() for p in s.problems] for s in sheets if s.problems},
        "warnings": {s.player: [n.to_dict() for n in s.warnings] for s in sheets if s.warnings},
        "results": [r.to_dict() for r in result.results],
        "events": [e.to_dict() for e in result.events],
        "outcome": None
        if outcome is None
        else {
            "reason": outcome.reason,
            "winners": list(outcome.winners),
            "scores": dict(outcome.scores),
        },
        "state_file": str(target),
    }


def write_turn(
    game: Game, phase: str, sheets: list[OrderSheet], result: TurnResult, out: TextIO
) -> None:
    """Every order's result grouped by player, refused lines, events and the
    standings, as plain text."""
    print(f"{game.title}, {phase}", file=out)
    by_player: dict[str, list[Any]] = {}
    for r in result.results:
        by_player.setdefault(r.order.player, []).append(r)
    sheet_of = {s.player: s for s in sheets}
    for player in sorted(set(by_player) | set(sheet_of)):
        print(f"\n{with_seat(result.state, player)}", file=out)
        for r in by_player.get(player, []):
            text = r.order.canonical() + ("" if r.order.line else " (no order)")
            mark = "ok  " if r.succeeded else "FAIL"
            why = say(game.name, "results", r.reason, dict(r.facts))
            print(f"  {mark} {text}{': ' + why if why else ''}", file=out)
        sheet = sheet_of.get(player)
        for p in sheet.problems if sheet else ():
            hint = f" (did you mean: {', '.join(p.suggestions)}?)" if p.suggestions else ""
            print(
                f"  REFUSED line {p.line} {p.text!r}: "
                f"{say(game.name, 'problems', p.reason, dict(p.facts))}{hint}",
                file=out,
            )
        for n in sheet.warnings if sheet else ():
            print(
                f"  note line {n.line}: {say(game.name, 'notices', n.reason, dict(n.facts))}",
                file=out,
            )
    print("\nEvents", file=out)
    for e in result.events:
        print(f"  {say(game.name, 'events', e.kind, dict(e.facts))}", file=out)
    if not result.events:
        print("  none", file=out)
    view = game.view(result.state, None)
    print("\nStandings", file=out)
    for row in view.standings:
        measures = ", ".join(f"{k} {v}" for k, v in row.measures)
        print(f"  {with_seat(result.state, row.player):<20} {measures} ({row.status})", file=out)


# ----------------------------------------------------------------------------
# maps, genmap, demo


def cmd_maps(args: argparse.Namespace, out: TextIO) -> int:
    kinds = [args.game] if args.game else sorted(GAMES)
    for kind in kinds:
        game = GAMES[kind]
        if not args.game:
            print(f"{kind} ({game.title}):", file=out)
        for name in game.maps():
            board = game.load_map(name)
            print(("  " if not args.game else "") + f"{name}: {game.describe_map(board)}",
                  file=out)  # fmt: skip
            if args.picture:
                written = draw_start(game, name, board, Path(args.picture), args.players)
                print(("  " if not args.game else "") + f"  drawn: {written}", file=out)
    return 0


def draw_start(game: Game, name: str, board: Any, folder: Path, players: int | None) -> str:
    """The map at the start of a game, as reports draw it: PNG and SVG."""
    from pbem.mapdraw import picture, to_png, to_svg

    count = players or game.map_players(board)
    if not game.seats.minimum <= count <= game.seats.maximum:
        seats = game.seats
        takes = (f"exactly {seats.maximum}" if seats.exact
                 else f"{seats.minimum} to {seats.maximum}")  # fmt: skip
        raise InputError(f"{game.title} takes {takes} players, not {count}")
    state = game.start(board, [f"player{i + 1}" for i in range(count)], {}, 0)
    scene = picture(game.name, game.view(state, None), [])
    folder.mkdir(parents=True, exist_ok=True)
    png, svg = folder / f"{game.name}-{name}.png", folder / f"{game.name}-{name}.svg"
    png.write_bytes(to_png(scene))
    svg.write_text(to_svg(scene), encoding="utf-8")
    return f"{png} and {svg}"


def cmd_genmap(args: argparse.Namespace, out: TextIO) -> int:
    game = GAMES[args.game] if args.game else MAPMAKER
    text = game.generate_map(args.systems, args.players, args.seed)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}: {game.describe_map(game.load_map(text))}", file=out)
    else:
        out.write(text)
    return 0


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    from pbem.cli import demo

    return demo.main(args.dir, out, args.seed)


def cmd_preview(args: argparse.Namespace, out: TextIO) -> int:
    """Start every configured game on paper and play one turn with random
    legal orders: a quick look at what the adjudicator does."""
    config = load_config(args.file)
    for g in config.games:
        game = GAMES[g.game]
        board = _load_map(game, g.map)
        names = [p.name for p in g.players]
        names += [f"seat{i + 1}" for i in range(len(names), g.seats)]  # open seats, lobbies
        state = game.start(board, names, g.options, g.seed or 0)
        rng = Rng(g.seed or 0)
        sheets = []
        for player in names:
            options = game.view(state, player).options
            lines = [rng.choice(opts) for _, opts in sorted(options.items())]
            sheets.append(game.read_orders(state, player, "\n".join(lines)))
        turn, phase = game.phase(state)
        result = game.adjudicate(state, sheets, turn_seed(g.seed or 0, turn, phase))
        print(f"== game {g.name} ({g.address(config.server)}), random orders ==\n", file=out)
        write_turn(game, phase, sheets, result, out)
        print(file=out)
    return 0


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    import logging

    from pbem.lifecycle.opening import open_app
    from pbem.serving.server import serve

    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # a line per job run otherwise
    logging.getLogger("alembic").setLevel(logging.WARNING)  # a line per migration otherwise
    listen = load_config(args.file).server
    _port_free(args.host or listen.host, listen.port if args.port is None else args.port)
    app = open_app(args.file)
    if args.host or args.port is not None:
        import dataclasses

        server = dataclasses.replace(
            app.config.server,
            host=args.host or app.config.server.host,
            port=app.config.server.port if args.port is None else args.port,
        )
        app.config = dataclasses.replace(app.config, server=server)
    serve(app)
    return 0


def _port_free(host: str, port: int) -> None:
    """InputError naming the port, and how to choose another, if something
    listens on it already."""
    import errno
    import socket

    if port == 0:
        return
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise InputError(
                f"port {port} on {host} is in use (another pbem serve, or another mail "
                f"server?). Stop it, or choose another port: pbem serve --port {port + 1} "
                f"(make run PORT={port + 1}; or listen: {{port: {port + 1}}} in games.yaml)"
            ) from None
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    """A mail as a player, through the running server, and its receipt."""
    import smtplib
    import time
    from email.message import EmailMessage
    from email.utils import make_msgid

    from pbem.lifecycle.opening import open_app

    app = open_app(args.config)
    with app.store.tx(write=False) as conn:
        seated = [p for p in app.store.players(conn, args.game) if p.status == "active"]
    who = args.player.lower()
    player = next((p for p in seated if who in (p.name.lower(), p.email.lower())), None)
    if player is None:
        names = ", ".join(p.name for p in seated) or "nobody yet"
        raise InputError(f"{args.game} has no player {args.player!r} (players: {names})")
    text = "\n".join(args.lines) if args.lines else sys.stdin.read()
    mail = EmailMessage()
    mail["From"] = player.email
    mail["To"] = app.reply_address(player)
    mail["Subject"] = f"{args.game}: orders"
    mail["Message-ID"] = make_msgid(domain=player.email.partition("@")[2] or "localhost")
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
    print(f"sent as {player.email} to {mail['To']}", file=sys.stderr)
    until = time.monotonic() + args.wait
    while time.monotonic() < until:
        receipt = _receipt_for(app, player.email, str(mail["Message-ID"]))
        if receipt is not None:
            print(receipt, file=out, end="")
            return 0
        time.sleep(0.2)
    print(
        f"no receipt within {args.wait:g} s; it will come to {player.email} "
        f"({app.config.server.outbound.maildir}/new/ for a Maildir)",
        file=sys.stderr,
    )
    return 1


def _receipt_for(app: Any, email_addr: str, message_id: str) -> str | None:
    """The text of the server's answer to the mail ``message_id``, once it
    is in the outbox."""
    import email
    import email.policy

    for row in reversed(app.store.outbox_rows(None, email_addr)):
        msg = email.message_from_bytes(row.message, policy=email.policy.default)
        if msg["In-Reply-To"] == message_id:
            body = msg.get_body(("plain",))
            return None if body is None else body.get_content().replace("\r\n", "\n")
    return None


def cmd_retry(args: argparse.Namespace, out: TextIO) -> int:
    from pbem.lifecycle.opening import open_app

    app = open_app(args.config)
    if not app.store.retry_mail(args.message):
        raise InputError(f"mail #{args.message} is not quarantined")
    print(
        f"mail #{args.message} is queued again; a running server takes it within a second", file=out
    )
    return 0


def cmd_seat(args: argparse.Namespace, out: TextIO) -> int:
    """The game master seats a player (the same as their JOIN): a password
    mail goes out; the last seat starts the game."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from pbem.config import EMAIL, PLAYER_NAME
    from pbem.lifecycle.opening import open_app
    from pbem.lifecycle.seats import add_player
    from pbem.lifecycle.start import start_game

    if not PLAYER_NAME.match(args.name):
        raise InputError(f"{args.name!r} cannot be a player's name")
    if not EMAIL.match(args.email):
        raise InputError(f"{args.email!r} is not an email address")
    if args.timezone:
        try:
            ZoneInfo(args.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise InputError(f"{args.timezone!r} is not a time zone") from None
    app = open_app(args.config)
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
    from pbem.lifecycle.opening import open_app

    app = open_app(args.config)
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


def cmd_master(args: argparse.Namespace, out: TextIO) -> int:
    """The game master's commands, as by mail."""
    from pbem import master
    from pbem.lifecycle.opening import open_app
    from pbem.turns.runner import TurnRunner

    app = open_app(args.config)
    want = {"extend": 1, "replace": 2, "remove": 1}.get(args.action, 0)
    if len(args.args) != want:
        what = {"extend": "DURATION", "replace": "PLAYER EMAIL", "remove": "PLAYER"}
        raise InputError(
            f"{args.action} takes "
            + (f"{plural(want, 'argument')} ({what[args.action]})" if want else "no arguments")
            + f", not {len(args.args)}"
        )
    try:
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
                text = "\n".join(master.status(app, conn, args.game))
            elif args.action == "pause":
                text = master.pause(app, conn, args.game)
            elif args.action == "resume":
                text = master.resume(app, conn, args.game)
            elif args.action == "extend":
                text = master.extend(app, conn, args.game, args.args[0])
            elif args.action == "replace":
                text = master.replace(app, conn, args.game, *args.args)
            elif args.action == "remove":
                text = master.remove(app, conn, args.game, args.args[0])
            else:
                text = master.end(app, conn, args.game)
    except master.MasterError as exc:
        raise InputError(str(exc)) from None
    print(text, file=out)
    return 0


def cmd_rank(args: argparse.Namespace, out: TextIO) -> int:
    from pbem.inbox import rank_lines
    from pbem.lifecycle.opening import open_app

    app = open_app(args.config)
    with app.store.tx(write=False) as conn:
        lines = rank_lines(app.store.ranking(conn))
    print("\n".join(lines), file=out)
    return 0


def cmd_report(args: argparse.Namespace, out: TextIO) -> int:
    from pbem.lifecycle.opening import open_app

    app = open_app(args.config)
    with app.store.tx(write=False) as conn:
        found = app.store.report(conn, args.game, args.reader, args.turn)
        turns = app.store.report_turns(conn, args.game)
    if found is None:
        kept = f"turns kept: {', '.join(map(str, turns))}" if turns else "none is kept yet"
        raise InputError(f"no such report of {args.game} ({kept})")
    if args.html:  # a page of its own: the map inlined, not a cid: part no browser shows
        from pbem.cli.demo import standalone_html

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
    from pbem.lifecycle.opening import open_app

    app = open_app(args.config)
    for row in app.store.mails(args.state):
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
