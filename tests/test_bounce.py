"""Bounces through a real SMTP session: every mail leaves through the fake
relay with its own return path (VERP), and real bounces of many mail
systems (the messages flufl.bounce ships, read from the installed package)
come back to it: recognised, tied to the exact mail and recipient, never
answered; too many permanent failures and an address is no longer mailed."""

from __future__ import annotations

import email
import email.policy
import itertools
import re
from dataclasses import dataclass, field
from importlib import resources

import pytest
from aiosmtpd.controller import Controller

from pbem.mail import bounces
from tests.mailharness import (
    GAMES_YAML,
    Harness,
    free_port,
    on_both_backends,
    run_command,
)

ANN, BOB, CID, DEE = "ann@example.org", "bob@example.org", "cid@example.org", "dee@example.org"
GM = "gm@example.org"
SERVER = "judge@judge.example"
DATA = resources.files("flufl.bounce.tests") / "data"
SHIPPED = sorted(p.name for p in DATA.iterdir() if p.name.endswith(".txt"))
_TRACE = itertools.count()
RETURN_PATH = re.compile(r"^bounces\+([a-z0-9]+\.[a-z2-7]+)@judge\.example$")

# shipped bounces of real mail systems that fail for good, and the address each names
PERMANENT = {
    "postfix_02.txt": "yyyyy@digicool.com",  # Postfix, plain text
    "dsn_10.txt": "anne.person@dom.ain",  # Postfix, RFC 3464 DSN
    "exim_01.txt": "userx@its.example.nl",  # Exim
    "microsoft_02.txt": "userx@example.com",  # Microsoft Exchange (Internet Mail Service)
    "microsoft_01.txt": None,  # Exchange naming an X.400 address: nothing usable
    "dsn_13.txt": "userx@example.com",  # Microsoft Exchange DSN
    "simple_17.txt": "userx@example.com",  # Gmail (googlemail.com) "failed permanently"
    "qmail_01.txt": "userx@example.de",  # qmail
}
# delayed: a warning, not a failure
TEMPORARY = {
    "dsn_17.txt": "userx@example.fi",  # a DSN with Action: delayed
    "simple_28.txt": "userx@example.com",  # Gmail (googlemail.com) "delayed"
}


@dataclass
class Relay:
    """The fake relay: takes every mail and keeps its envelope."""

    port: int = 0
    envelopes: list[tuple[str, list[str], bytes]] = field(default_factory=list)

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address.startswith("refuse-"):
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.envelopes.append((envelope.mail_from, envelope.rcpt_tos, envelope.original_content))
        return "250 OK"

    def return_paths(self, to: str) -> list[str]:
        return [m for m, r, _ in self.envelopes if to in r]


@pytest.fixture
def relay():
    handler = Relay(port=free_port())
    controller = Controller(handler, hostname="127.0.0.1", port=handler.port)
    controller.start()
    try:
        yield handler
    finally:
        controller.stop()


def relayed_yaml(port: int, unreachable_after: int, extra: str = "") -> str:
    text = GAMES_YAML.replace(
        "outbound: {from: judge@judge.example, maildir: var/mail}",
        f"outbound: {{from: judge@judge.example, host: 127.0.0.1, port: {port}}}",
    ).replace("idle_timeout: 5}", f"idle_timeout: 5, unreachable_after: {unreachable_after}}}")
    return text.replace(
        "    master: {email: gm@example.org", extra + "    master: {email: gm@example.org"
    )


@pytest.fixture
def judge_relayed(tmp_path, relay, storage):
    harness = Harness(tmp_path, relayed_yaml(relay.port, 2), storage=storage)
    try:
        yield harness
    finally:
        harness.close()


def shipped(name: str) -> bytes:
    return (DATA / name).read_bytes()


def bounce_to(judge: Harness, return_path: str, raw: bytes) -> None:
    """A bounce to ``return_path``, by a real SMTP session: each with a
    trace line of its own (the same bytes again are absorbed as a resend)."""
    received = f"Received: from mx.example.net; id {next(_TRACE)}\r\n".encode()
    code, _ = judge.send_raw(received + raw, "", (return_path,))
    assert code == 250


