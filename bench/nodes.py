"""Several nodes benchmark: prints its figures; run by `make bench`.

Real `pbem serve` processes (`pbem serve games.yaml --port N`: the same
games.yaml and storage, each node its own SMTP port), and a real PostgreSQL
cluster from tests/pgserver.py with fsync on (``durable=True``: a commit
survives a power cut, as SQLite's synchronous=FULL does). In one run:

1. Mail: N order mails from one game's six players over C concurrent SMTP
   connections (bench/ingest.py's load generator; the connections spread
   round-robin over the nodes' ports), to one node on SQLite, then one,
   two and three nodes on PostgreSQL, each on a fresh database; three
   rounds of the four, medians (the machine is shared). For each:
   mails per second accepted (each 250 answered after its commit, with
   p50/p95 from the end of DATA to the 250) and fully processed (applied,
   the receipt committed to the outbox), and the CPU the nodes and the
   database server used a mail.
2. The deadline storm: 1,000 Office Wars games (six players each, the
   shipped six-player map) whose deadlines are the same minute, three
   nodes awake; the time from the deadline until the last turn is resolved
   with its reports in the outbox, and (a figure beside it) until every
   report is delivered.

The games are set up once, outside the timing, by the server's own set-up
(open_app, as `pbem serve` does on start) with two shortcuts that change
nothing the storm reads: the players' passwords are hashed once per name
(scrypt takes 55 ms; six thousand of them would take five minutes), and
the start mails (a map picture each: minutes for six thousand) are not
composed; the password mails are marked sent, so the storm starts with an
empty outbox. Then every game's deadline is set to the same whole minute,
far enough ahead for the three nodes to start and build their deadline
jobs from storage.

Targets (issue 20): one PostgreSQL node processes at least half as many
mails per second as one node on SQLite; the storm of 1,000 games is done
in under 60 s with three nodes. Every process (load generator, nodes,
PostgreSQL) shares this machine's cores, so the figures are what one
machine does, not what several machines would.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import ingest  # noqa: E402
from tests.pgserver import PostgresServer, binaries  # noqa: E402

STORM_GAMES = 1000
STORM_PLAYERS = 6
STORM_TARGET = 60.0
# how far ahead of the moment the games are ready the storm's deadline is
# set, at least: three nodes start (each reads a games.yaml of a thousand
# games in two processes) and build their deadline jobs before it; on this
# shared machine, busy with other work, that once took more than 75 s
STORM_LEAD = 180.0


# -- nodes -----------------------------------------------------------------------------


def cpu_tree(pid: int) -> float:
    """CPU seconds of a process and all its children, living and reaped
    (a node: the SMTP process and its worker; PostgreSQL: the postmaster
    and its backends)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    own = sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return own + sum(cpu_tree(child) for child in children(pid))


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def postmaster(pg: PostgresServer) -> int:
    return int((pg.data / "postmaster.pid").read_text().split()[0])


@contextmanager
def nodes(folder: Path, ports: Sequence[int]) -> Iterator[list[subprocess.Popen]]:
    """``pbem serve games.yaml --port N --quiet`` for each port, all started
    at once and listening; stopped (SIGTERM) at the end. Each node logs to
    node-<port>.log in ``folder``; what went wrong there is shown."""
    logs = [folder / f"node-{port}.log" for port in ports]
    procs = []
    for port, log in zip(ports, logs, strict=True):
        with log.open("w") as out:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "pbem.cli", "serve", "games.yaml"]
                    + ["--port", str(port), "--quiet"],
                    cwd=folder,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=dict(os.environ, PYTHONPATH=str(ROOT)),
                )
            )
    try:
        for proc, port in zip(procs, ports, strict=True):
            listening(proc, port)
        settle(procs)
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in logs:
            said = log.read_text().splitlines()
            problems = [line for line in said if "Traceback" in line or "ERROR" in line]
            if problems or not any(line.startswith("pbem: stopped") for line in said):
                print(f"  {log.name}, its last lines:\n    " + "\n    ".join(said[-8:]))


