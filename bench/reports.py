"""Turn report benchmark: prints its figures; run by `make bench`.

A 12-player Office Wars game on the shipped `twelve` map (72 systems), one
observer and the game master: 14 readers. Random legal orders are played
for some turns first, so the board is busy. Then, per turn:

1. rendering alone: for every reader the text and HTML parts, and the map
   picture as SVG and PNG (each distinct picture drawn once, as the server
   does; here every reader sees the same board, so one);
2. the whole turn as the server runs it: adjudication, every report
   rendered, kept and composed as a mail (multipart, PNG inline, SVG and
   .ics attached), all committed to a real SQLite file in one transaction.

Reports per second are readers' reports (text + HTML + picture) per second.
Times are wall-clock (the turn includes SQLite's commit with
synchronous=FULL), the best of the runs.

Target (issue: deadlines and reports): a whole turn's reports for 12
players in under 1 s.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.base import Rng  # noqa: E402
from pbem.lifecycle.opening import open_app  # noqa: E402
from pbem.mapdraw import picture, to_png, to_svg  # noqa: E402
from pbem.reports import context, readers, render  # noqa: E402
from pbem.turns.clock import FakeClock  # noqa: E402
from pbem.turns.runner import TurnRunner  # noqa: E402

PLAYERS = [f"p{i:02d}" for i in range(12)]
GAMES = """\
server:
  domain: bench.example
  listen: {host: 127.0.0.1, port: 0}
  storage: pbem.sqlite
  outbound: {from: judge@bench.example, maildir: mail}
games:
  - name: bench
    game: officewars
    map: twelve
    remind: none
    observers: [watcher@bench.example]
    master: {email: gm@bench.example, password: bench}
    seed: 12
    players:
""" + "".join(f"      - {{name: {p}, email: {p}@bench.example}}\n" for p in PLAYERS)


def orders(app, rng: Rng) -> None:
    """Random legal orders for every unit, each player's in a stored mail,
    as the mail worker would leave them."""
    with app.store.tx(write=False) as conn:
        game = app.store.game(conn, "bench")
    engine = app.engine(game.kind)
    state = engine.load_state(game.state)
    texts = {}
    for player in PLAYERS:
        options = engine.view(state, player).options
        if options:
            texts[player] = "\n".join(rng.choice(o) for _, o in sorted(options.items()))
    now = app.clock.now()
    stored = app.store.store_mails(
        [
            {
                "received_at": now,
                "mail_from": f"{p}@bench.example",
                "rcpt_to": ["bench@bench.example"],
                "raw": f"{game.turn}:{p}".encode(),
                "sha256": hashlib.sha256(f"{game.turn}:{p}".encode()).hexdigest(),
                "message_id": None,
            }
            for p in texts
        ]
    )
    app.store.move_spooled()
    with app.store.tx() as conn:
        for (player, text), (seq, _) in zip(texts.items(), stored, strict=True):
            app.store.add_submission(conn, "bench", game.turn, player, seq, text, now)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=8, help="turns measured")
    parser.add_argument("--warm", type=int, default=6, help="turns played first")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-reports-"))
    (folder / "games.yaml").write_text(GAMES)
    clock = FakeClock()
    app = open_app(folder / "games.yaml", clock=clock)
    runner, rng = TurnRunner(app), Rng(5)
    for _ in range(args.warm):
        orders(app, rng)
        clock.advance(hours=12)
        runner.run("bench", _turn(app), "deadline")

    render_times, turn_times, readers_count, sizes = [], [], 0, []
    for _ in range(args.turns):
        orders(app, rng)
        clock.advance(hours=12)
        # the whole turn, as the server runs it
        started = time.perf_counter()
        done = runner.run("bench", _turn(app), "deadline")
        turn_times.append(time.perf_counter() - started)
        assert done is not None
        # rendering alone, on the turn just played
        render_times.append(_render_once(app, done.turn))
        rows = [r for r in app.store.outbox_rows("report")][-14:]
        readers_count = len(rows)
        sizes = [len(r.message) for r in rows]

    best_render, best_turn = min(render_times), min(turn_times)
    print("Turn reports, 12-player Office Wars game (twelve map, 72 systems)")
    print(f"  readers per turn:            {readers_count} (12 players, 1 observer, the master)")
    print(
        f"  rendering alone:             {best_render * 1000:.0f} ms a turn, "
        f"{readers_count / best_render:.0f} reports/s"
    )
    print(
        f"  whole turn (adjudicate, render, keep, compose, commit): "
        f"{best_turn * 1000:.0f} ms, {readers_count / best_turn:.0f} reports/s"
    )
    print(f"  mail size:                   {min(sizes) // 1024}-{max(sizes) // 1024} KB each")
    verdict = "met" if best_turn < 1.0 else "NOT met"
    print(f"  target: a whole turn's reports for 12 players < 1 s: {verdict}")
    app.store.close()


def _turn(app) -> int:
    with app.store.tx(write=False) as conn:
        return app.store.game(conn, "bench").turn


def _render_once(app, turn: int) -> float:
    """Render every reader's report of the last turn again (no storage)."""
    import json

    from adjudicator.base import turn_seed

    with app.store.tx(write=False) as conn:
        game = app.store.game(conn, "bench")
        seated = app.store.players(conn, "bench")
        states = dict(app.store.turn_states(conn, "bench"))
        subs = app.store.submissions_for(conn, "bench", turn, None)
        cfg = app.game_config("bench")
        who = readers(app, conn, cfg, seated)
        record = json.loads(app.store.turn_result(conn, "bench", turn))
    engine = app.engine(game.kind)
    old = engine.load_state(states[turn])
    sheets = [engine.read_orders(old, p, t, s) for p, (s, t, _) in sorted(subs.items())]
    result = engine.adjudicate(old, sheets, record["seed"])
    info = {
        "turn": turn,
        "phase": record["phase"],
        "why": "deadline",
        "late": False,
        "deadline_was": None,
        "resolved_at": app.clock.now(),
        "seed": record["seed"],
        "next_seed": turn_seed(game.seed, turn + 1),
        "orders": subs,
        "missed": [],
        "players": seated,
    }
    started = time.perf_counter()
    drawn = {}
    for reader in who:
        data = context(app, engine, cfg, game, reader, sheets, result, info, [])
        render(game.kind, data)
        pic = picture(game.kind, engine.view(result.state, reader.viewer), result.results)
        key = repr(pic)
        if key not in drawn:
            drawn[key] = (to_svg(pic), to_png(pic))
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
