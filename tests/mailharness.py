"""A real pbem mail server on 127.0.0.1 for tests: real aiosmtpd, a real
SQLite file (or, given a ``storage`` URL, a real PostgreSQL database), a
Maildir for outbound mail, and a clock the test moves."""

from __future__ import annotations

import atexit
import email
import email.policy
import random
import re
import shutil
import smtplib
import socket
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Integer, func, select, text

from pbem.cli.local import LocalServer, wait_for
from pbem.lifecycle.opening import open_app
from pbem.store.schema import metadata, settings
from pbem.turns.clock import FakeClock

__all__ = [
    "ALPHA",
    "ANN",
    "BACKENDS",
    "BOB",
    "CID",
    "EVENINGS",
    "GAMES_YAML",
    "GM",
    "PRIVATE_GAME",
    "SERVER_YAML",
    "SEVEN",
    "Harness",
    "empire_yaml",
    "free_port",
    "on_both_backends",
    "players_yaml",
    "run_command",
    "served",
    "server_yaml",
    "wait_for",
]

# Where a test server keeps everything: an SQLite file, or PostgreSQL. A
# test marked on_both_backends runs on each, its server given the
# ``storage`` fixture (tests/conftest.py): None, or a database URL.
BACKENDS = ("sqlite", "postgresql")
on_both_backends = pytest.mark.parametrize("storage", BACKENDS, indirect=True)

# a test server's own part of games.yaml (UTC, any free port, storage and
# mail under the test's folder): a test adds its games after it
SERVER_YAML = """\
server:
  domain: judge.example
  listen: {host: 127.0.0.1, port: 0}
  timezone: UTC
  storage: var/pbem.sqlite
  outbound: {from: judge@judge.example, maildir: var/mail}
games:
"""

# A private game (games.yaml's visibility) beside alpha and beta: its pages,
# calendar and feeds answer only its players (and observers who give the
# password), as its mail does.
PRIVATE_GAME = """\
  - name: gamma
    game: officewars
    map: six
    visibility: private
    observer_password: fans-only
    players:
      - {name: eve, email: eve@example.org}
      - {name: ann, email: ann@example.org}
"""

GAMES_YAML = """\
server:
  domain: judge.example
  listen: {host: 127.0.0.1, port: 0}
  timezone: Europe/Oslo
  storage: var/pbem.sqlite
  outbound: {from: judge@judge.example, maildir: var/mail}
  limits: {max_message_size: 1000000, max_recipients: 5, max_connections: 20, idle_timeout: 5}
games:
  - name: alpha
    game: officewars
    map: six
    deadline: "50 0,12 * * *"
    timezone: Europe/Oslo
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org, timezone: America/New_York}
      - {name: cid, email: cid@example.org}
    master: {email: gm@example.org, password: gm-secret}
  - name: beta
    game: officewars
    map: six
    players:
      - {name: ann, email: ann@example.org}
      - {name: dee, email: dee@example.org}
"""

# alpha's address, three of its players and its game master (password
# gm-secret) in GAMES_YAML
ALPHA = "alpha@judge.example"
ANN, BOB, CID, GM = "ann@example.org", "bob@example.org", "cid@example.org", "gm@example.org"


def server_yaml(web: bool = False) -> str:
    """A test server's part of games.yaml for games played by many mails:
    the server's own time zone (UTC), and room for a hundred replies a day
    to each address; ``web``: its pages too, on any free port. A test adds
    its games after it."""
    pages = "  web: {listen: {host: 127.0.0.1, port: 0}}\n" if web else ""
    return f"""\
server:
  domain: judge.example
  listen: {{host: 127.0.0.1, port: 0}}
  storage: var/pbem.sqlite
  outbound: {{from: judge@judge.example, maildir: var/mail}}
{pages}  limits: {{replies_per_day: 100}}
games:
"""


# an Empire game's seven players (each at example.org) and its deadline of
# every evening at 20:00 in Oslo, as settings for empire_yaml
SEVEN = ("ann", "bob", "cid", "dee", "eve", "fay", "gus")
EVENINGS = ('deadline: "0 20 * * *"', "timezone: Europe/Oslo")


def players_yaml(players: Iterable[str]) -> str:
    """games.yaml's lines of a game's players: each a name, at example.org,
    and after a comma anything more of theirs (``"ann, power: eng"``)."""
    lines = []
    for player in players:
        name, _, more = (part.strip() for part in player.partition(","))
        extra = f", {more}" if more else ""
        lines.append(f"      - {{name: {name}, email: {name}@example.org{extra}}}\n")
    return "".join(lines)