def listening(proc: subprocess.Popen, port: int, limit: float = 300) -> None:
    """Wait until a node listens (ingest.wait_listening gives a node 15 s:
    one reading a games.yaml of a thousand games takes longer)."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if proc.poll() is not None:
            raise SystemExit(f"bench: a node exited ({proc.returncode}) before it listened")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"bench: no node listened on port {port} in {limit:.0f} s")


def settle(procs: Sequence[subprocess.Popen], limit: float = 60) -> None:
    """Wait until the nodes are idle: listening is not the end of a start
    (each worker process is still importing and opening the store), and a
    start's CPU must not count as the load's."""
    started = time.monotonic()
    before = sum(cpu_tree(p.pid) for p in procs)
    while time.monotonic() - started < limit:
        time.sleep(0.5)
        now = sum(cpu_tree(p.pid) for p in procs)
        if now - before < 0.05 * len(procs):
            return
        before = now


def open_store(storage: str, folder: Path):  # noqa: ANN201 (pbem.store.Store)
    from pbem.store import Store

    return Store.open(storage if "://" in storage else folder / storage)


def wait_for(what: str, done: Callable[[], bool], limit: float = 600) -> None:
    started = time.monotonic()
    while not done():
        if time.monotonic() - started > limit:
            raise SystemExit(f"bench: {what} did not happen in {limit:.0f} s")
        time.sleep(0.1)


# -- mail to one, two, three nodes -----------------------------------------------------


@dataclass
class MailRun:
    name: str
    accepted: float  # mails/s
    p95: float  # ms
    processed: float  # mails/s
    pbem_cpu: float  # ms a mail, every node's processes
    pg_cpu: float  # ms a mail, the database server


def mail_yaml(folder: Path, storage: str, port: int) -> None:
    """bench/ingest.py's games.yaml (one game, six players), on ``storage``."""
    players = "\n".join(f"      - {{name: {p}, email: {p}@example.org}}" for p in ingest.PLAYERS)
    text = ingest.GAMES.format(port=port, players=players, dkim="")
    text = text.replace("storage: var/pbem.sqlite", f"storage: {storage}")
    text = text.replace("    map: six\n", "    map: six\n    seed: 20\n")  # the same game each run
    (folder / "games.yaml").write_text(text)


def passwords(store) -> dict[str, str]:  # noqa: ANN001
    """Each player's password, from the password mails in the outbox."""
    out = {}
    for row in store.outbox_rows(kind="password"):
        body = message_from_bytes(row.message, policy=policy.default).get_body(("plain",))
        out[row.to_addr.split("@")[0]] = re.search(r"PASSWORD (\S+)", body.get_content())[1]
    return out


async def spread(
    ports: Sequence[int], mails: list[tuple[str, bytes]], conns: int
) -> tuple[float, list[float]]:
    """ingest.load over several nodes: connection i goes to node i mod k."""
    latencies: list[float] = []
    shares = [mails[i::conns] for i in range(conns)]
    t0 = time.perf_counter()
    await asyncio.gather(
        *(ingest.client(ports[i % len(ports)], s, latencies) for i, s in enumerate(shares))
    )
    return time.perf_counter() - t0, latencies


