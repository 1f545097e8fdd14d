"""The SMTP conversation: limits, floods, idle clients, smuggling, LMTP,
many sessions at once."""

from __future__ import annotations

import smtplib
import socket
import threading
import time

import pytest

from tests.mailharness import GAMES_YAML, Harness, free_port, wait_for

ALPHA = "alpha@judge.example"
TIGHT = GAMES_YAML.replace(
    "limits: {max_message_size: 1000000, max_recipients: 5, max_connections: 20, idle_timeout: 5}",
    "limits: {max_message_size: 1000000, max_recipients: 5, max_connections: 3, idle_timeout: 1}",
)


@pytest.fixture
def tight(tmp_path):
    assert TIGHT != GAMES_YAML
    harness = Harness(tmp_path, TIGHT)
    try:
        yield harness
    finally:
        harness.close()


def greeting(port: int) -> tuple[bytes, float]:
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        data = s.recv(200)
    return data, time.monotonic() - started


def test_noop_flood_is_cut_off_with_421(judge):
    with judge.smtp() as s:
        codes = [s.noop()[0] for _ in range(100)]
        assert codes == [250] * 100
        with pytest.raises(smtplib.SMTPServerDisconnected):
            for _ in range(5):
                code, msg = s.noop()
                if code == 421:
                    raise smtplib.SMTPServerDisconnected(msg)
    # real mail still flows
    with judge.smtp() as s:
        s.sendmail("ann@example.org", [ALPHA], b"Subject: x\r\n\r\nhello\r\n")
    judge.settle()
    assert sum(judge.states().values()) == 1


def test_connection_cap_answers_421(tight):
    held = [socket.create_connection(("127.0.0.1", tight.port)) for _ in range(3)]
    try:
        for s in held:
            assert s.recv(100).startswith(b"220")
        data, _ = greeting(tight.port)
        assert data.startswith(b"421 4.7.0 Too many connections")
    finally:
        for s in held:
            s.close()
    wait_for(lambda: greeting(tight.port)[0].startswith(b"220"), 5, "a free slot")


def test_idle_connections_are_closed(tight):
    s = socket.create_connection(("127.0.0.1", tight.port), timeout=5)
    assert s.recv(100).startswith(b"220")
    time.sleep(1.6)
    s.settimeout(2)
    rest = s.recv(100)
    assert rest in (b"",) or rest.startswith(b"421")
    s.close()


def test_smuggled_end_of_data_is_one_message(judge):
    raw = (
        b"EHLO x\r\nMAIL FROM:<ann@example.org>\r\nRCPT TO:<alpha@judge.example>\r\nDATA\r\n"
        b"Subject: one\r\n\r\nSol holds\n.\r\nMAIL FROM:<ann@example.org>\r\n"
        b"RCPT TO:<alpha@judge.example>\r\nDATA\r\nSubject: smuggled\r\n\r\nx\r\n.\r\nQUIT\r\n"
    )
    with socket.create_connection(("127.0.0.1", judge.port), timeout=10) as s:
        s.sendall(raw)
        reply = b""
        while not reply.rstrip().endswith(b"221 Bye") and b"221" not in reply:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    judge.settle()
    mails = judge.app.store.mails()
    assert len(mails) == 1
    assert b"Subject: smuggled" in mails[0].raw  # all one message, never a second one


@pytest.mark.serial
def test_greeting_stays_fast_while_a_huge_mail_is_read(judge):
    parts = "".join(f"--p\r\nContent-Type: text/plain\r\n\r\npart {i}\r\n" for i in range(20000))
    raw = (
        f"From: ann@example.org\r\nTo: {ALPHA}\r\nSubject: parts\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="p"\r\n\r\n' + parts + "--p--\r\n"
    ).encode()

    def send() -> None:
        with judge.smtp() as s:
            s.sendmail("ann@example.org", [ALPHA], raw)

    sender = threading.Thread(target=send)
    sender.start()
    worst = 0.0
    while sender.is_alive():
        data, took = greeting(judge.port)
        assert data.startswith(b"220")
        worst = max(worst, took)
    sender.join()
    judge.settle()
    assert worst < 1.0
    assert judge.states() == {"refused": 1}


def test_many_sessions_at_once_lose_nothing(judge):
    sessions, per = 10, 20
    accepted = []
    lock = threading.Lock()

    def client(n: int) -> None:
        with judge.smtp() as s:
            for i in range(per):
                s.sendmail(
                    "ann@example.org",
                    [ALPHA],
                    f"Subject: {n}-{i}\r\nMessage-ID: <{n}.{i}@x>\r\n\r\nhi\r\n".encode(),
                )
                with lock:
                    accepted.append((n, i))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    judge.settle(60)
    assert len(accepted) == sessions * per
    assert len(judge.app.store.mails()) == sessions * per
    assert "new" not in judge.states()


