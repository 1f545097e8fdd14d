"""Deadlines and turns: storage is the truth about when a turn is due.

Every running game keeps the deadline of the turn being played in its row.
:class:`TurnRunner` resolves due turns; the scheduler (pbem/turns/schedule.py)
only wakes it. A turn is resolved inside one write transaction
(``BEGIN IMMEDIATE`` on SQLite) that moves the game from turn N to N+1 only
if it is still at N: two triggers racing (a deadline and READY, two server
processes) make one turn, and a crash before the commit leaves turn N to be
resolved again with the same stored seed, to the identical result. The
reports of the turn are written to the outbox in that same transaction.

Which orders count: those of mails received after the turn started and
before its deadline (or before the moment an early or forced turn runs).
A mail received after that is answered "too late for turn N"; it is never
moved to the next turn on its own. Games that run on a clock
(``clock_ticks``: Strategic Initiative) are the exception: nothing is too
late there, a tick runs every order read by the time it runs, and a mail
read after it counts for the next tick.

Deadlines missed while the server was down: each overdue game resolves one
turn after the server starts (not one per missed deadline), once the
settling time (server ``settle_after_outage``) since it takes mail again
has passed, so that mail its MTA held meanwhile counts; its report says
that it ran late, and the next deadline is the first cron time at least
half a normal turn away, so players have time to answer.

Missed turns: a player who owes orders and sent none is charged a missed
turn only when the deadline passed. A turn the master runs early
(ADJUDICATE) or that everyone's READY starts before the deadline charges
no one: they still had time; their units take the default orders.
"""

from __future__ import annotations

import json
import logging
import random
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from adjudicator.base import OrderMode, OrderSheet, TurnResult, turn_seed
from pbem.app import App
from pbem.config import GameConfig
from pbem.reports import sealed_hash, write_reports
from pbem.store import GameRow, PlayerRow
from pbem.store.database import SHARED
from pbem.turns.deadlines import LATE, next_deadline
from pbem.turns.localtime import local

log = logging.getLogger("pbem.turns")


@dataclass(frozen=True)
class NextTurn:
    """A resolved turn's next state: its number, as stored, and the
    game's outcome (None while it goes on)."""

    number: int
    state: str
    outcome: Any
    kind: str = "movement"  # the kind of phase it is (Game.phase_kind)


@dataclass(frozen=True)
class TurnDone:
    game: str
    turn: int
    phase: str
    why: str
    finished: bool
    # the next phase's turn when nobody has anything to order in it: it
    # runs at once (``why`` "idle"), not at its deadline
    idle_next: int | None = None


