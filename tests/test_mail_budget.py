"""One budget for all the work a mail causes: whatever a mail holds (a
thousand commands, a thousand order lines, headers built to be slow to
parse, passwords for every seat), the next mail's receipt comes within a
second, and the sender is told which lines were not read, and why. Played
through the real server by mail, on a real SQLite file."""

from __future__ import annotations

import email.utils
import time

import pytest

from pbem.commands.observing import WRONG
from pbem.mail.budget import SLOW_CHECKS, TIME, Budget
from tests.mailharness import GAMES_YAML, PRIVATE_GAME, Harness, wait_for

ANN = "ann@example.org"  # plays alpha (Sol) and beta
BOB = "bob@example.org"  # plays alpha (Vega)
STRANGER = "mallory@example.net"
ALPHA = "alpha@judge.example"
SERVER = "judge@judge.example"
YAML = GAMES_YAML.replace("idle_timeout: 5}", "idle_timeout: 5, replies_per_day: 1000}")


@pytest.fixture
def judge(tmp_path):
    harness = Harness(tmp_path, YAML)
    try:
        yield harness
    finally:
        harness.close()


def _receipts(judge: Harness, to: str) -> int:
    return len(judge.app.store.outbox_rows("receipt", to))


def _flood_then_order(judge: Harness, raw_or_mail: object, mail_from: str = STRANGER) -> float:
    """Send a mail (an EmailMessage, or raw bytes), and right after it an
    order of bob's: seconds from sending bob's mail until its receipt is
    in the outbox."""
    order = judge.message(BOB, ALPHA, f"PASSWORD {judge.password(BOB)}\nVega holds\n")
    if not _receipts(judge, BOB):  # warm: the server's one-time costs are no flood's
        with judge.smtp() as s:
            s.send_message(
                judge.message(BOB, ALPHA, f"PASSWORD {judge.password(BOB)}\nVega holds\n")
            )
        judge.settle(120)
    before = _receipts(judge, BOB)
    with judge.smtp() as s:
        if isinstance(raw_or_mail, bytes):
            s.sendmail(mail_from, [ALPHA], raw_or_mail)
        else:
            s.send_message(raw_or_mail)
        started = time.monotonic()
        s.send_message(order)
    judge.worker.wake()
    wait_for(lambda: _receipts(judge, BOB) > before, 120, "bob's receipt")
    took = time.monotonic() - started
    judge.settle(120)
    return took


def _lines(text: str, n: int) -> str:
    return "".join(f"{text}\n" for _ in range(n))


@pytest.mark.serial
@pytest.mark.parametrize(
    ("sender", "to", "body"),
    [
        (STRANGER, SERVER, _lines("LIST", 1000)),
        (STRANGER, ALPHA, _lines("HELP", 1000)),
        (ANN, SERVER, "{password}\n" + _lines("LIST", 1000)),
        (ANN, ALPHA, "{password}\n" + _lines("STATUS", 1000)),
        (ANN, ALPHA, "{password}\n" + _lines("HELP", 1000)),
        (ANN, ALPHA, "{password}\n" + _lines("Sol holds", 1000)),
        (STRANGER, SERVER, _lines("GAME alpha\nSTATUS\nGAME beta\nSTATUS", 250)),
    ],
    ids=["stranger-LIST", "stranger-HELP", "player-LIST", "STATUS", "HELP", "orders", "GAMES"],
)
def test_a_flood_of_commands_holds_the_next_mail_up_less_than_a_second(judge, sender, to, body):
    body = body.format(password=f"PASSWORD {judge.password(ANN)}")
    took = _flood_then_order(judge, judge.message(sender, to, body))
    assert took < 1.0, f"bob's receipt took {took:.2f} s"
    flood, order = judge.app.store.mails()[-2:]
    assert order.state == "applied"
    assert flood.state in ("applied", "refused")  # finished, never failed or retried
    answer = judge.last(sender)
    assert "were not read" in answer, answer[-2000:]


# a server of many games, where LIST is work
MANY_GAMES = YAML + "".join(
    f"""  - name: g{i}
    game: officewars
    map: six
    players:
      - {{name: ann, email: ann@example.org}}
      - {{name: dee, email: dee@example.org}}
"""
    for i in range(12)
)


