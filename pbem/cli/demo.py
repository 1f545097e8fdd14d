"""`pbem demo`: six scripted players play a whole Office Wars game by mail.

A real server runs in this process (pbem/cli/local.py): SMTP on 127.0.0.1, a
SQLite file and a Maildir for outbound mail in a folder of its own. The
players JOIN by mail and confirm it by replying, then each turn read their latest mail from the
Maildir (the "started" mail, then each report), pick orders among the legal
ones it lists, and reply to it over SMTP (the reply address needs no
password). The clock is accelerated: once every order is in, it jumps to
the deadline stored for the game and the scheduler resolves the turn.
When a surrender vote is open, players other than the leader vote for it
from the tenth tick on, so the game ends in a few dozen ticks.
"""

from __future__ import annotations

import base64
import email
import email.policy
import re
import smtplib
import tempfile
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import TextIO

from adjudicator.base import Rng
from pbem.cli.local import LocalServer

PLAYERS = ("ann", "bob", "cid", "dee", "eve", "fay")
DOMAIN = "demo.example"

GAMES_YAML = """\
# written by pbem demo
server:
  domain: demo.example
  listen: {{host: 127.0.0.1, port: 0}}
  timezone: Europe/Oslo
  storage: pbem.sqlite
  outbound: {{from: judge@demo.example, maildir: mail}}
games:
  - name: demo
    game: officewars
    map: six
    seats: 6
    deadline: "50 0,12 * * *"
    timezone: Europe/Oslo
    remind: none
    master: {{email: gm@demo.example, password: demo}}
    seed: {seed}
"""

OPTION = re.compile(r"^  (.+?): (.+)$")


@dataclass
class Bot:
    name: str
    rng: Rng
    seen: set[str] = field(default_factory=set)  # Maildir files read

    @property
    def email(self) -> str:
        return f"{self.name}@players.example"

    def orders(self, text: str, tick: int) -> list[str]:
        """Orders from the legal ones the mail lists for each unit: attack
        when it can, else move, else hold; vote when the vote is open."""
        lines: list[str] = []
        if "Your units and the orders" not in text:
            return lines
        block = text.split("Your units and the orders they may give:")[1]
        unit_lines = _unwrap(block)
        for unit, choices in unit_lines:
            groups = dict(_group(choices))
            if groups.get("attacks") and self.rng.below(10) < 8:
                lines.append(f"{unit} attacks {self.rng.choice(groups['attacks'])}")
            elif groups.get("moves to") and self.rng.below(10) < 5:
                lines.append(f"{unit} moves to {self.rng.choice(groups['moves to'])}")
            else:
                lines.append(f"{unit} holds")
        vote = re.search(r"The vote is open: (\S+) leads", text.replace("\n", " "))
        if vote and vote[1] != self.name and tick >= 10:
            lines.append("vote surrender")
        return lines


def _unwrap(block: str) -> list[tuple[str, str]]:
    """The "unit: choices" lines of a mail, joining wrapped lines."""
    out: list[tuple[str, str]] = []
    for line in block.splitlines():
        if not line.strip():
            if out:
                break
            continue
        m = OPTION.match(line)
        if m and not line.startswith("      "):
            out.append((m[1], m[2]))
        elif out and line.startswith("      "):
            out[-1] = (out[-1][0], out[-1][1] + " " + line.strip())
        else:
            break
    return out


def _group(choices: str) -> list[tuple[str, list[str]]]:
    out = []
    for part in choices.split("; "):
        words = part.split()
        n = 2 if len(words) > 1 and words[1] == "to" else 1
        verb = " ".join(words[:n])
        targets = [t.strip() for t in " ".join(words[n:]).split(",") if t.strip()]
        out.append((verb, targets))
    return out


def _send(port: int, sender: str, to: str, body: str, subject: str) -> None:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = to
    m["Subject"] = subject
    m["Message-ID"] = email.utils.make_msgid(domain="players.example")
    m.set_content(body)
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as s:
        s.send_message(m)


def _asks_to_confirm(maildir: Path, bot: Bot) -> str:
    """The Reply-To of the mail that asks the bot to confirm its JOIN."""
    for path in (maildir / "new").iterdir():
        mail = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if str(mail["To"]) == bot.email and str(mail["Reply-To"] or "").startswith("confirm+"):
            return str(mail["Reply-To"])
    raise RuntimeError(f"no mail asks {bot.email} to confirm")