def run_mail(
    name: str, storage: str, k: int, n: int, conns: int, pg: PostgresServer | None
) -> MailRun:
    """N order mails to k nodes on ``storage``: accepted and processed."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ports = [ingest.free_port() for _ in range(k)]
        mail_yaml(folder, storage, ports[0])
        with nodes(folder, ports) as procs:
            store = open_store(storage, folder)
            try:
                wait_for("the password mails", lambda: len(store.outbox_rows("password")) == 6)
                mails = ingest.order_mails(passwords(store), n, f"nodes{k}")
                cpu = sum(cpu_tree(p.pid) for p in procs)
                pg_cpu = cpu_tree(postmaster(pg)) if pg else 0.0
                started = time.perf_counter()
                seconds, latencies = asyncio.run(spread(ports, mails, conns))
                print("  " + ingest.summary(f"{name}, {conns} connections", n, seconds, latencies))
                wait_for(f"{name}: processing", lambda: applied(store) >= n)
                done = time.perf_counter() - started
                receipts = len(store.outbox_rows("receipt"))
                if receipts != n:
                    raise SystemExit(f"bench: {name}: {receipts} receipts for {n} mails")
                used = (sum(cpu_tree(p.pid) for p in procs) - cpu) / n * 1000
                pg_used = (cpu_tree(postmaster(pg)) - pg_cpu) / n * 1000 if pg else 0.0
            finally:
                store.close()
    print(
        f"  {name}: {n} mails fully processed (receipt in the outbox) in {done:.2f} s = "
        f"{n / done:,.0f} mails/s; CPU a mail: pbem {used:.2f} ms"
        + (f", PostgreSQL {pg_used:.2f} ms" if pg else "")
    )
    return MailRun(name, n / seconds, ingest.p95(latencies), n / done, used, pg_used)


def applied(store) -> int:  # noqa: ANN001
    states = store.mail_states()
    stuck = {s: c for s, c in states.items() if s not in ("new", "applied")}
    if stuck:
        raise SystemExit(f"bench: mail not applied: {stuck}; see `pbem inbox`")
    return states.get("applied", 0)


def mail_rounds(pg: PostgresServer, n: int, conns: int, rounds: int) -> list[list[MailRun]]:
    """Each round: SQLite one node, PostgreSQL one, two, three."""
    out = []
    for r in range(rounds):
        print(f"-- mail, round {r + 1} of {rounds}: {n} order mails over {conns} connections")
        runs = [run_mail("SQLite, 1 node", "var/pbem.sqlite", 1, n, conns, None)]
        for k in (1, 2, 3):
            name = f"PostgreSQL, {k} node{'s' if k > 1 else ''}"
            runs.append(run_mail(name, pg.fresh(), k, n, conns, pg))
        out.append(runs)
    return out


def mail_summary(rounds: list[list[MailRun]]) -> None:
    med = statistics.median
    print(f"-- mail: medians over {len(rounds)} round{'s' if len(rounds) > 1 else ''}")
    for i, first in enumerate(rounds[0]):
        runs = [r[i] for r in rounds]
        print(
            f"{first.name}: {med(r.accepted for r in runs):,.0f} mails/s accepted (p95 to 250 "
            f"{med(r.p95 for r in runs):.1f} ms), {med(r.processed for r in runs):,.0f} mails/s "
            f"fully processed; CPU a mail: pbem {med(r.pbem_cpu for r in runs):.2f} ms"
            + (f", PostgreSQL {med(r.pg_cpu for r in runs):.2f} ms" if i else "")
        )
    ratios = [r[1].processed / r[0].processed for r in rounds]
    print(
        f"PostgreSQL 1 node / SQLite 1 node, mails fully processed: {med(ratios):.2f} "
        "(target >= 0.5; rounds: " + ", ".join(f"{x:.2f}" for x in ratios) + ")"
    )
    for k in (2, 3):
        scale = [r[k].processed / r[1].processed for r in rounds]
        print(f"PostgreSQL {k} nodes / 1 node, mails fully processed: {med(scale):.2f}")


# -- the deadline storm ----------------------------------------------------------------


STORM_SERVER = """\
server:
  domain: judge.example
  listen: {{host: 127.0.0.1, port: {port}}}
  storage: {storage}
  outbound: {{from: judge@judge.example, maildir: var/mail}}
