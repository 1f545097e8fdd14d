"""Bounded work per mail before authentication: line endings normalised
before the limits are checked, limits on parts, depth, header lines and
decoded size whatever the line endings, and a time budget; a mail over a
limit is refused once, politely, and the mail after it flows."""

from __future__ import annotations

import socket
import time

import pytest

from pbem.mail.parse import parse_mail, within
from tests.mailharness import GAMES_YAML, Harness, wait_for

ANN = "ann@example.org"
ALPHA = "alpha@judge.example"
BIG = GAMES_YAML.replace("max_message_size: 1000000", "max_message_size: 12000000")


def many_parts(n: int, eol: bytes, every: int = 1000) -> bytes:
    """A multipart mail of ``n`` parts whose lines end in ``eol``; a CRLF
    after every ``every`` parts keeps each SMTP line under the limit, as an
    MTA's line wrapping would."""
    parts = b"".join(
        b"--b"
        + eol
        + b"Content-Type: text/plain"
        + eol
        + eol
        + b"p"
        + (b"\r\n" if i % every == 0 else eol)
        for i in range(n)
    )
    return (
        b"From: " + ANN.encode() + b"\r\nTo: alpha@judge.example\r\nSubject: many\r\n"
        b'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n'
        + parts
        + b"--b--\r\n"
    )


@pytest.mark.serial
@pytest.mark.parametrize("eol", [b"\r\n", b"\n", b"\r"], ids=["CRLF", "LF", "bare CR"])
def test_the_part_limit_holds_whatever_the_line_endings(eol):
    started = time.process_time()  # CPU, not wall: the same on a busy machine
    mail = parse_mail(many_parts(20_000, eol), ANN)
    assert mail.too_complex == "it has more than 500 parts"
    assert mail.from_addr == ANN  # the headers were read, for the polite refusal
    assert time.process_time() - started < 1.0


def test_depth_headers_and_decoded_size_are_limited():
    deep = b"".join(
        b'Content-Type: multipart/mixed; boundary="b%d"\r\r--b%d\r' % (i, i) for i in range(60)
    )
    assert "nests more than" in parse_mail(b"From: " + ANN.encode() + b"\r" + deep).too_complex
    headers = b"".join(b"X-H%d: v\r" % i for i in range(600))
    assert "header lines" in parse_mail(headers + b"\rbody").too_complex
    huge = b"A" * (9 * 2**20)
    raw = (
        b"From: ann@example.org\r\nContent-Type: text/plain\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\n" + huge
    )
    mail = parse_mail(raw, ANN, budget=0)  # the size limit alone, whatever the time
    assert any("was not read" in n for n in mail.notes), mail.notes


@pytest.mark.serial
def test_the_time_budget_interrupts_a_slow_read():
    """In the worker process's main thread the read is interrupted after
    its budget (elsewhere the limits alone bound it)."""
    from pbem.mail.parse import ReadTimeout

    def busy() -> None:  # CPU work, as reading a mail is
        end = time.process_time() + 5
        while time.process_time() < end:
            pass

    started = time.process_time()
    with pytest.raises(ReadTimeout):
        within(0.2, busy)
    assert time.process_time() - started < 2


def test_waiting_for_a_core_costs_a_mail_nothing():
    """The budget is CPU time: a worker that waits (a busy machine, a nice
    level below the SMTP side's) is not cut off."""
    done = []
    within(0.2, lambda: (time.sleep(0.5), done.append(True)))
    assert done