class TurnRunner:
    def __init__(self, app: App) -> None:
        self.app = app
        # a due turn left for now (on a shared store: another node is
        # resolving it, or mail received before its deadline is still being
        # read): the caller looks again shortly
        self.deferred = False
        # since when this server takes mail: its start, or the moment its
        # storage came back (taking_mail); a deadline that passed before
        # then waits the settling time after it
        self.since = app.clock.now()
        self._told: datetime | None = None  # the settling the log has said

    def taking_mail(self, again: bool = True) -> None:
        """Storage works again after a failure (``again``: the worker had
        failed until now): mail the MTA held meanwhile comes in now, and a
        turn whose deadline passed waits for it."""
        if again:
            self.since = self.app.clock.now()

    def settling(self, g: GameRow, now: datetime) -> bool:
        """Whether a due turn waits for mail an MTA held: its deadline passed
        while this server took no mail (it was down, or its storage was),
        and the settling time since it takes mail again has not passed."""
        settle = self.app.config.server.settle_after_outage
        return (
            bool(settle)
            and g.deadline is not None
            and g.deadline < self.since
            and now < self.since + settle
        )

    def settled_at(self, g: GameRow) -> datetime | None:
        """When a due turn that waits for mail an MTA held (``settling``)
        resolves: at the end of the settling time. None when it does not
        wait: it resolves as soon as it is looked at."""
        if not self.settling(g, self.app.clock.now()):
            return None
        return self.since + self.app.config.server.settle_after_outage

    # -- what is due -----------------------------------------------------------------

    def run_due(self) -> list[TurnDone]:
        """Send due reminders, then resolve every turn whose deadline has
        passed, in which nobody has anything to order (:func:`idle`), or, in
        games with early turns, whose players are all READY."""
        app, now = self.app, self.app.clock.now()
        with app.store.tx(write=False) as conn:
            games = [g for g in app.store.all_games(conn) if g.status == "running"]
            ready = {
                g.name: self._all_ready(conn, g)
                for g in games
                if (cfg := app.game_config(g.name)) is not None and cfg.early
            }
            idling = {g.name for g in games if self._idle(conn, g)}
        self._remind(now, games)
        due = []
        for g in games:
            if g.deadline is not None and g.deadline <= now:
                due.append((g, "deadline"))
            elif g.name in idling:
                due.append((g, "idle"))  # nobody has anything to order: at once
            elif ready.get(g.name):
                due.append((g, "ready"))
        waiting = [g.name for g, _ in due if self.settling(g, now)]
        if waiting:
            due = [(g, why) for g, why in due if g.name not in waiting]
            if self._told != self.since:
                self._told = self.since
                log.info(
                    "%s: the deadline passed while no mail came in; the turn waits until "
                    "%s UTC for mail held meanwhile (server settle_after_outage)",
                    ", ".join(sorted(waiting)),
                    f"{self.since + app.config.server.settle_after_outage:%Y-%m-%d %H:%M:%S}",
                )
        if app.store.shared:
            # several nodes wake for the same deadlines: each takes the games
            # in its own order, and steps over those another node resolved
            # (looked up again each second) instead of opening each again
            random.shuffle(due)
        done = []
        still: set[tuple[str, int]] | None = None
        looked = 0.0
        for g, why in due:
            if app.store.shared and why == "deadline":
                if time.monotonic() - looked > 1.0:
                    still, looked = app.store.turns_due(now), time.monotonic()
                if still is not None and (g.name, g.turn) not in still:
                    continue  # resolved meanwhile (or moved): nothing to do
            result = self.run(g.name, g.turn, why)
            while result is not None:
                done.append(result)
                if result.idle_next is None:
                    break
                # nobody has anything to order in the phase that opened: at once
                result = self.run(g.name, result.idle_next, "idle")
        return done

    def _idle(self, conn: Connection, g: GameRow) -> bool:
        """Whether the game's phase runs at once (:func:`idle`). Games whose
        every phase is movement are not looked at: the state is not read."""
        engine = self.app.engine(g.kind)
        if engine.clock_ticks or len(engine.phase_kinds) < 2:
            return False
        return idle(engine, engine.load_state(g.state), self.app.store.players(conn, g.name))

    def _all_ready(self, conn: Connection, g: GameRow) -> bool:
        engine = self.app.engine(g.kind)
        active = owing(engine, engine.load_state(g.state), self.app.store.players(conn, g.name))
        return bool(active) and set(active) <= self.app.store.ready_players(conn, g.name, g.turn)

    def _remind(self, now: datetime, games: list[GameRow]) -> None:
        app = self.app
        for g in games:
            cfg = app.game_config(g.name)
            if cfg is None or cfg.remind is None or g.deadline is None:
                continue
            if not (g.deadline - cfg.remind <= now < g.deadline) or g.reminded_for == g.deadline:
                continue
            if g.turn_started_at is not None and g.deadline - cfg.remind <= g.turn_started_at:
                continue  # turns shorter than the reminder's lead (hourly games): none
            with app.store.tx() as conn:
                row = app.store.game(conn, g.name)
                if row is None or row.reminded_for == row.deadline or row.turn != g.turn:
                    continue  # another process reminded, or the turn moved on
                engine = app.engine(row.kind)
                state = engine.load_state(row.state)
                phase = engine.phase(state)[1]
                sent = app.store.submissions_for(conn, g.name, g.turn, None)
                ready = app.store.ready_players(conn, g.name, g.turn)
                for p in owing(engine, state, app.store.players(conn, g.name)).values():
                    if p.name in sent or p.name in ready:
                        continue
                    app.queue(
                        conn,
                        "reminder",
                        p.email,
                        f"[{g.name}] no orders yet for {phase}",
                        "reminder",
                        {
                            "game": g.name,
                            "phase": phase,
                            "deadline": local(row.deadline, p.timezone or cfg.timezone),
                            "address": app.game_address(g.name),
                        },
                        reply_to=app.reply_address(p),
                        auto="auto-generated",
                        game=g.name,
                    )
                app.store.set_game(conn, g.name, reminded_for=row.deadline)

    # -- one turn ----------------------------------------------------------------------

    def run(self, name: str, turn: int, why: str) -> TurnDone | None:
        """Resolve turn ``turn`` of ``name`` if the game is still at it;
        None if another trigger got there first (or the game is not running).
        ``why``: deadline, ready, master."""
        app, store = self.app, self.app.store
        now = app.clock.now()
        # on a shared store, turns of different games run at once on
        # several nodes (each holds its game's row), never beside mail
        with store.tx(lock=SHARED) as conn:
            if not store.lock_game(conn, name):
                self.deferred = True  # another node is on it (or died on it)
                return None
            row = store.game(conn, name)
            cfg = app.game_config(name)
            if row is None or cfg is None or row.status != "running" or row.turn != turn:
                return None
            engine = app.engine(row.kind)
            state = engine.load_state(row.state)
            number, phase = engine.phase(state)
            cutoff = row.deadline if why == "deadline" and row.deadline else now
            if engine.clock_ticks:
                cutoff = now  # a tick runs every order read by now
            if store.shared and store.mail_waiting(conn, cutoff):
                # mail received in time is still with some node's worker
                self.deferred = True
                return None
            ready = store.ready_players(conn, name, turn)
            seated = store.players(conn, name)
            active = list(owing(engine, state, seated).values())  # who owes orders
            present = [p for p in seated if p.status == "active"]  # whose mail counts
            subs, sheets = self._orders(conn, engine, state, name, turn, present, cutoff)
            seed = turn_seed(row.seed, number, phase)
            result = engine.adjudicate(state, sheets, seed)
            new_number, new_phase = engine.phase(result.state)
            after = NextTurn(
                new_number,
                engine.dump_state(result.state),
                engine.outcome(result.state),
                engine.phase_kind(result.state),
            )
            missed = missed_turns(row, why, now, active, subs, ready)
            store.add_missed(conn, name, missed)
            late = why == "deadline" and row.deadline is not None and now - row.deadline > LATE
            if not self._advance(conn, cfg, row, after, now, late, why):
                conn.rollback()  # pragma: no cover - the write lock makes this impossible
                return None
            info = {
                "turn": number,
                "phase": phase,
                "why": why,
                "late": late,
                "deadline_was": row.deadline,
                "resolved_at": now,
                "seed": seed,
                "next_seed": turn_seed(row.seed, new_number, new_phase),
                "orders": subs,
                "missed": missed,
                "players": seated,
            }
            self._record(conn, engine, row, result, after, info)
            fresh = store.game(conn, name)
            assert fresh is not None
            write_reports(app, conn, cfg, fresh, state, sheets, result, info)
            app.fault("during_turn")  # resolved, reported, not committed
        log.info("%s: %s resolved (%s)", name, phase, why)
        at_once = after.number if idle(engine, result.state, seated) else None
        return TurnDone(name, turn, phase, why, after.outcome is not None, at_once)

    def _orders(
        self,
        conn: Connection,
        engine: Any,
        state: Any,
        name: str,
        turn: int,
        present: list[PlayerRow],
        cutoff: datetime,
    ) -> tuple[dict[str, Any], list[OrderSheet]]:
        """The orders that count for the turn (received before ``cutoff``,
        from players still in): {player: (seq, text, received)} and the
        order sheets the engine reads from them."""
        store = self.app.store
        if engine.order_mode is OrderMode.RECEIVED:
            # every mail's orders, each with its own received number
            queue = store.submission_queue(conn, name, turn, None, cutoff)
            subs = {p: (q[0][0], "\n".join(t for _, t, _ in q), q[-1][2]) for p, q in queue.items()}
            sheets = [
                combined(engine, state, p.name, queue[p.name]) for p in present if p.name in queue
            ]
            return subs, sheets
        subs = store.submissions_for(conn, name, turn, cutoff)
        sheets = [
            engine.read_orders(state, p.name, subs[p.name][1], subs[p.name][0])
            for p in present
            if p.name in subs
        ]
        return subs, sheets

    def _advance(
        self,
        conn: Connection,
        cfg: GameConfig,
        row: GameRow,
        after: NextTurn,
        now: datetime,
        late: bool,
        why: str,
    ) -> bool:
        """Move the game from its turn to the next (with the next deadline),
        or finish it; False if it is no longer at that turn."""
        outcome = after.outcome
        deadline = None
        if outcome is None:  # by the kind of the phase that opens
            deadline = next_deadline(
                cfg, now, row.deadline if late else None, why != "deadline", after.kind
            )
        return self.app.store.advance_game(
            conn,
            row.name,
            row.turn,
            turn=after.number,
            state=after.state,
            deadline=deadline,
            turn_started_at=now,
            status="running" if outcome is None else "finished",
            finished_at=None if outcome is None else now,
        )

    def _record(
        self,
        conn: Connection,
        engine: Any,
        row: GameRow,
        result: TurnResult,
        after: NextTurn,
        info: dict[str, Any],
    ) -> None:
        """Keep the turn's record (what ran, with which seed, whose orders
        by their hashes); start the next turn, or score a finished game."""
        store, name, now = self.app.store, row.name, info["resolved_at"]
        subs = info["orders"]
        record = {
            "phase": info["phase"],
            "why": info["why"],
            "deadline": row.deadline.isoformat() if row.deadline else None,
            "late": info["late"],
            "seed": info["seed"],
            "orders": {
                p: {"seq": s[0], "sha256": sealed_hash(s[1]), "received": s[2].isoformat()}
                for p, s in sorted(subs.items())
            },
            "missed": info["missed"],
            "results": [r.to_dict() for r in result.results],
            "events": [e.to_dict() for e in result.events],
        }
        lag = None
        if info["why"] == "deadline" and row.deadline is not None:
            lag = max(0.0, (now - row.deadline).total_seconds())
        store.finish_turn(conn, name, row.turn, json.dumps(record, sort_keys=True), now, lag)
        outcome = after.outcome
        if outcome is None:
            store.start_turn(conn, name, after.number, after.state, now)
        elif engine.scoreboard:
            store.add_scores(
                conn,
                name,
                [(p.email, p.name, outcome.scores.get(p.name, 0)) for p in info["players"]],
                now,
            )