@pytest.mark.serial
def test_a_mail_that_has_had_its_time_is_answered_with_what_was_done(tmp_path):
    """LIST a thousand times, each line a little different: the work stops
    once the mail has had its time, and the answer says which lines were
    not read."""
    judge = Harness(tmp_path, MANY_GAMES)
    try:
        body = "".join(f"LIST {i}\n" for i in range(1000))
        took = _flood_then_order(judge, judge.message(STRANGER, SERVER, body))
        assert took < 1.0, f"bob's receipt took {took:.2f} s"
        answer = " ".join(judge.last(STRANGER).split())
        assert "Games on this server" in answer  # what was done counts
        assert "were not read: the mail used up its share of the server's time" in answer
        assert "lines 201-1000 were not read: a mail is read up to its 200th" in answer
        flood, order = judge.app.store.mails()[-2:]
        assert flood.state == "refused" and order.state == "applied"  # LIST changes nothing
    finally:
        judge.close()


def _many_parts(n: int) -> bytes:
    """A mail of ``n`` parts, each with a Content-Type as slow to parse as
    the bounds on headers allow."""
    ctype = 'text/plain; a="' + '("' * 30 + '"; b=' + "x " * 400
    parts = "".join(f"--b\r\nContent-Type: {ctype}\r\n\r\nLIST\r\n" for _ in range(n))
    return (
        f"From: {STRANGER}\r\nTo: {ALPHA}\r\nSubject: parts\r\n"
        'Content-Type: multipart/mixed; boundary="b"\r\n\r\n' + parts + "--b--\r\n"
    ).encode()