def _send_raw(port: int, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        f = s.makefile("rb")

        def cmd(line: bytes | None) -> bytes:
            if line:
                s.sendall(line)
            while True:
                reply = f.readline()
                if reply[3:4] != b"-":
                    return reply

        cmd(None)
        cmd(b"EHLO test\r\n")
        cmd(b"MAIL FROM:<ann@example.org>\r\n")
        cmd(b"RCPT TO:<alpha@judge.example>\r\n")
        assert cmd(b"DATA\r\n").startswith(b"354")
        return cmd(raw + b".\r\n")


def _done(judge: Harness, n: int) -> bool:
    states = judge.app.store.mail_states()
    return sum(states.values()) == n and "new" not in states


@pytest.mark.serial
def test_a_bare_cr_mail_of_300000_parts_is_refused_within_a_second(tmp_path):
    judge = Harness(tmp_path, BIG)
    try:
        pw = judge.password(ANN)
        raw = many_parts(300_000, b"\r")
        assert len(raw) > 9_000_000
        reply = _send_raw(judge.port, raw)
        assert reply.startswith(b"250"), reply
        # the work it costs, as CPU time of this process (the worker is a
        # thread of it): the same on a busy machine as on an idle one
        accepted = time.process_time()
        judge.worker.wake()
        wait_for(lambda: _done(judge, 1), 10, "the refusal")
        assert time.process_time() - accepted < 1.0
        (row,) = judge.app.store.mails()
        assert row.state == "refused" and "more than 500 parts" in row.note
        refusal = judge.last(ANN, "refusal")  # once, politely
        assert "more than 500 parts" in refusal
        # an order mail right after it is processed within a second
        reply = _send_raw(
            judge.port, f"From: {ANN}\r\nSubject: o\r\n\r\nPASSWORD {pw}\r\nSol holds\r\n".encode()
        )
        assert reply.startswith(b"250")
        sent = time.process_time()
        judge.worker.wake()
        wait_for(lambda: _done(judge, 2), 10, "the order mail")
        assert time.process_time() - sent < 1.0
        assert judge.app.store.mails()[-1].state == "applied"
        assert len(judge.outbox("refusal", ANN)) == 1
    finally:
        judge.close()


def _in_a_thread(work):
    """``work()`` run on a thread other than the main one, where no timer
    can interrupt a read and the budget is kept by the read itself (the
    worker of the test harness, a thread of the test process)."""
    import threading

    box = []
    t = threading.Thread(target=lambda: box.append(work()))
    t.start()
    t.join(30)
    return box[0]


SPENT = [  # (subject, From, what must be found) for mails read with the budget spent
    ("Respuesta automática: orders", ANN, "auto"),
    ("Out of Office: orders", ANN, "auto"),
    ("orders", "Mail Delivery System <MAILER-DAEMON@mx.example.org>", "bounce"),
    ("orders", "Ann <ann@example.org>", None),
]


@pytest.mark.parametrize("where", ["thread", "main"])
@pytest.mark.parametrize("subject, sender, found", SPENT, ids=[s[2] or "player" for s in SPENT])
def test_a_spent_budget_never_blanks_the_headers_that_decide_a_reply(where, subject, sender, found):
    """A read whose budget runs out (a slow machine, a garbage collection
    at the wrong moment) still knows who sent the mail and whether it is
    automatic: an out-of-office reply is never answered for it."""
    raw = (
        f"From: {sender}\r\nTo: {ALPHA}\r\nSubject: {subject}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\nPASSWORD x\r\nSol holds\r\n"
    ).encode()
    read = lambda: parse_mail(raw, ANN, budget=1e-9)  # noqa: E731
    mail = _in_a_thread(read) if where == "thread" else read()
    assert mail.from_addr == ("MAILER-DAEMON@mx.example.org" if found == "bounce" else ANN)
    assert mail.subject == subject
    assert bool(mail.auto) == (found == "auto"), mail.auto
    assert bool(mail.bounce) == (found == "bounce"), mail.bounce


def test_an_alarm_after_the_read_is_over_raises_nothing():
    """A profiling alarm whose handler runs once within() has returned (a
    signal handled between bytecodes, late) does not interrupt the work
    that follows."""
    from pbem.mail import parse

    within(5, lambda: None)
    parse._expired(0, None)  # the late alarm: ignored, no ReadTimeout
