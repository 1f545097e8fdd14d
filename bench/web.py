"""Web pages benchmark: prints its figures; run by `make bench`.

Starts `pbem serve` (a real SQLite file, its web server on, one Office Wars
game) in its own process, its pages read once (the web process started,
its templates compiled), and measures, each on a fresh server:

- mail alone: bench/ingest.py's load (N order mails over C SMTP
  connections), mails per second accepted (250 after the commit) and fully
  processed (the receipt in the outbox);
- each page (a game's, ``/games/alpha``; the list, ``/``) under R
  concurrent readers (aiohttp clients, keep-alive, in a process of their
  own) reading as fast as they can, without mail: pages per second, p50/p95;
- each page read by the R readers at 500 pages a second together (each at
  its steady pace) while the same mail load flows: the pages served a
  second and their p50/p95, and the mail rates beside those of the mail
  alone just before and just after (the machine is shared: a baseline
  taken once would drift); ``--rounds`` such rounds, and the median
  of each figure over them; ``--flat``: the same with the readers flat out.

Targets (issue 21): at least 500 pages per second for each page with mail
flowing, and the mail rates with readers at least 0.8 of those without.
The readers, the mail client and the server share the machine's two
cores (a server's readers would be elsewhere): every figure is a floor,
and the CPU each side used is printed beside it, to tell what the pages
cost the server from what reading them costs the load generator.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ingest  # noqa: E402  (bench/ingest.py: its server, mails and load, not a copy)

ROOT = Path(__file__).resolve().parent.parent
WEB_YAML = (
    "  web: {{listen: {{host: 127.0.0.1, port: {port}}}, rate: 0}}\n"  # no limit: one address reads
)
PAGE_TARGET = 500
MAIL_RATIO_TARGET = 0.8


@dataclass
class Server:
    proc: subprocess.Popen
    root: Path
    smtp: int
    web: int

    @property
    def db(self) -> Path:
        return self.root / "var" / "pbem.sqlite"

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.web}{path}"


def start(root: Path) -> Server:
    """`pbem serve` on bench/ingest.py's games.yaml, with a web server."""
    smtp, web = ingest.free_port(), ingest.free_port()
    players = "\n".join(f"      - {{name: {p}, email: {p}@example.org}}" for p in ingest.PLAYERS)
    yaml = ingest.GAMES.format(port=smtp, players=players, dkim=WEB_YAML.format(port=web))
    (root / "games.yaml").write_text(yaml)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pbem.cli", "serve", "games.yaml", "--quiet"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    ingest.wait_listening(proc, smtp)
    ingest.wait_listening(proc, web)
    server = Server(proc, root, smtp, web)
    for path in ("/", "/games/alpha"):  # the web process started, its templates compiled
        with urllib.request.urlopen(server.url(path), timeout=60) as page:
            page.read()
    return server


def web_pid(server: Server) -> int:
    """The server's web pages' process: its child named pbem-web."""
    pid = server.proc.pid
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        if Path(f"/proc/{child}/comm").read_text().strip() == "pbem-web":
            return int(child)
    raise SystemExit("the server has no pbem-web process")


# -- the readers: a process of their own --------------------------------------------------


async def _read(url: str, readers: int, rate: float, stop) -> dict:  # noqa: ANN001
    """R readers reading ``url`` until ``stop``: flat out (``rate`` 0), or
    together ``rate`` pages a second, each at its own steady pace (a page
    late is not made up for)."""
    import aiohttp

    times: list[tuple[float, float]] = []
    failures: dict[str, int] = {}
    connector = aiohttp.TCPConnector(limit=readers)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def reader(i: int) -> None:
            gap = readers / rate if rate else 0.0
            due = time.perf_counter() + i / rate if rate else 0.0
            while not stop.is_set():
                if gap:
                    await asyncio.sleep(max(0.0, due - time.perf_counter()))
                    due = max(due + gap, time.perf_counter())
                t0 = time.perf_counter()
                try:
                    async with session.get(url) as response:
                        await response.read()
                        status = response.status
                except aiohttp.ClientError as error:
                    status = type(error).__name__
                if status == 200:  # when it came (the same clock in every process), how long
                    times.append((time.monotonic(), time.perf_counter() - t0))
                else:
                    failures[str(status)] = failures.get(str(status), 0) + 1
                    await asyncio.sleep(0.01)

        async def stopper() -> None:
            while not stop.is_set():
                await asyncio.sleep(0.02)

        tasks = [asyncio.create_task(reader(i)) for i in range(readers)]
        await stopper()
        await asyncio.gather(*tasks)
    return {"times": times, "failures": failures}