games:
"""
STORM_GAME = """\
  - name: g{i:04d}
    game: officewars
    map: six
    deadline: "0 {hour} * * *"
    seed: {i}
    players:
{players}
"""


def far_hour() -> int:
    """A daily deadline hour twelve hours away: the storm's deadline is set
    by hand, and the turn after it falls at this hour, never during the
    storm (an hourly cron would resolve a second turn if the storm ran
    past the hour)."""
    return (datetime.now(UTC).hour + 12) % 24


def storm_yaml(folder: Path, storage: str, port: int, games: int) -> None:
    text = STORM_SERVER.format(port=port, storage=storage)
    for i in range(games):
        players = "\n".join(
            f"      - {{name: p{j}, email: p{j}.g{i:04d}@example.org}}"
            for j in range(STORM_PLAYERS)
        )
        text += STORM_GAME.format(i=i, players=players, hour=far_hour())
    (folder / "games.yaml").write_text(text)


def set_up_games(folder: Path) -> None:
    """The server's own set-up of every game of games.yaml (see the
    module's docstring for its two shortcuts), its mails marked sent."""
    import functools

    from pbem.lifecycle import start
    from pbem.lifecycle.opening import open_app
    from pbem.mail import auth

    names = iter(range(10**9))
    saved = auth.new_password, auth.hash_password, start.start_mail
    auth.new_password = lambda: f"storm{next(names) % STORM_PLAYERS}"
    auth.hash_password = functools.cache(auth.hash_password)
    start.start_mail = lambda *args, **kwargs: None
    try:
        app = open_app(folder / "games.yaml")
    finally:
        auth.new_password, auth.hash_password, start.start_mail = saved
    try:
        sent = [row.id for row in app.store.outbox_rows() if row.status == "pending"]
        app.store.mark_sent_many(sent, app.clock.now())
    finally:
        app.store.close()


def set_deadlines(store, at: datetime) -> None:  # noqa: ANN001
    with store.tx() as conn:
        for g in store.all_games(conn):
            store.set_game(conn, g.name, deadline=at)


def storm_counts(store, first_turn: int) -> tuple[int, int, int]:  # noqa: ANN001
    """(games resolved, reports queued, reports not yet sent)."""
    from sqlalchemy import func, select

    from pbem.store.schema import games, outbox

    with store.tx(write=False) as conn:
        resolved = conn.execute(
            select(func.count()).select_from(games).where(games.c.turn > first_turn)
        ).scalar_one()
        reports = conn.execute(
            select(func.count()).select_from(outbox).where(outbox.c.kind == "report")
        ).scalar_one()
        unsent = conn.execute(
            select(func.count())
            .select_from(outbox)
            .where(outbox.c.kind == "report", outbox.c.status == "pending")
        ).scalar_one()
    return resolved, reports, unsent


def first_turn(store) -> int:  # noqa: ANN001
    with store.tx(write=False) as conn:
        turns = {g.turn for g in store.all_games(conn)}
    if len(turns) != 1:
        raise SystemExit(f"bench: the games are at different turns: {sorted(turns)}")
    return turns.pop()


def storm_deadline(lead: float) -> datetime:
    """The first whole minute at least ``lead`` seconds ahead."""
    at = datetime.now(UTC) + timedelta(seconds=lead)
    return at.replace(second=0, microsecond=0) + timedelta(minutes=1)


def watch_storm(store, deadline: datetime, turn: int, games: int) -> tuple[float, float]:  # noqa: ANN001
    """Poll from the deadline on: (seconds until every game's turn is
    resolved with its reports queued, seconds until every report is sent)."""
    resolved_at = sent_at = None
    shown = 0.0
    while sent_at is None:
        now = time.time()
        elapsed = now - deadline.timestamp()
        resolved, reports, unsent = storm_counts(store, turn)
        if resolved_at is None and resolved == games:
            resolved_at = elapsed
        if resolved_at is not None and unsent == 0:
            sent_at = elapsed
        if elapsed - shown >= 10:
            shown = elapsed
            print(
                f"  +{elapsed:.0f} s: {resolved} games resolved, {reports} reports queued, "
                f"{reports - unsent} sent"
            )
        if elapsed > 1800:
            raise SystemExit(f"bench: the storm was not over in 30 minutes ({resolved} resolved)")
        time.sleep(0.5)  # the watching costs the database little
    return resolved_at, sent_at