def _latest(maildir: Path, bot: Bot) -> EmailMessage | None:
    """The bot's newest unread mail that lists its units (started or report)."""
    found = None
    for path in sorted((maildir / "new").iterdir(), key=lambda p: p.stat().st_mtime_ns):
        if path.name in bot.seen:
            continue
        raw = path.read_bytes()
        if f"To: {bot.email}".encode() not in raw:
            continue
        bot.seen.add(path.name)
        mail = email.message_from_bytes(raw, policy=email.policy.default)
        subject = str(mail["Subject"])
        if "has started" in subject or "results" in subject:
            found = mail
    return found


def play(folder: Path, out: TextIO, seed: int = 7, max_ticks: int = 120) -> dict[str, object]:
    started = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "games.yaml").write_text(GAMES_YAML.format(seed=seed), encoding="utf-8")
    local = LocalServer(folder / "games.yaml")
    maildir = folder / "mail"
    try:
        print(f"pbem demo: a server on 127.0.0.1:{local.port}, files in {folder}", file=out)
        bots = [Bot(n, Rng(seed * 31 + i)) for i, n in enumerate(PLAYERS)]
        for bot in bots:
            _send(local.port, bot.email, f"judge@{DOMAIN}", f"JOIN demo as {bot.name}\n", "join")
        local.settle(60)
        for bot in bots:  # each confirms its JOIN by replying to the mail that asks
            _send(local.port, bot.email, _asks_to_confirm(maildir, bot), "yes\n", "Re: confirm")
        local.settle(60)
        print("six players joined by mail; the game has started", file=out)
        tick = 1
        while tick <= max_ticks:
            game = _game(local)
            if game.status == "finished":
                break
            for bot in bots:
                mail = _latest(maildir, bot)
                if mail is None:
                    continue  # out of the game: no report lists units for it
                lines = bot.orders(mail.get_body(("plain",)).get_content(), tick)
                reply_to = str(mail["Reply-To"] or "")
                if lines and reply_to:
                    _send(local.port, bot.email, reply_to, "\n".join(lines) + "\n", "orders")
            local.settle(60)
            local.clock.set(game.deadline)
            local.tick()
            after = _game(local)
            print(f"  tick {tick:>3}: {_standings(local, after)}", file=out, flush=True)
            tick += 1
        return _summary(local, folder, tick - 1, time.monotonic() - started, out)
    finally:
        local.close()


def _game(local: LocalServer):  # noqa: ANN202
    with local.app.store.tx(write=False) as conn:
        row = local.app.store.game(conn, "demo")
    assert row is not None
    return row


def _standings(local: LocalServer, game) -> str:  # noqa: ANN001
    engine = local.app.engine(game.kind)
    view = engine.view(engine.load_state(game.state), None)
    return "  ".join(
        f"{s.player} {dict(s.measures)['systems']}"
        + ("" if s.status == "active" else f" ({s.status})")
        for s in view.standings
    )


def _summary(
    local: LocalServer, folder: Path, ticks: int, seconds: float, out: TextIO
) -> dict[str, object]:
    game = _game(local)
    engine = local.app.engine(game.kind)
    outcome = engine.outcome(engine.load_state(game.state))
    with local.app.store.tx(write=False) as conn:
        report = local.app.store.report(conn, "demo", "")
    mails_in = sum(local.app.store.mail_states().values())
    mails_out = len(local.app.store.outbox_rows())
    final = folder / "final-report.txt"
    if report is not None:
        final.write_text(report.text, encoding="utf-8")
        (folder / "final-map.png").write_bytes(report.png)
        (folder / "final-report.html").write_text(
            standalone_html(report.html, report.png), encoding="utf-8"
        )
    winners = ", ".join(outcome.winners) if outcome else "nobody yet (no end within the ticks)"
    print(
        f"\ngame over after {ticks} ticks: {winners} won"
        + (f" ({outcome.reason.replace('_', ' ')})" if outcome else ""),
        file=out,
    )
    print(
        f"mails: {mails_in} received over SMTP, {mails_out} sent (in {folder / 'mail'})", file=out
    )
    print(
        f"final report: {final} and {folder / 'final-report.html'} "
        f"(map: {folder / 'final-map.png'})",
        file=out,
    )
    print(f"played in {seconds:.1f} s", file=out)
    return {
        "winners": outcome.winners if outcome else (),
        "ticks": ticks,
        "mails_in": mails_in,
        "mails_out": mails_out,
        "final": final,
        "finished": game.status == "finished",
    }


def standalone_html(html: str, png: bytes) -> str:
    """A report's HTML that shows its map in a browser, as a file of its
    own: the picture the mail carries as a cid: part, inlined as a data:
    URI (the mailed report keeps its cid: part)."""
    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return html.replace('src="cid:map@pbem"', f'src="{uri}"')


def main(folder: str | None, out: TextIO, seed: int = 7) -> int:
    where = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="pbem-demo-"))
    result = play(where, out, seed)
    return 0 if result["finished"] else 1