def _readers_main(url: str, readers: int, rate: float, stop, started, out) -> None:  # noqa: ANN001
    started.set()
    out.put(asyncio.run(_read(url, readers, rate, stop)))


class Readers:
    """R readers reading ``url`` over and over, in a process of their own,
    until stopped: what they read, and how long each page took."""

    def __init__(self, url: str, readers: int, rate: float = 0) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.stop_event, self.started, self.out = ctx.Event(), ctx.Event(), ctx.Queue()
        self.proc = ctx.Process(
            target=_readers_main,
            args=(url, readers, rate, self.stop_event, self.started, self.out),
            daemon=True,
        )
        self.proc.start()
        self.started.wait(30)

    def stop(self) -> dict:
        self.stop_event.set()
        result = self.out.get(timeout=60)
        self.proc.join(30)
        return result


def pages_summary(name: str, result: dict, seconds: float) -> tuple[float, str]:
    """Pages a second read in the window measured, and a line that says so."""
    times = sorted(took for at, took in result["times"] if result["start"] <= at <= result["end"])
    rate = len(times) / seconds
    if not times:
        return 0.0, f"{name}: no page read (failures: {result['failures']})"
    p50, p95 = statistics.median(times) * 1000, times[int(len(times) * 0.95) - 1] * 1000
    failed = f"; failures {result['failures']}" if result["failures"] else ""
    return rate, (
        f"{name}: {len(times)} pages in {seconds:.2f} s = {rate:,.0f} pages/s "
        f"(target >= {PAGE_TARGET}); p50 {p50:.1f} ms, p95 {p95:.1f} ms{failed}"
    )


# -- the mail ------------------------------------------------------------------------------


def mail(server: Server, n: int, conns: int) -> tuple[float, float]:
    """Send N order mails, wait for every receipt: (accepted/s, processed/s)."""
    mails = ingest.order_mails(ingest.passwords(server.db), n, f"web{time.monotonic_ns()}")
    before = ingest.receipts(server.db)
    started = time.perf_counter()
    seconds, _ = asyncio.run(ingest.load(server.smtp, mails, conns))
    while ingest.receipts(server.db) < before + n:
        if time.perf_counter() - started > 600:
            raise SystemExit("processing did not finish in 10 minutes")
        time.sleep(0.05)
    done = time.perf_counter() - started
    return n / seconds, n / done


def run(args: argparse.Namespace, path: str | None, with_mail: bool, rate: float = 0) -> dict:
    """One fresh server: mail alone (``path`` None), readers of ``path``
    alone, or both at once; readers flat out, or at ``rate`` together."""
    with tempfile.TemporaryDirectory() as tmp:
        server = start(Path(tmp))
        result: dict = {}
        try:
            readers = Readers(server.url(path), args.readers, rate) if path else None
            time.sleep(0.5 if readers else 0)  # connections open, the page kept
            web = web_pid(server)
            t0, cpu = time.monotonic(), ingest.cpu_seconds(server.proc.pid)
            paging = ingest.cpu_seconds(web)
            reading = ingest.cpu_seconds(readers.proc.pid) if readers else 0.0
            if with_mail:
                result["accepted"], result["processed"] = mail(server, args.n, args.c)
            else:
                time.sleep(args.seconds)
            t1, cpu = time.monotonic(), ingest.cpu_seconds(server.proc.pid) - cpu
            paging = ingest.cpu_seconds(web) - paging
            if readers:
                result["reading"] = ingest.cpu_seconds(readers.proc.pid) - reading
                result["pages"] = {**readers.stop(), "start": t0, "end": t1}
                result["seconds"] = t1 - t0
                result["cpu"] = cpu  # the SMTP process's
                result["web_cpu"] = paging  # the web pages' process's
        finally:
            ingest.stop(server.proc)
        return result


