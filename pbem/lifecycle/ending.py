"""A game that ends outside a turn (its game master's END GAME, or every
other player gone): it is marked finished, a scoreboard game is scored as
it stands, and every player, observer and the game master is mailed the
final standings (with a calendar file that cancels the deadline) and
the board as it ended, as each may see it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from pbem.app import App
from pbem.lifecycle.seats import with_seat
from pbem.mail.calendar import FILENAME, MIME, game_over
from pbem.pictures import rendered
from pbem.reports import readers
from pbem.words import plural

ENDED_BY_MASTER = "ended by the game master"


def finish(app: App, conn: Connection, name: str, why: str) -> None:
    """The game ends outside a turn: everyone is told, with the standings."""
    row = app.store.game(conn, name)
    cfg = app.game_config(name)
    assert row is not None and cfg is not None
    engine = app.engine(row.kind)
    state = engine.load_state(row.state)
    phase = engine.phase(state)[1]
    was = row.deadline if row.status == "running" and not engine.clock_ticks else None
    now: datetime = app.clock.now()
    ended = engine.end_now(state) if engine.outcome(state) is None else None
    if ended is not None:  # a game that scores: the scores as they stand
        state = ended
        app.store.set_game_state(conn, name, engine.dump_state(state))
    outcome, seated = engine.outcome(state), app.store.players(conn, name)
    if outcome is not None and engine.scoreboard:
        app.store.add_scores(
            conn, name, [(p.email, p.name, outcome.scores.get(p.name, 0)) for p in seated], now
        )
    app.store.set_game(conn, name, status="finished", finished_at=now, deadline=None)
    # the deadline that no longer stands, cancelled in the readers' calendars
    files = [(game_over(app, conn, name, phase, row.turn, was), MIME, FILENAME)] if was else []
    lines = final_words(engine, state, name, why, by_master=why == ENDED_BY_MASTER)
    lines.append("")
    lines.append(
        f"The game stays readable for {plural(cfg.keep.days, 'day')}: HISTORY {name} [phase] mails "
        "back any report."
    )
    if files:
        lines.append(f"{FILENAME}, attached, cancels its deadline in your calendar.")
    lines.append("map-final.png, attached, is the board as the game ended.")
    pictures: dict[bytes, tuple[str, bytes]] = {}
    everyone = {r.email.lower(): r for r in reversed(readers(app, conn, cfg, seated))}
    for reader in everyone.values():  # each address once, as a player if it plays
        # the board as this reader may see it (a game with fog shows each their own)
        _, png = rendered(row.kind, engine.view(state, reader.viewer), (), pictures)
        app.queue(
            conn,
            "report",
            reader.email,
            f"[{name}] game over",
            "alert",
            {"subject": f"{name} is over", "text": "\n".join(lines), "game": name},
            auto="auto-generated",
            game=name,
            attachments=[*files, (png, "image/png", "map-final.png")],
        )


def final_words(engine: Any, state: Any, name: str, why: str, by_master: bool) -> list[str]:
    """What a game ended outside a turn says: who won, or, ended by its
    game master, that nobody did, with the scores of the game's rules (or
    its standings, for a game without scores)."""
    outcome = engine.outcome(state)
    view = engine.view(state, None)
    if by_master:
        lines = [
            f"{name} ({engine.title}) was ended by its game master before the game "
            "reached an end of its own: nobody wins it."
        ]
    else:
        lines = [f"{name} ({engine.title}) is over: {why}."]
        if outcome is not None and outcome.winners:
            winners = [with_seat(engine, state, w) for w in outcome.winners]
            label = "Winner" if len(winners) == 1 else "Winners"
            lines.append(f"{label}: {', '.join(winners)}.")
    lines.append("")
    if outcome is not None and outcome.scores:
        lines.append(f"Scores, by the rules of {engine.title}, as the position stood:")
        for player, score in sorted(outcome.scores.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {with_seat(engine, state, player):<24} {score:>4}")
        lines.append("")
    lines.append("Final standings:")
    for s in view.standings:
        measures = ", ".join(f"{k} {v}" for k, v in s.measures)
        lines.append(
            f"  {with_seat(engine, state, s.player):<24} {measures}"
            + ("" if s.status == "active" else f" ({s.status})")
        )
    return lines