def last_state(judge: Harness) -> tuple[str, str]:
    row = judge.app.store.mails()[-1]
    return row.state, row.note or ""


def sent_to(judge: Harness, to: str) -> list:
    return judge.app.store.outbox_rows(to_addr=to)


# -- the return path ------------------------------------------------------------------------


def test_every_mail_leaves_with_its_own_return_path(judge_relayed, relay):
    assert len(relay.envelopes) == 10  # a password and a start mail each
    seen = set()
    for mail_from, rcpts, content in relay.envelopes:
        m = RETURN_PATH.match(mail_from)
        assert m, mail_from
        assert len(mail_from.partition("@")[0]) <= 64
        with judge_relayed.app.store.tx(write=False) as conn:
            row = bounces.verify(judge_relayed.app, conn, m[1])
        assert row is not None and [row.to_addr] == rcpts and row.message == content
        seen.add(row.id)
    assert len(seen) == 10


def test_the_return_path_is_ours_and_a_bounce_address(judge_relayed, relay):
    app = judge_relayed.app
    path = relay.return_paths(ANN)[0]
    got = app.recipient(path.upper())  # an MTA may change the case: it survives
    assert got.kind == "bounces" and got.token == path.partition("+")[2].partition("@")[0]
    assert bounces.token(app.secret, 36**12 - 1, "a" * 64 + "@" + "b" * 180) and len(
        bounces.token(app.secret, 10**12, ANN)
    ) <= 64 - len("bounces+")


def test_a_token_cannot_be_made_or_moved(judge_relayed, relay):
    app = judge_relayed.app
    token = relay.return_paths(ANN)[0].partition("+")[2].partition("@")[0]
    number, mac = token.split(".")
    with app.store.tx(write=False) as conn:
        assert bounces.verify(app, conn, token) is not None
        assert bounces.verify(app, conn, f"{number}.{'a' * len(mac)}") is None
        other = bounces.token(app.secret, int(number, 36), BOB)  # the same mail, another address
        assert bounces.verify(app, conn, other) is None
        moved = f"{int(number, 36) + 1:x}.{mac}"
        assert bounces.verify(app, conn, moved) is None
        assert bounces.verify(app, conn, "zzzzzzzzzzzzzz.abc") is None
        assert bounces.verify(app, conn, "nodot") is None


def test_a_maildir_mail_carries_its_return_path(judge):
    files = list((judge.root / "var" / "mail" / "new").iterdir())
    assert files
    for path in files:
        first = path.read_bytes().split(b"\r\n", 1)[0].decode()
        m = re.fullmatch(r"Return-Path: <(.+)>", first)
        assert m and RETURN_PATH.match(m[1]), first


# -- real bounces tied by the return path ------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PERMANENT))
def test_a_real_permanent_bounce_is_tied_to_the_mail_and_recipient(judge_relayed, relay, name):
    judge = judge_relayed
    path = relay.return_paths(BOB)[0]
    row_id = int(path.partition("+")[2].partition(".")[0], 36)
    before = len(judge.app.store.outbox_rows())
    bounce_to(judge, path, shipped(name))
    state, note = last_state(judge)
    assert state == "bounce" and f"permanent failure of outbox #{row_id} to {BOB}" in note
    (got,) = judge.app.store.bounce_rows(BOB)
    assert (got["outbox_id"], got["kind"]) == (row_id, "permanent")
    if PERMANENT[name]:
        assert PERMANENT[name].lower() in got["note"]  # what the report named, recorded
    assert len(judge.app.store.outbox_rows()) == before  # never answered


@pytest.mark.parametrize("name", sorted(TEMPORARY))
def test_a_delay_is_not_a_failure(judge_relayed, relay, name):
    judge = judge_relayed
    for path in relay.return_paths(BOB):  # both of bob's mails delayed: still mailed
        bounce_to(judge, path, shipped(name))
        state, note = last_state(judge)
        assert state == "bounce" and "temporary failure" in note
        assert TEMPORARY[name].lower() in note
    assert {b["kind"] for b in judge.app.store.bounce_rows(BOB)} == {"temporary"}
    with judge.app.store.tx(write=False) as conn:
        assert judge.app.store.unreachable_since(conn, BOB) is None