def empire_yaml(*settings: str, players: Iterable[str] = SEVEN, web: bool = False) -> str:
    """The games.yaml of server_yaml with one Empire game on the standard
    map, dip: ``settings`` are its other lines (``"seed: 3"``), in order,
    before its ``players`` (see players_yaml)."""
    lines = "".join(f"    {line}\n" for line in settings)
    game = f"  - name: dip\n    game: empire\n    map: standard\n{lines}    players:\n"
    return server_yaml(web) + game + players_yaml(players)


def served(games_yaml: str = GAMES_YAML, fresh_pages: bool = False) -> Callable[..., Any]:
    """A fixture, named by what it is assigned to (``h = served(YAML)``): a
    running server on ``games_yaml``, always stopped. ``fresh_pages``: its
    web pages look at the store on every request, not once a while."""

    @pytest.fixture
    def harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Harness]:
        if fresh_pages:
            import pbem.web.cache

            monkeypatch.setattr(pbem.web.cache, "VERSION_FRESH", 0.0)
        running = Harness(tmp_path, games_yaml)
        try:
            yield running
        finally:
            running.close()

    return harness


# Below the kernel's ephemeral ports (32768 and up on Linux): a port picked
# here is never handed out by a bind to port 0 or to an outgoing connection,
# so it stays free for the server started on it, and for its restart, while
# other tests (in this process or the other test process) open ports.
SHIPPED = Path(__file__).resolve().parent.parent / "games.yaml"


def shipped_yaml(port: int | str = 0) -> str:
    """The shipped games.yaml for a copy elsewhere: on ``port``, its
    scenarios' positions named where they are (they are relative to it)."""
    text = SHIPPED.read_text().replace("port: 2525", f"port: {port}")
    text = text.replace("port: 8080", "port: 0")  # the web pages: any free port
    return text.replace("position: scenarios/", f"position: {SHIPPED.parent}/scenarios/")


PORTS = range(20000, 32000)


def free_port() -> int:
    """A port nothing on 127.0.0.1 listens on now, for a server to start on."""
    pick = random.SystemRandom()
    while True:
        port = pick.choice(PORTS)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use: another one
            return port


# Setting up the games of a games.yaml (scrypt for every password, the map
# drawn for every start mail) takes a second or two; many tests start from
# the same games.yaml at the same moment. Each such start is set up once,
# by the real open_app, and every later test gets its own copy of the
# storage it made (random passwords and secrets included, which no test
# depends on). A restart on storage that exists is never touched.
_SET_UP: dict[tuple[str, datetime | None], Path | None] = {}


def _set_up_once(games_yaml: str, start: datetime | None) -> Path | None:
    """A folder holding the storage open_app made for this games.yaml at
    this moment; None when the storage lies outside it (nothing to copy)."""
    key = (games_yaml, start)
    if key not in _SET_UP:
        folder = Path(tempfile.mkdtemp(prefix="pbem-set-up-"))
        atexit.register(shutil.rmtree, folder, True)
        (folder / "games.yaml").write_text(games_yaml)
        try:
            app = open_app(folder / "games.yaml", clock=FakeClock(start))
        except Exception:
            _SET_UP[key] = None  # the test itself meets the error
        else:
            app.store.close()
            storage = app.config.server.storage
            inside = isinstance(storage, Path) and storage.resolve().is_relative_to(
                folder.resolve()
            )
            _SET_UP[key] = folder if inside else None
    return _SET_UP[key]


def _copy_set_up(root: Path, games_yaml: str, start: datetime | None) -> None:
    folder = _set_up_once(games_yaml, start)
    if folder is None or any(
        (root / entry.name).exists() for entry in folder.iterdir() if entry.is_dir()
    ):
        return  # not copyable, or storage already there (a restart)
    for entry in folder.iterdir():
        if entry.is_dir():
            shutil.copytree(entry, root / entry.name)


# The same for a PostgreSQL database: the rows open_app wrote into the
# SQLite file of that set-up are written into the test's database (new and
# empty), so one set-up serves both backends. A database with rows is never
# touched (a restart).
def with_storage(games_yaml: str, storage: str) -> str:
    """``games_yaml`` with the server's storage set to ``storage``."""
    changed, found = re.subn(
        r"^(\s+storage:).*$", lambda m: f"{m[1]} {storage}", games_yaml, count=1, flags=re.M
    )
    assert found, "this games.yaml names no storage to replace"
    return changed


