"""The game master's STATUS (by mail, and `pbem master GAME status`): the
phase and deadline, the observer password, each seat with its orders,
READY and missed turns, and who still owes orders in the phase."""

from __future__ import annotations

from sqlalchemy import Connection

from pbem.app import App
from pbem.commands.master import MasterError
from pbem.commands.observing import observer_password
from pbem.lifecycle.seats import with_seat
from pbem.turns.localtime import local
from pbem.turns.runner import orders_in, owing


def status(app: App, conn: Connection, name: str) -> list[str]:
    """The game as the master sees it: deadline, who has sent orders, READY,
    missed turns, and who still owes orders in the phase being played."""
    row = app.store.game(conn, name)
    if row is None:
        raise MasterError(f"there is no game called {name!r}")
    engine = app.engine(row.kind)
    sent = orders_in(app, conn, engine, row)
    ready = app.store.ready_players(conn, name, row.turn)
    state = engine.load_state(row.state) if row.state else None
    phase = engine.phase(state)[1] if state is not None else "not started"
    cfg = app.game_config(name)
    deadline = "none"
    if row.deadline is not None:
        deadline = f"{row.deadline:%Y-%m-%d %H:%M} UTC"
        if cfg is not None:
            deadline += f" ({local(row.deadline, cfg.timezone)})"
    out = [f"{name}: {phase}, {row.status}, deadline {deadline}"]
    watching = None if cfg is None else observer_password(app.secret, cfg)
    if cfg is not None and watching is not None:
        made = "" if cfg.observer_password else " (made by the server: games.yaml sets none)"
        out.append(f"  observer password: {watching}{made}")
    seated = app.store.players(conn, name)
    if state is not None and row.status in ("running", "paused") and not engine.clock_ticks:
        owe = [
            with_seat(engine, state, n)
            for n in owing(engine, state, seated)
            if n not in sent and n not in ready
        ]
        out.append(
            f"  still to send orders: {', '.join(owe)}"
            if owe
            else "  every player who owes orders this phase has sent them (or READY)"
        )
    for p in seated:
        flags = []
        if p.name in sent:
            flags.append("orders in")
        if p.name in ready:
            flags.append("READY")
        label = with_seat(engine, state, p.name) if state is not None else p.name
        out.append(
            f"  {label:<20} {p.email:<28} {p.status:<8} missed {p.missed}"
            + (f"  ({', '.join(flags)})" if flags else "")
        )
    return out
