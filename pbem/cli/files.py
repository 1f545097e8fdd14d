"""The commands that work on files, no server needed: check games.yaml,
adjudicate a turn, list and draw maps, generate one, preview every game,
and the demo."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

import yaml

from adjudicator import GAMES
from adjudicator.base import Game, OrderSheet, Rng, TurnResult, turn_seed
from pbem.cli import demo
from pbem.cli.defaults import FIRST, MAPMAKER, POSITIONS
from pbem.cli.errors import InputError
from pbem.config import load_config
from pbem.config.deadline import described
from pbem.lifecycle.seats import with_seat
from pbem.lifecycle.start import first_state
from pbem.mapdraw import picture, to_png, to_svg
from pbem.store.database import is_url, shown
from pbem.store.revision import storage_problem
from pbem.words import plural, say


def cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    config = load_config(args.file)
    s = config.server
    problem = storage_problem(s.storage, s.storage_timeouts.connect)
    # the file may be fine and its storage not: OK says both are
    head = "OK" if problem is None else "the file is fine; its storage is not"
    print(f"{args.file}: {head}", file=out)
    print(f"  server {s.domain}, listening on {s.host}:{s.port}, time zone {s.timezone}", file=out)
    where = shown(s.storage) if is_url(s.storage) else s.storage
    print(f"  storage {where}" + (f": {problem}" if problem else ""), file=out)
    if s.web is not None:
        public = f"public address {s.web.url}" if s.web.url else "no public address (url)"
        one_click = " (one-click unsubscribe)" if (s.web.url or "").startswith("https://") else ""
        print(f"  web on {s.web.host}:{s.web.port}, {public}{one_click}", file=out)
    for g in config.games:
        game = GAMES[g.game]
        print(
            f"  game {g.name} ({game.title}) at {g.address(s)}: "
            + (f"position {Path(g.position).name}, " if g.position else f"map {Path(g.map).name}, ")
            + (
                f"lobbies of {g.seats} players (JOIN {g.name}), "
                if g.lobby
                else f"{plural(len(g.players), 'player')}, "
            )
            + ("ticks" if game.clock_ticks else "deadline")
            + f" {described(g.deadline, g.phase_deadlines)} {g.timezone}",
            file=out,
        )
    if not config.games:
        print("  no games yet", file=out)
    if problem:
        print(f"{args.file}: storage: {problem}", file=out)
        return 1
    return 0


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


def _position_or_case(text: str) -> tuple[str, dict[str, Any]]:
    """A position file's text, or a rule case's (tests/cases/<game>/: a
    mapping holding the ``position`` as text with its ``orders`` and
    ``seed``): the position, and the case (empty for a plain position)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return text, {}  # the game's own reader names what is wrong
    if isinstance(data, dict) and isinstance(data.get("position"), str):
        return data["position"], data
    return text, {}


def _order_sheets(game: Game, state: Any, args: argparse.Namespace) -> list[Any]:
    """The orders file read for ``state``, one sheet a player; with
    ``--strict``, any refused line stops the run with every refusal."""
    text = _read(args.orders, "orders file") if args.orders else ""
    return _sheets_of(game, state, text, args.strict)


def _sheets_of(game: Game, state: Any, text: str, strict: bool) -> list[Any]:
    texts = read_orders_file(game, state, text) if text else {}
    sheets = [game.read_orders(state, player, text) for player, text in texts.items()]
    refused = [p for s in sheets for p in s.problems]
    if strict and refused:
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
    text, case = _position_or_case(_read(args.position, "position file"))
    state = game.load_position(text)
    if case.get("orders") and not args.orders:
        sheets = _sheets_of(game, state, str(case["orders"]), args.strict)
    else:
        sheets = _order_sheets(game, state, args)
    turn, phase = game.phase(state)
    seed = args.seed if args.seed is not None else int(case.get("seed", 0))
    if args.seed is None and "seed" not in case and game.uses_chance:
        seed = turn_seed(state.seed, turn, phase)  # the seed the server would draw
    result = game.adjudicate(state, sheets, seed)
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
        print(f"\n{with_seat(game, result.state, player)}", file=out)
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
        seen = "" if e.visible_to is None else f" (seen by {', '.join(sorted(e.visible_to))})"
        print(f"  {say(game.name, 'events', e.kind, dict(e.facts))}{seen}", file=out)
    if not result.events:
        print("  none", file=out)
    view = game.view(result.state, None)
    print("\nStandings", file=out)
    for row in view.standings:
        measures = ", ".join(f"{k} {v}" for k, v in row.measures)
        print(
            f"  {with_seat(game, result.state, row.player):<20} {measures} ({row.status})", file=out
        )


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
    return demo.main(args.dir, out, args.seed)


def cmd_preview(args: argparse.Namespace, out: TextIO) -> int:
    """Start every configured game on paper and play one turn with random
    legal orders: a quick look at what the adjudicator does."""
    config = load_config(args.file)
    for g in config.games:
        game = GAMES[g.game]
        names = [p.name for p in g.players]
        names += [f"seat{i + 1}" for i in range(len(names), g.seats)]  # open seats, lobbies
        state = first_state(game, g, names, g.seed or 0)
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