def test_a_bounce_naming_nothing_is_still_tied_by_its_return_path(judge_relayed, relay):
    judge = judge_relayed
    path = relay.return_paths(CID)[0]
    raw = b"From: MAILER-DAEMON@mx.example.net\r\nSubject: failure\r\n\r\nIt did not work.\r\n"
    bounce_to(judge, path, raw)
    assert last_state(judge)[0] == "bounce"
    assert [b["kind"] for b in judge.app.store.bounce_rows(CID)] == ["permanent"]


def test_a_forged_token_is_recorded_and_ignored(judge_relayed, relay):
    judge = judge_relayed
    number = relay.return_paths(ANN)[0].partition("+")[2].partition(".")[0]
    for i in range(3):  # more than the limit: nothing counts
        raw = f"Received: from mx{i}.example.net\r\n".encode() + shipped("postfix_02.txt")
        bounce_to(judge, f"bounces+{number}.{'a' * 24}@judge.example", raw)
        state, note = last_state(judge)
        assert state == "bounce" and "does not verify" in note
    kinds = [b["kind"] for b in judge.app.store.bounce_rows()]
    assert kinds == ["unverified"] * 3
    assert judge.app.store.unreachable_addresses() == []


def test_a_vacation_reply_to_the_return_path_is_no_failure(judge_relayed, relay):
    judge = judge_relayed
    path = relay.return_paths(ANN)[0]
    before = len(judge.app.store.outbox_rows())
    raw = (
        f"From: {ANN}\r\nTo: {path}\r\nSubject: Out of office\r\n"
        "Auto-Submitted: auto-replied\r\n\r\nI am away.\r\n"
    ).encode()
    code, _ = judge.send_raw(raw, ANN, (path,))
    assert code == 250 and last_state(judge)[0] == "ignored"
    person = f"From: {ANN}\r\nTo: {path}\r\nSubject: hi\r\n\r\nLIST\r\n".encode()
    code, _ = judge.send_raw(person, ANN, (path,))  # a person writing there: not answered either
    assert code == 250 and last_state(judge)[0] == "ignored"
    assert [b["kind"] for b in judge.app.store.bounce_rows(ANN)] == ["none", "none"]
    assert len(judge.app.store.outbox_rows()) == before


# -- unreachable, and the way back -----------------------------------------------------------


@on_both_backends
def test_too_many_failures_and_the_player_is_no_longer_mailed(judge_relayed, relay):
    judge = judge_relayed
    first, second = relay.return_paths(BOB)
    bounce_to(judge, first, shipped("postfix_02.txt"))
    bounce_to(judge, first, shipped("dsn_10.txt"))  # the same mail again: counts once
    with judge.app.store.tx(write=False) as conn:
        assert judge.app.store.unreachable_since(conn, BOB) is None
    assert not judge.app.store.outbox_rows("alert")
    bounce_to(judge, second, shipped("exim_01.txt"))  # the second mail: the limit (2)
    with judge.app.store.tx(write=False) as conn:
        assert judge.app.store.unreachable_since(conn, BOB) is not None
    (alert,) = judge.outbox("alert", GM)
    assert "bob of alpha is unreachable" in alert["Subject"]
    body = alert.get_body(("plain",)).get_content()
    assert BOB in body and "pbem reachable" in body
    # more bounces tell the game master nothing more
    for path in (first, second):
        bounce_to(judge, path, shipped("qmail_01.txt"))
    assert len(judge.outbox("alert", GM)) == 1
    # the next mail to bob is kept, not sent
    sent = len(relay.return_paths(BOB))
    press = f"PASSWORD {judge.password(ANN)}\nPRESS ALL\nhello everyone\nENDPRESS\n"
    judge.send(ANN, "alpha@judge.example", press)
    kept = [r for r in sent_to(judge, BOB) if r.status == "unreachable"]
    assert kept and "unreachable" in kept[0].last_error
    assert len(relay.return_paths(BOB)) == sent
    assert relay.return_paths(CID)[2:]  # the others got the press