def missed_turns(
    row: GameRow,
    why: str,
    now: datetime,
    active: list[PlayerRow],
    subs: dict[str, Any],
    ready: Any,
) -> list[str]:
    """Who is charged a missed turn: those who owe orders and sent none.
    It is charged only to those whose time ran out: a turn the master (or
    READY) ran before the deadline charges no one who still had time (their
    units take the default orders all the same)."""
    out_of_time = why == "deadline" or row.deadline is None or now >= row.deadline
    return [p.name for p in active if out_of_time and p.name not in subs and p.name not in ready]


def combined(
    engine: Any, state: Any, player: str, queue: list[tuple[int, str, datetime]]
) -> OrderSheet:
    """One sheet of a player's orders from several mails, each order keeping
    its own mail's number (games that run orders as received)."""
    read = [engine.read_orders(state, player, text, seq) for seq, text, _ in queue]
    return OrderSheet(
        player,
        tuple(o for sheet in read for o in sheet.orders),
        tuple(p for sheet in read for p in sheet.problems),
        tuple(w for sheet in read for w in sheet.warnings),
    )


def idle(engine: Any, state: Any, seated: list[PlayerRow]) -> bool:
    """Whether nobody has anything to order in a phase that is not of the
    game's main kind (a retreat phase whose dislodged units are neutral or
    have nowhere to go): it runs at once, not at its deadline. A movement
    phase always waits for its deadline, and a game on a clock owes none."""
    return (
        not engine.clock_ticks
        and engine.outcome(state) is None
        and engine.phase_kind(state) != engine.phase_kinds[0]
        and not owing(engine, state, seated)
    )


def owing(engine: Any, state: Any, seated: list[PlayerRow]) -> dict[str, PlayerRow]:
    """The seated players who owe orders in this phase (the game's
    :meth:`adjudicator.base.Game.to_order`): only they are reminded, waited for
    with READY, and charged with a missed phase."""
    owe = engine.to_order(state)
    return {n: p for n, p in playing(engine, state, seated).items() if n in owe}


def orders_in(app: App, conn: Connection, engine: Any, row: GameRow) -> set[str]:
    """The players with orders standing for the turn being played."""
    if engine.order_mode is OrderMode.RECEIVED:
        return set(app.store.submission_queue(conn, row.name, row.turn))
    return set(app.store.submissions_for(conn, row.name, row.turn, None))


def playing(engine: Any, state: Any, seated: list[PlayerRow]) -> dict[str, PlayerRow]:
    """The seated players still in the game (not removed, not out): the
    ones who owe orders."""
    live = {s.player for s in engine.view(state, None).standings if s.status == "active"}
    return {p.name: p for p in seated if p.status == "active" and p.name in live}
