"""The log of `pbem serve`: every line, from each of its processes (the
SMTP process, the mail worker, the web pages), starts with the time in UTC
to the millisecond and the level, then the logger's name:

    2026-11-28T05:30:01.123Z INFO pbem.inbox: mail #12 <a@b> relay 4Xy applied

The worker and the web pages are started fresh (multiprocessing's spawn):
they set their log up again from PBEM_LOG, which the SMTP process sets
(``configure``) and they inherit. aiosmtpd logs every SMTP command of every
client at INFO (logger ``mail.log``): shown only with ``--verbose``.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

ENV = "PBEM_LOG"  # quiet, normal or verbose: for the processes started later
FORMAT = "%(asctime)s.%(msecs)03dZ %(levelname)s %(name)s: %(message)s"
DATEFMT = "%Y-%m-%dT%H:%M:%S"


class Formatter(logging.Formatter):
    converter = time.gmtime


def stamp() -> str:
    """Now, as the log's lines begin (for the few lines printed, not logged)."""
    now = time.time()
    return time.strftime(DATEFMT, time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def say(*lines: str) -> None:
    """Lines `pbem serve` prints (not logs), each beginning as the log's
    lines do, written in one go: whoever reads the first finds them all."""
    now = stamp()
    sys.stdout.write("".join(f"{now} INFO pbem: {line}\n" for line in lines))
    sys.stdout.flush()


def configure(quiet: bool = False, verbose: bool = False) -> None:
    """The log of this process, and (through PBEM_LOG) of the processes it
    starts: warnings only (``quiet``), everything with each SMTP command
    (``verbose``), or info by default."""
    mode = "quiet" if quiet else "verbose" if verbose else "normal"
    os.environ[ENV] = mode
    _set_up(mode)


def configure_child() -> None:
    """A process `pbem serve` started: the log its parent has."""
    _set_up(os.environ.get(ENV, "normal"))


def _set_up(mode: str) -> None:
    level = {"quiet": logging.WARNING, "verbose": logging.DEBUG}.get(mode, logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(Formatter(FORMAT, DATEFMT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # a line per job run otherwise
    logging.getLogger("alembic").setLevel(logging.WARNING)  # a line per migration otherwise
    # aiosmtpd: a line per SMTP command of every client (1.5 MB for 700 mails)
    logging.getLogger("mail.log").setLevel(logging.DEBUG if mode == "verbose" else logging.WARNING)


def announced(app: Any) -> list[str]:
    """What `pbem serve` says of its games when it starts: where to mail
    orders, or JOIN; a game that is over is not announced."""
    with app.store.tx(write=False) as conn:
        over = {g.name for g in app.config.games if _over(app.store.game(conn, g.name))}
    return [
        f"  {g.name}: mail JOIN {g.name} to {app.config.server.address}"
        if g.lobby
        else f"  {g.name}: send orders to {app.game_address(g.name)}"
        for g in app.config.games
        if g.name not in over
    ]


def _over(row: Any) -> bool:
    return row is not None and row.status == "finished"