def run_storm(pg: PostgresServer, k: int, games: int, lead: float = STORM_LEAD) -> float:
    """``games`` Office Wars games with one deadline, ``k`` nodes awake."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        storage, ports = pg.fresh(), [ingest.free_port() for _ in range(k)]
        storm_yaml(folder, storage, ports[0], games)
        t0 = time.perf_counter()
        set_up_games(folder)
        store = open_store(storage, folder)
        try:
            turn = first_turn(store)
            deadline = storm_deadline(lead)
            set_deadlines(store, deadline)
            print(
                f"  {games} games set up in {time.perf_counter() - t0:.0f} s (not timed); "
                f"every deadline at {deadline:%H:%M:%S} UTC; starting {k} nodes"
            )
            with nodes(folder, ports) as procs:
                late = time.time() - deadline.timestamp()
                if late > -5:
                    raise SystemExit(
                        f"bench: the nodes were not up before the deadline ({late:+.0f} s)"
                    )
                print(f"  the {k} nodes listen {-late:.0f} s before the deadline")
                time.sleep(max(0.0, deadline.timestamp() - time.time() - 1))
                cpu = [cpu_tree(p.pid) for p in procs]
                pg_cpu = cpu_tree(postmaster(pg))
                resolved, sent = watch_storm(store, deadline, turn, games)
                used = [cpu_tree(p.pid) - c for p, c in zip(procs, cpu, strict=True)]
                pg_used = cpu_tree(postmaster(pg)) - pg_cpu
            storm_check(store, turn, games)
        finally:
            store.close()
    print(
        f"deadline storm, {games} Office Wars games, {k} nodes on PostgreSQL: every turn "
        f"resolved, its reports in the outbox, {resolved:.1f} s after the deadline "
        f"(target < {STORM_TARGET:.0f}); every report sent by {sent:.1f} s"
    )
    print(
        "  CPU from the deadline until the last report was sent: "
        + ", ".join(f"node {i + 1} {c:.1f} s" for i, c in enumerate(used))
        + f", PostgreSQL {pg_used:.1f} s"
    )
    return resolved


def storm_check(store, turn: int, games: int) -> None:  # noqa: ANN001
    """Each turn resolved once, each reader's report queued once."""
    with store.tx(write=False) as conn:
        turns = {g.name: g.turn for g in store.all_games(conn)}
    wrong = {name: t for name, t in turns.items() if t != turn + 1}
    if wrong:
        raise SystemExit(f"bench: games not at turn {turn + 1}: {dict(list(wrong.items())[:5])}")
    _, reports, _ = storm_counts(store, turn)
    if reports != games * STORM_PLAYERS:
        raise SystemExit(f"bench: {reports} reports queued, {games * STORM_PLAYERS} expected")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=3000, help="mails to send in each mail run")
    parser.add_argument("-c", type=int, default=12, help="concurrent SMTP connections")
    parser.add_argument("-r", type=int, default=3, help="rounds of the mail runs")
    parser.add_argument("--games", type=int, default=STORM_GAMES, help="games in the storm")
    parser.add_argument("--nodes", type=int, default=3, help="nodes awake in the storm")
    parser.add_argument(
        "--lead", type=float, default=STORM_LEAD, help="seconds from set-up to deadline, at least"
    )
    parser.add_argument("--no-mail", action="store_true", help="the storm only")
    parser.add_argument("--no-storm", action="store_true", help="the mail runs only")
    args = parser.parse_args()
    bin_dir = binaries()
    if bin_dir is None:
        raise SystemExit("bench: PostgreSQL is not installed (make test installs it)")
    pg = PostgresServer(bin_dir, durable=True).start()
    try:
        pg.template()
        print(
            f"PostgreSQL {pg.sql('SHOW server_version').strip()}, fsync on, {socket.gethostname()}"
        )
        if not args.no_mail:
            mail_summary(mail_rounds(pg, args.n, args.c, args.r))
        if not args.no_storm:
            print(f"-- the deadline storm: {args.games} games, {args.nodes} nodes")
            run_storm(pg, args.nodes, args.games, args.lead)
    finally:
        pg.stop()


if __name__ == "__main__":
    main()