@on_both_backends
def test_the_players_next_authenticated_mail_brings_them_back(judge_relayed, relay):
    judge = judge_relayed
    for path in relay.return_paths(BOB):
        bounce_to(judge, path, shipped("postfix_02.txt"))
    assert [a for a, _ in judge.app.store.unreachable_addresses()] == [BOB]
    judge.send(BOB, "alpha@judge.example", "hello, orders without a password\n")
    assert sent_to(judge, BOB)[-1].status == "unreachable"  # a forged From proves nothing
    judge.send(BOB, "alpha@judge.example", f"PASSWORD {judge.password(BOB)}\nSTATUS\n")
    assert judge.app.store.unreachable_addresses() == []
    receipt = sent_to(judge, BOB)[-1]
    assert receipt.kind == "receipt" and receipt.status == "sent"
    assert relay.return_paths(BOB)[-1] == bounces.return_path(judge.app, receipt)
    # counted afresh: one more bounce is not the limit
    bounce_to(judge, relay.return_paths(BOB)[-1], shipped("exim_01.txt"))
    assert judge.app.store.unreachable_addresses() == []


@on_both_backends
def test_the_operator_brings_an_address_back(judge_relayed, relay, capsys):
    judge = judge_relayed
    for path in relay.return_paths(CID):
        bounce_to(judge, path, shipped("dsn_13.txt"))
    config = str(judge.root / "games.yaml")
    assert run_command("reachable", "--config", config)[0] == 0
    assert f"{CID}  unreachable since" in capsys.readouterr().out
    assert run_command("reachable", CID.upper(), "--config", config)[0] == 0
    assert f"{CID} is mailed again" in capsys.readouterr().out
    assert judge.app.store.unreachable_addresses() == []


def test_an_observer_whose_mail_bounces_is_dropped(judge_relayed, relay):
    judge = judge_relayed
    watcher = "watcher@example.net"
    judge.send_confirmed(watcher, SERVER, "WATCH alpha\n")
    judge.send_confirmed(watcher, SERVER, "WATCH beta\n")
    with judge.app.store.tx(write=False) as conn:
        assert watcher in judge.app.store.watchers(conn, "alpha")
    for path in relay.return_paths(watcher)[:2]:
        bounce_to(judge, path, shipped("simple_17.txt"))
    with judge.app.store.tx(write=False) as conn:
        assert judge.app.store.watchers(conn, "alpha") == []
        assert judge.app.store.watchers(conn, "beta") == []
    assert not judge.outbox("alert")  # an observer has no game master to alarm


def test_a_recipient_the_relay_refuses_counts_as_a_failure(tmp_path, relay):
    extra = "    observers: [refuse-me@example.net]\n"
    judge = Harness(tmp_path, relayed_yaml(relay.port, 1, extra))
    try:
        judge.send(ANN, "alpha@judge.example", f"PASSWORD {judge.password(ANN)}\nSTATUS\n")
        judge.app.alert_master  # noqa: B018 - the harness is up
        judge.advance(hours=13)  # a turn: a report to the observer, refused at RCPT
        failed = [r for r in sent_to(judge, "refuse-me@example.net") if r.status == "failed"]
        assert failed and "550 5.1.1" in failed[0].last_error
        rows = judge.app.store.bounce_rows("refuse-me@example.net")
        assert rows and rows[0]["kind"] == "permanent" and rows[0]["inbox_id"] is None
        assert [a for a, _ in judge.app.store.unreachable_addresses()] == ["refuse-me@example.net"]
    finally:
        judge.close()


# -- bounces that come back elsewhere, and every shipped format ---------------------------------


def dsn(message_id: str, failed: str, sender: str = "MAILER-DAEMON@mx.example.org") -> str:
    """An RFC 3464 report that ``failed`` could not be reached, naming our
    mail ``message_id`` in its copy of the headers."""
    return (
        f"From: {sender}\r\nTo: judge@judge.example\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nIt failed.\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx\r\n\r\n"
        f"Final-Recipient: rfc822; {failed}\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
        "--b\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"From: judge@judge.example\r\nTo: {failed}\r\nMessage-ID: {message_id}\r\n\r\n--b--\r\n"
    )