def _pg_set_up(url: str, games_yaml: str, start: datetime | None) -> None:
    """Give the database at ``url`` the games of ``games_yaml`` (naming an
    SQLite file, as the tests' games.yaml do) as open_app sets them up at
    ``start``. Does nothing if it has rows, or if that set-up cannot be
    copied: the server's own start then sets the games up."""
    from pbem.store import Store

    folder = _set_up_once(games_yaml, start)
    files = [] if folder is None else sorted(folder.glob("**/*.sqlite"))
    made = [f for f in files if not f.stem.endswith("-spool")]
    store = Store(url)
    try:
        with store.tx(write=False) as conn:
            if conn.execute(select(func.count()).select_from(settings)).scalar():
                return  # set up already: a restart
        if len(made) == 1:
            _put_rows(store, _rows_of(made[0]))
    finally:
        store.close()


def _rows_of(path: Path) -> dict[str, list[dict]]:
    """Every table's rows in an SQLite store, its times in UTC."""
    from pbem.store import Store
    from pbem.store.rows import aware

    def plain(value: Any) -> Any:
        return aware(value) if isinstance(value, datetime) else value

    source = Store.at(path)
    try:
        with source.tx(write=False) as conn:
            return {
                t.name: [
                    {k: plain(v) for k, v in r._asdict().items()} for r in conn.execute(select(t))
                ]
                for t in metadata.sorted_tables
            }
    finally:
        source.close()


def _put_rows(store: Any, rows: dict[str, list[dict]]) -> None:
    """Write rows into an empty database, its numbering after them."""
    with store.tx() as conn:
        for table in metadata.sorted_tables:
            if not rows[table.name]:
                continue
            conn.execute(table.insert(), rows[table.name])
            key = list(table.primary_key.columns)
            if len(key) == 1 and isinstance(key[0].type, Integer):
                conn.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', '{key[0].name}'), "
                        f"(SELECT max({key[0].name}) FROM {table.name}))"
                    )
                )