def mail_alone(args: argparse.Namespace) -> dict:
    alone = run(args, None, True)
    print(
        f"  mail alone: {alone['accepted']:,.0f} mails/s accepted, "
        f"{alone['processed']:,.0f} mails/s fully processed"
    )
    return alone


def with_mail(args: argparse.Namespace, name: str, path: str, rate: float) -> bool:
    """Readers of ``path`` while the mail flows, ``args.rounds`` times,
    each between two runs of the mail alone (the machine is shared and a
    rate alone swings by a quarter from one run to the next: each round's
    ratio is to the mean of the runs just before and after it); the median
    of each figure over the rounds, and whether they meet the targets."""
    alone = [mail_alone(args)]
    rounds = []
    how = f"readers at {rate:,.0f} pages/s together" if rate else "readers flat out"
    for i in range(args.rounds):
        both = run(args, path, True, rate)
        alone.append(mail_alone(args))
        before, after = alone[-2:]
        both["ratios"] = {
            key: both[key] / ((before[key] + after[key]) / 2) for key in ("accepted", "processed")
        }
        both["rate"], line = pages_summary(
            f"{name} with mail flowing, {how}, round {i + 1}", both["pages"], both["seconds"]
        )
        print(line)
        print(
            f"  CPU meanwhile: the server's SMTP process {both['cpu']:.1f} s, its web process "
            f"{both['web_cpu']:.1f} s, the readers' {both['reading']:.1f} s, "
            f"in {both['seconds']:.1f} s on 2 cores"
        )
        print(
            f"  mail meanwhile: {both['accepted']:,.0f} mails/s accepted "
            f"({both['ratios']['accepted']:.2f} of alone), {both['processed']:,.0f} mails/s "
            f"fully processed ({both['ratios']['processed']:.2f} of alone)"
        )
        rounds.append(both)
    pages = statistics.median(r["rate"] for r in rounds)
    ratios = {
        key: statistics.median(r["ratios"][key] for r in rounds)
        for key in ("accepted", "processed")
    }
    print(
        f"{name} with mail flowing, {how}, median of {len(rounds)} rounds: {pages:,.0f} pages/s "
        f"(target >= {PAGE_TARGET}); mail {ratios['accepted']:.2f} of alone accepted, "
        f"{ratios['processed']:.2f} fully processed (target >= {MAIL_RATIO_TARGET})"
    )
    return pages >= PAGE_TARGET * 0.98 and min(ratios.values()) >= MAIL_RATIO_TARGET


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=3000, help="order mails a round")
    parser.add_argument("-c", type=int, default=8, help="concurrent SMTP connections")
    parser.add_argument("-r", "--readers", type=int, default=50, help="concurrent readers")
    parser.add_argument("-s", "--seconds", type=float, default=5, help="readers alone: seconds")
    parser.add_argument("--rounds", type=int, default=3, help="rounds with mail flowing, each")
    parser.add_argument("--flat", action="store_true", help="also readers flat out with mail")
    args = parser.parse_args()
    print(f"bench/web.py: {args.readers} readers, {args.n} order mails over {args.c} connections")
    met = True
    for name, path in (("game page /games/alpha", "/games/alpha"), ("list of games /", "/")):
        quiet = run(args, path, False)
        rate, line = pages_summary(
            f"{name}, readers flat out, no mail", quiet["pages"], quiet["seconds"]
        )
        print(line)
        if rate:
            per_page = 1000 / (rate * quiet["seconds"])  # ms of CPU a page, from seconds
            print(
                f"  CPU of the server's web process: {quiet['web_cpu'] * per_page:.2f} ms a page; "
                f"the readers' own: {quiet['reading'] * per_page:.2f} ms a page"
            )
        # the target: 500 pages a second served while the mail keeps 0.8 of its rate
        met &= with_mail(args, name, path, PAGE_TARGET)
        if args.flat:  # and what readers as fast as they can take from the mail
            with_mail(args, name, path, 0)
    print("targets met" if met else "targets NOT met")


if __name__ == "__main__":
    main()