def plain_bounce(message_id: str, failed: str, sender: str) -> str:
    """A Postfix-style plain text bounce quoting our mail, from a mail
    system that gives its bounces a sender of its own."""
    return (
        f"From: {sender}\r\nTo: judge@judge.example\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n\r\n"
        "This is the mail system at host mx.example.net.\r\n\r\n"
        "I'm sorry to have to inform you that your message could not\r\n"
        "be delivered to one or more recipients.\r\n\r\n"
        f"<{failed}>: host mx.example.org said: 550 5.1.1 <{failed}>: "
        "Recipient address rejected: User unknown in local recipient table\r\n\r\n"
        f"--- original message ---\r\nFrom: judge@judge.example\r\nTo: {failed}\r\n"
        f"Message-ID: {message_id}\r\nSubject: alpha\r\n\r\nhello\r\n"
    )


def test_a_bounce_to_the_server_address_counts_for_nothing(judge):
    """Only a bounce to a return path counts: one to the server's address
    that names a real mail of ours by Message-ID is recorded with it, and
    no failure is counted."""
    report = judge.app.store.outbox_rows("password", ANN)[0]
    before = len(judge.app.store.outbox_rows())
    judge.send_raw(dsn(report.message_id, ANN).encode(), "", (SERVER,))
    state, note = last_state(judge)
    assert state == "bounce" and "not counted" in note and f"outbox #{report.id}" in note
    (got,) = judge.app.store.bounce_rows(ANN)
    assert (got["kind"], got["outbox_id"]) == ("elsewhere", report.id)
    with judge.app.store.tx(write=False) as conn:
        assert judge.app.store.permanent_failures(conn, ANN) == 0
        assert judge.app.store.outbox_mail(conn, report.id).last_error is None
    assert len(judge.app.store.outbox_rows()) == before  # never answered


@on_both_backends
def test_forged_bounces_never_cut_a_player_off(judge_relayed, relay):
    """Anyone who learns (or guesses) the Message-IDs of the mails to a
    player can write delivery reports naming them: to the server's address
    and to a game's, as DSNs and as plain text, with an empty envelope
    sender and with one of their own, as many as they like. None counts:
    the player's next receipt, to a mail that proves nothing, is sent."""
    judge = judge_relayed
    judge.send(BOB, "alpha@judge.example", f"PASSWORD {judge.password(BOB)}\nSTATUS\n")
    mails = sent_to(judge, BOB)
    assert len(mails) == 3 and all(m.status == "sent" for m in mails)
    before = len(judge.app.store.outbox_rows())
    daemon = "mailer-daemon@mx.example.net"
    forged = []
    for mid in (m.message_id for m in mails):
        forged += [
            (dsn(mid, BOB), "", SERVER),
            (dsn(mid, BOB), "", "alpha@judge.example"),
            (dsn(mid, BOB, "postmaster@example.org"), daemon, SERVER),
            (plain_bounce(mid, BOB, "MAILER-DAEMON@mx.example.net"), "", SERVER),
            (plain_bounce(mid, BOB, "mail@mx.example.net"), daemon, "beta@judge.example"),
        ]
    first = len(judge.app.store.mails())
    with judge.smtp() as s:
        for n, (raw, mail_from, to) in enumerate(forged * 2):
            trace = f"Received: from attacker.example; id {n}\r\n"
            s.sendmail(mail_from, [to], (trace + raw).encode())
    judge.settle(60)
    assert judge.app.store.unreachable_addresses() == []
    assert not judge.app.store.outbox_rows("alert")
    assert len(judge.app.store.outbox_rows()) == before  # none answered
    sent = len(relay.return_paths(BOB))
    judge.send(BOB, "alpha@judge.example", "orders without a password\n")
    (refusal,) = judge.app.store.outbox_rows()[before:]
    assert refusal.to_addr == BOB and refusal.status == "sent", refusal.last_error
    assert len(relay.return_paths(BOB)) == sent + 1
    rows = judge.app.store.mails()[first:-1]
    assert [r.state for r in rows] == ["bounce"] * 30, [(r.state, r.note) for r in rows]
    assert {b["kind"] for b in judge.app.store.bounce_rows(BOB)} == {"elsewhere"}