def run_command(*args: str) -> tuple[int, list[str]]:
    """Run `pbem ARGS` in this process: its exit status, and what the
    stores it left open warned (a command closes the stores it opens: it
    should be nothing; collected here, rather than warn in a later test)."""
    import gc
    import warnings

    from pbem.cli.main import main

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        status = main(list(args))
        gc.collect()
    return status, [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


class Harness(LocalServer):
    def __init__(
        self,
        root: Path,
        games_yaml: str = GAMES_YAML,
        start: datetime | None = None,
        storage: str | None = None,
    ) -> None:
        """``storage``: a database URL the server keeps everything in,
        instead of the SQLite file ``games_yaml`` names."""
        self.root = root
        if storage is None:
            _copy_set_up(root, games_yaml, start)
        else:
            _pg_set_up(storage, games_yaml, start)
            games_yaml = with_storage(games_yaml, storage)
        (root / "games.yaml").write_text(games_yaml)
        super().__init__(root / "games.yaml", start)
        assert self.app.store.shared == (storage is not None), "not on the storage asked for"

    # -- sending -------------------------------------------------------------

    def smtp(self) -> smtplib.SMTP:
        return smtplib.SMTP("127.0.0.1", self.port, timeout=10)

    def message(
        self, sender: str, to: str, body: str, subject: str = "orders", **headers: str
    ) -> EmailMessage:
        m = EmailMessage()
        m["From"] = sender
        m["To"] = to
        m["Subject"] = subject
        m["Message-ID"] = email.utils.make_msgid(domain="example.org")
        for k, v in headers.items():
            m[k.replace("_", "-")] = v
        m.set_content(body)
        return m

    def send(
        self, sender: str, to: str, body: str, subject: str = "orders", **headers: str
    ) -> EmailMessage:
        m = self.message(sender, to, body, subject, **headers)
        with self.smtp() as s:
            s.send_message(m)
        self.settle()
        return m

    def confirm(
        self, address: str, by: str | None = None, index: int = -1, **headers: str
    ) -> EmailMessage:
        """Reply, as a mail client does, to a mail that asked ``address`` to
        confirm a JOIN, LEAVE, WATCH or UNWATCH (the newest, or ``index``):
        to its Reply-To, from ``by`` (that address unless told)."""
        asks = self.outbox("confirm", address)
        assert asks, f"no mail to {address} asks to confirm anything"
        ask = asks[index]
        return self.send(
            by or address,
            str(ask["Reply-To"]),
            "Yes, that was me.\n",
            subject="Re: " + str(ask["Subject"]),
            In_Reply_To=str(ask["Message-ID"]),
            **headers,
        )

    def send_confirmed(
        self, sender: str, to: str, body: str, subject: str = "orders", **headers: str
    ) -> EmailMessage:
        """Send a mail and, if it asked for confirmation (JOIN, LEAVE, WATCH,
        UNWATCH), confirm it by replying from the sender's address."""
        before = len(self.outbox("confirm", sender))
        m = self.send(sender, to, body, subject, **headers)
        if len(self.outbox("confirm", sender)) > before:
            self.confirm(sender)
        return m

    def send_raw(
        self,
        raw: bytes,
        mail_from: str = "x@example.org",
        rcpt: tuple[str, ...] = ("alpha@judge.example",),
    ) -> tuple[int, bytes]:
        with self.smtp() as s:
            s.ehlo()
            code, msg = s.mail(mail_from)
            assert code == 250, msg
            for r in rcpt:
                s.rcpt(r)
            code, msg = s.data(raw)
        self.settle()
        return code, msg

    # -- waiting and reading -----------------------------------------------------

    def outbox(self, kind: str | None = None, to: str | None = None) -> list[EmailMessage]:
        return [
            email.message_from_bytes(r.message, policy=email.policy.default)
            for r in self.app.store.outbox_rows(kind, to)
        ]

    def last(self, to: str, kind: str = "receipt") -> str:
        mails = self.outbox(kind, to)
        assert mails, (
            f"no {kind} to {to}: {[(r.kind, r.to_addr) for r in self.app.store.outbox_rows()]}"
        )
        return mails[-1].get_body(("plain",)).get_content()

    def password(self, player_email: str, game: str = "alpha") -> str:
        for m in self.outbox("password", player_email):
            if f"for {game}" in m["Subject"]:
                body = m.get_body(("plain",)).get_content()
                return re.search(r"PASSWORD (\S+)", body)[1]
        raise AssertionError(f"no password mail to {player_email} for {game}")

    def play(self, who: str, text: str, game: str = "dip") -> str:
        """Mail ``text`` to ``game`` from the player ``who`` (a name at
        example.org), under their password; the reply."""
        address = f"{who}@example.org"
        body = f"PASSWORD {self.password(address, game)}\n{text}\n"
        self.send(address, f"{game}@judge.example", body)
        return self.last(address)

    def as_master(self, lines: str, game: str = "alpha") -> str:
        """Mail ``lines`` to ``game`` as its game master (GM, password
        gm-secret); the reply."""
        self.send(GM, f"{game}@judge.example", f"PASSWORD gm-secret\n{lines}\n")
        return self.last(GM)

    def empire_state(self, game: str = "dip") -> Any:
        """The state of an Empire game, as its engine reads it."""
        return self.app.engine("empire").load_state(self.game(game).state)

    def powers(self, game: str = "dip") -> dict[str, str]:
        """Each player's power in an Empire game, by name."""
        return {p.name: p.power for p in self.empire_state(game).players}

    def page(self, path: str) -> str:
        """The server's web page at ``path``; an error status fails."""
        url = f"http://127.0.0.1:{self.server.web.port}{path}"
        try:
            with urllib.request.urlopen(url, timeout=20) as response:
                return response.read().decode()
        except urllib.error.HTTPError as error:
            with error:
                raise AssertionError(f"{path}: {error.code}") from None

    def reply_to(self, player_email: str) -> str:
        return str(self.outbox(to=player_email)[-1]["Reply-To"])

    # -- time ----------------------------------------------------------------------

    def game(self, name: str = "alpha") -> Any:
        with self.app.store.tx(write=False) as conn:
            return self.app.store.game(conn, name)

    def report(self, to: str, game: str = "alpha", index: int = -1) -> EmailMessage:
        mails = [m for m in self.outbox("report", to) if f"[{game}]" in m["Subject"]]
        assert mails, f"no report of {game} to {to}"
        return mails[index]

    def text(self, mail: EmailMessage) -> str:
        return mail.get_body(("plain",)).get_content()

    def states(self) -> dict[str, int]:
        return self.app.store.mail_states()
