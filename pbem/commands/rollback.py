"""The game master's ROLLBACK (njudge's and DPjudge's): the last phase
resolved is taken back, by mail or with `pbem master GAME rollback`.

The game returns to the state that phase started from (the turns table
keeps each turn's starting state, so it works alike for every game). The
phase's orders stand again as they were (players may change them); its
reports are withdrawn (kept in ``rollbacks``: HISTORY and the web pages
say the phase was rolled back and played again); the orders, READY and
missed turns of what came after are taken back; the press sent since
goes with the phase played again. The deadline is set anew by the
game's rule for a phase that starts now (``EXTEND`` after it gives
another), and every player and observer is told. All of it is one
transaction: the caller's. The first phase, or a finished game, has none
to take back. There is no confirmation step: no master command has one
(END GAME neither); the mail needs the master password."""

from __future__ import annotations

from sqlalchemy import Connection

from pbem.app import App
from pbem.commands import master
from pbem.commands.context import GameContext
from pbem.commands.master import MasterError
from pbem.commands.registry import Use
from pbem.mail import lists
from pbem.turns.deadlines import next_deadline
from pbem.turns.localtime import local


def rollback(app: App, conn: Connection, name: str) -> str:
    """Take back the last resolved phase of ``name``; what was done."""
    row, cfg = master.game_of(app, conn, name)  # refuses a finished game
    if row.status not in ("running", "paused"):
        raise MasterError(f"{name} has not started: there is no phase to roll back")
    done = [t for t in app.store.turn_phases(conn, name) if t < row.turn]
    if not done:
        raise MasterError(f"{name} has played no phase yet: there is none to roll back")
    engine = app.engine(row.kind)
    later = engine.phase(engine.load_state(row.state))[1]
    turn, now = max(done), app.clock.now()
    state = app.store.roll_back(conn, name, turn, now)
    phase = engine.phase(engine.load_state(state))[1]
    deadline = next_deadline(cfg, now, None, early=not engine.clock_ticks)
    app.store.set_game(
        conn,
        name,
        turn=turn,
        state=state,
        deadline=deadline,
        turn_started_at=now,
        reminded_for=None,
    )
    title = engine.phase_title(phase)
    master.tell_players(
        app,
        conn,
        name,
        f"{phase} was rolled back by the game master",
        f"The game master has rolled back {title} of {name}: its results and report are "
        f"withdrawn, and the game is back at the start of {phase}. Your orders for {phase} "
        "stand as you sent them until you change them (send new ones before the deadline "
        f"to change them; STATUS shows the position). Orders sent for {later} no longer "
        "count.",
    )
    paused = row.status == "paused"
    for email in lists.observers(app, conn, name):
        app.queue(
            conn,
            "notice",
            email,
            f"[{name}] {phase} was rolled back by the game master",
            "notice",
            {
                "game": name,
                "text": f"The game master has rolled back {title} of {name}: its report is "
                "withdrawn, and the phase is played again. The players' orders from it stand "
                "until they change them; a new report follows when it is resolved.",
                "deadline": None if paused else local(deadline, cfg.timezone),
                "paused": paused,
            },
            auto="auto-generated",
            game=name,
        )
    return (
        f"{phase} of {name} is rolled back: the game is back at its start, its orders stand "
        f"again, its report is withdrawn; the deadline is {master._when(deadline, cfg)}"
        + (" (the game stays paused)" if paused else "")
    )


@master.action(
    "ROLLBACK",
    help="take back the last phase resolved",
    cli="`rollback`",
    doc="the last phase resolved is taken back: the game returns to its start, its orders "
    "stand again (players may change them), its reports are withdrawn, the deadline is set "
    "anew (EXTEND after it for another) and everyone is told; not the first phase, not a "
    "finished game",
)
def _rollback(ctx: GameContext, use: Use) -> str:
    return rollback(ctx.app, ctx.conn, ctx.game)