@pytest.mark.parametrize("over", ["socket", "tcp"])
def test_lmtp_answers_per_recipient(tmp_path, over):
    """LMTP on a unix socket, or on a TCP port (`lmtp: host:port`); each
    mail stored with the address it came from."""
    sock, port = tmp_path / "lmtp.sock", free_port()
    where = sock if over == "socket" else f"127.0.0.1:{port}"
    text = GAMES_YAML.replace(
        "  timezone: Europe/Oslo\n  storage",
        f"  lmtp: {where}\n  timezone: Europe/Oslo\n  storage",
        1,
    )
    judge = Harness(tmp_path, text)
    try:
        assert sock.exists() == (over == "socket")
        client = smtplib.LMTP(str(sock)) if over == "socket" else smtplib.LMTP("127.0.0.1", port)
        client.ehlo_or_helo_if_needed = lambda: client.ehlo()  # LHLO
        refused = client.sendmail(
            "ann@example.org", [ALPHA, "beta@judge.example"], b"Subject: x\r\n\r\nhello\r\n"
        )
        client.quit()
        assert refused == {}
        judge.settle()
        (row,) = judge.app.store.mails()
        assert row.rcpt_to == (ALPHA, "beta@judge.example")
        assert row.peer == ("unix:" if over == "socket" else "127.0.0.1")  # where it came from
    finally:
        judge.close()


PATHS = [
    "<ann@example.org>",
    "<ann@example.org> SIZE=100",
    " <ann@example.org>",
    "<ann@example.org>  BODY=8BITMIME SMTPUTF8",
    "<ann@example.org>\tSIZE=5 ",
    "<alpha+ann.abc123@judge.example>",
    "<a.b-c@x-y.example>  ",
    "<>",
    "ann@example.org",
    '<"a b"@x.org>',
    "<a@[1.2.3.4]>",
    "<a..b@x.org>",
    "<@route:ann@x.org>",
    "<ann@example.org",
    "<ann@>",
    "<" + "a" * 70 + "@x.org>",
    "<ünï@example.org>",
    "",
]


@pytest.mark.parametrize("path", PATHS)
def test_the_fast_path_parser_reads_addresses_as_aiosmtpd_does(path):
    """MAIL FROM and RCPT TO addresses are read by a regular expression when
    they are plain (the stock parser costs more than the rest of a mail's
    SMTP); the answer is always the stock parser's."""
    from aiosmtpd.smtp import SMTP

    from pbem.mail.smtp import protocol_class

    ours, stock = protocol_class(SMTP).__new__(protocol_class(SMTP)), SMTP.__new__(SMTP)
    ours.local_part_limit = stock.local_part_limit = 64
    assert ours._getaddr(path) == stock._getaddr(path)


@pytest.mark.parametrize("over", ["smtp", "lmtp"])
def test_a_stop_closes_the_sessions_a_client_holds_open(tmp_path, over):
    """A relay keeps its session between mails (Postfix's connection
    cache): stopping pbem tells it 421 and closes the connection, and
    leaves no transport open behind it."""
    port = free_port()
    text = GAMES_YAML.replace(
        "  timezone: Europe/Oslo\n  storage",
        f"  lmtp: 127.0.0.1:{port}\n  timezone: Europe/Oslo\n  storage",
        1,
    )
    judge = Harness(tmp_path, text)
    try:
        if over == "smtp":
            port = judge.port
        client = socket.create_connection(("127.0.0.1", port), timeout=5)
        client.recv(200)
        hello = b"LHLO" if over == "lmtp" else b"EHLO"
        client.sendall(
            hello
            + b" relay\r\nMAIL FROM:<ann@example.org>\r\nRCPT TO:<"
            + ALPHA.encode()
            + b">\r\n"
        )
        said = b""
        while said.count(b"250 ") < 3:  # the last line of each of the three answers
            said += client.recv(4096)
    finally:
        judge.close()
    with client:
        rest = b""
        while chunk := client.recv(4096):  # the connection is closed: no timeout
            rest += chunk
    assert rest.startswith(b"421 "), rest


def test_a_connection_made_while_a_stop_is_under_way_is_dropped(judge):
    """A connection the listening socket took just before a stop closed it
    starts its session while the stop runs: it is dropped at once, its
    socket closed, not left open when the server's loop ends."""
    judge.server.gate.closing = True  # what Gate.close sets first
    try:
        with socket.create_connection(("127.0.0.1", judge.port), timeout=5) as client:
            said = b""
            while chunk := client.recv(4096):  # closed at once: no timeout, no greeting
                said += chunk
        assert said == b"", said
        assert judge.server.gate.open == 0
    finally:
        judge.server.gate.closing = False