def _html(size: int) -> bytes:
    return (
        f"From: {STRANGER}\r\nTo: {ALPHA}\r\nSubject: html\r\nContent-Type: text/html\r\n\r\n"
        + "<b>x</b>\r\n" * (size // 10)
    ).encode()


@pytest.mark.serial
@pytest.mark.parametrize("raw", [_many_parts(490), _html(980_000)], ids=["parts", "html"])
def test_a_mail_slow_to_read_holds_the_next_mail_up_less_than_a_second(judge, raw):
    took = _flood_then_order(judge, raw)
    assert took < 1.0, f"bob's receipt took {took:.2f} s"
    assert judge.app.store.mails()[-1].state == "applied"


HOSTILE = {
    "quotes": '"',
    "dots": ".",
    "parentheses": "(",
    "backslashes": "\\",
    "encoded-words": "=?utf-8?q?a?= ",
    "angle-brackets": "<",
    "commas": ",",
}


def _hostile(header: str, unit: str, size: int) -> bytes:
    value = (unit * (size // len(unit) + 1))[:size]
    headers = {"From": STRANGER, "To": ALPHA, "Subject": "orders"}
    headers[header] = value
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    mid = email.utils.make_msgid(domain="example.net")
    return (head + f"Message-ID: {mid}\r\n\r\nLIST\r\nHELP\r\n").encode()


@pytest.mark.serial
@pytest.mark.parametrize("header", ["From", "To", "Reply-To", "Subject", "References"])
def test_a_hostile_header_holds_the_next_mail_up_less_than_a_second(judge, header):
    sizes = {name: 24_000 for name in HOSTILE}
    sizes["quotes"] = 990_000  # the largest a mail to this server can carry
    for name, unit in HOSTILE.items():
        took = _flood_then_order(judge, _hostile(header, unit, sizes[name]))
        assert took < 1.0, f"{header} of {name}: bob's receipt took {took:.2f} s"
    states = [m.state for m in judge.app.store.mails()]
    assert "new" not in states and "failed" not in states, states


class SlowChecks:
    """The App's own verifier, its slow check counted (installed in place
    of the bound method; everything else is the verifier's)."""

    def __init__(self, judge: Harness) -> None:
        self.calls = 0
        verifier = judge.app.verifier
        check = verifier.check

        def counted(password: str, stored: str) -> bool:
            self.calls += 1
            return check(password, stored)

        verifier.check = counted  # type: ignore[method-assign]


def test_a_strangers_passwords_for_every_game_cost_a_few_checks_once(tmp_path):
    judge = Harness(tmp_path, YAML + PRIVATE_GAME)
    try:
        checks = SlowChecks(judge)
        body = "".join(f"GAME {g}\nSTATUS\n" for g in ("alpha", "beta", "gamma"))
        body += "PASSWORD one\nPASSWORD two\nPASSWORD three\n"
        judge.send(STRANGER, SERVER, body)
        assert 0 < checks.calls <= SLOW_CHECKS
        first = checks.calls
        judge.send(STRANGER, SERVER, body)  # the same guesses again: no new slow check
        assert checks.calls == first
        assert [m.state for m in judge.app.store.mails()] == ["refused"] * 2
        # a player's right password from elsewhere is still recognised ...
        judge.send(ANN, ALPHA, f"PASSWORD {judge.password(ANN)}\nSol holds\n")
        judge.send("ann@work.example", ALPHA, f"PASSWORD {judge.password(ANN)}\nSol holds\n")
        assert "were used" in str(judge.outbox("alert", ANN)[-1]["Subject"])
        # ... and her own is accepted, however many guesses came
        judge.send(ANN, ALPHA, f"PASSWORD {judge.password(ANN)}\nSol holds\n")
        assert judge.app.store.mails()[-1].state == "applied"
    finally:
        judge.close()


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_answer_to_a_mail_over_the_caps_names_them(tmp_path):
    judge = Harness(tmp_path, MANY_GAMES)
    try:
        _over_the_caps(judge)
    finally:
        judge.close()


def _over_the_caps(judge: Harness) -> None:
    pw = judge.password(ANN)
    judge.send(ANN, ALPHA, f"PASSWORD {pw}\n" + _lines("Sol holds", 250))
    receipt = _flat(judge.last(ANN))
    assert "Understood" in receipt
    assert "lines 201-251 were not read: a mail is read up to its 200th command or order line" in (
        receipt
    )
    judge.send(ANN, ALPHA, f"PASSWORD {pw}\nPASSWORD b\nPASSWORD c\nPASSWORD d\nSol holds\n")
    receipt = _flat(judge.last(ANN))
    assert "line 4 was not read: at most 3 passwords are read from a mail" in receipt
    games = "".join(f"GAME g{i}\nSTATUS\n" for i in range(8))
    judge.send(ANN, SERVER, f"PASSWORD {pw}\n{games}HISTORY S1901M\n")
    receipt = _flat(judge.last(ANN))
    assert "lines 12-18 were not read: a mail may name at most 5 games" in receipt
    # a word that names no game (a phase, a game not here) is not counted
    judge.send(ANN, ALPHA, f"PASSWORD {pw}\n" + "".join(f"HISTORY S19{i:02}M\n" for i in range(8)))
    assert "not read" not in _flat(judge.last(ANN))
    assert all(m.state in ("applied", "refused") for m in judge.app.store.mails())


def test_passwords_in_any_text_are_compared_and_refused(tmp_path):
    """A password with letters beyond ASCII is compared like any other
    (the comparison in constant time takes bytes): refused, never a mail
    that fails and is tried again."""
    judge = Harness(tmp_path, YAML + PRIVATE_GAME)
    try:
        judge.send(STRANGER, SERVER, "WATCH gamma fäns-önly\n")
        judge.confirm(STRANGER)  # the observer password is checked when confirmed
        judge.send("gm@example.org", ALPHA, "PASSWORD gëhéim\nPAUSE\n")
        states = [m.state for m in judge.app.store.mails()]
        assert states[-1] == "refused" and "quarantined" not in states, states
        told = judge.text(judge.outbox(to=STRANGER)[-1])
        assert "WATCH gamma: " + WRONG in " ".join(told.split()), told
        assert "password is missing or wrong" in judge.last("gm@example.org")
    finally:
        judge.close()


def test_the_budget_counts_time_and_checks_and_names_lines_as_ranges():
    """The meter on a clock the test moves: over once the time is spent,
    slow checks refused past the cap, lines not read told as ranges."""
    now = [10.0]
    budget = Budget(seconds=0.4, spent=0.1, clock=lambda: now[0], free=0)
    assert not budget.over()
    assert [budget.slow_check() for _ in range(SLOW_CHECKS + 1)] == [True] * SLOW_CHECKS + [False]
    assert budget.unchecked == 1
    now[0] += 0.3
    assert budget.over() and not budget.slow_check()
    for line in (7, 8, 9, 12, 3):
        budget.skip(line)
    budget.skip(201, 1000, "over a cap")
    assert budget.notes() == [
        f"lines 3, 7-9, 12 were not read: {TIME}",
        "lines 201-1000 were not read: over a cap",
    ]
    # the first units of work run whatever the meter says (a server's
    # one-time costs at a mail never cut a player's few commands)
    late = Budget(seconds=0.4, spent=5.0, clock=lambda: now[0], free=2)
    assert [late.over() for _ in range(3)] == [False, False, True]
    one = Budget()
    one.skip(5)
    assert one.notes() == [f"line 5 was not read: {TIME}"]
    many = Budget()
    for line in range(1, 100, 2):
        many.skip(line)
    assert (
        many.notes()[0].startswith("lines 1, 3, 5")
        and "and 30 more were not read" in (many.notes()[0])
    )