@pytest.fixture(scope="module")
def corpus_judge(tmp_path_factory):
    harness = Harness(tmp_path_factory.mktemp("bounces"), relayed_yaml(free_port(), 1000))
    try:
        yield harness
    finally:
        harness.close()


def test_the_library_ships_its_bounces():
    assert len(SHIPPED) >= 100
    assert set(PERMANENT) | set(TEMPORARY) <= set(SHIPPED)


# shipped messages the library does not read as bounces and that carry a
# person's address as sender: a reply to a person (groupwise_03), a French
# "non remis" written like a reply (simple_20), and a bounce in a format no
# detector knows (simple_43). Sent with that address as the envelope sender
# (no MTA sends a bounce so), they are answered like any stranger's mail.
NOT_READ_AS_BOUNCES = {"groupwise_03.txt", "simple_20.txt", "simple_43.txt"}
WAYS = ["server address", "return path", "game address", "own sender"]


def _envelope(how: str, raw: bytes, path: str) -> tuple[str, str]:
    """(envelope sender, recipient) of a shipped bounce sent ``how``."""
    if how == "server address":
        return "", SERVER
    if how == "return path":
        return "", path
    sender = email.message_from_bytes(raw, policy=email.policy.compat32)["from"]
    address = email.utils.parseaddr(str(sender or ""))[1]
    if how == "game address":  # the daemon of the domain that wrote it
        return f"MAILER-DAEMON@{address.partition('@')[2] or 'x.example'}", "alpha@judge.example"
    return address or "nobody@x.example", "alpha@judge.example"


@pytest.mark.parametrize("how", WAYS)
def test_every_shipped_bounce_is_recorded_and_never_answered(corpus_judge, how):
    """Every message the library ships, through a real SMTP session: to the
    server's address with an empty envelope sender, to the return path of
    a real mail of ours, to a game's address from the daemon of the domain
    that wrote it, and from the address in its own From. None fails the
    worker; none is answered (but the few that are no bounce to any reader)."""
    judge = corpus_judge
    target = judge.app.store.outbox_rows("password", ANN)[0]
    path = bounces.return_path(judge.app, target)
    before = len(judge.app.store.outbox_rows())
    first = len(judge.app.store.mails())
    with judge.smtp() as s:
        for name in SHIPPED:  # the same bytes again would be absorbed as a resend
            raw = f"Received: from mx.example.net for {how}\r\n".encode() + shipped(name)
            s.sendmail(*_envelope(how, raw, path), raw)
    judge.settle(60)
    rows = judge.app.store.mails()[first:]
    assert len(rows) == len(SHIPPED)
    states = dict(zip(SHIPPED, (r.state for r in rows), strict=True))
    answered = {r.to_addr for r in judge.app.store.outbox_rows()[before:]}
    if how == "own sender":  # answered: only the senders of those no reader takes for bounces
        people = {_envelope(how, shipped(n), path)[0].lower() for n in NOT_READ_AS_BOUNCES}
        assert answered <= people, answered - people
        return
    assert set(states.values()) <= {"bounce", "ignored"}, states
    assert not answered
    if how == "return path":
        kinds = [b["kind"] for b in judge.app.store.bounce_rows(ANN)]
        assert kinds.count("permanent") > 80 and kinds.count("temporary") >= 5
    elif how == "server address":
        assert set(states.values()) == {"bounce"}


@pytest.mark.parametrize("value", ["0", "-1", "lots", "1001"])
def test_pbem_check_refuses_a_bad_limit(tmp_path, value, capsys):
    from pbem.cli.main import main

    text = GAMES_YAML.replace("idle_timeout: 5}", f"idle_timeout: 5, unreachable_after: {value}}}")
    (tmp_path / "games.yaml").write_text(text)
    assert main(["check", str(tmp_path / "games.yaml")]) == 2
    assert "unreachable_after must be a whole number from 1 to 1000" in capsys.readouterr().err


def test_the_limit_defaults_to_three(tmp_path):
    from pbem.config import load_config

    (tmp_path / "games.yaml").write_text(GAMES_YAML)
    assert load_config(tmp_path / "games.yaml").server.limits.unreachable_after == 3
