"""Odd mail that mail software has met in the field, read from the test
data a well-kept mailing-list manager ships in its installed package
(Mailman 3: defective headers, a KOI8-R subject and sender, UTF-7, HTML
only, signed alternatives, attached messages). Each goes by real SMTP to
a running server, once from a stranger and once as a player's mail to
their reply address: no crash, one final state, and a readable answer
where one is due."""

from __future__ import annotations

import email
import email.policy
import email.utils
import re
from importlib import resources
from pathlib import Path

import pytest

from tests.mailharness import GAMES_YAML, Harness

ANN = "ann@example.org"
STRANGER = "user@example.com"


def shipped_mails() -> list[Path]:
    """Every .eml under the installed mailman package's tests/data folders."""
    root = Path(str(resources.files("mailman")))
    return sorted(root.glob("**/tests/data/*.eml"))


MAILS = shipped_mails()


def test_the_shipped_mails_are_there():
    names = {p.name for p in MAILS}
    assert len(MAILS) >= 10
    assert {"bad_email.eml", "ascii_in_utf7.eml", "html_non_ascii.eml"} <= names


def fresh(raw: bytes, sender: str | None = None) -> bytes:
    """The shipped mail with a Message-ID of its own (several share one, and
    a second mail with the same Message-ID is a duplicate) and, given
    ``sender``, that From."""
    head, sep, body = raw.partition(b"\n\n")
    head = re.sub(rb"(?im)^message-id:.*(\r?\n[ \t].*)*(\r?\n|$)", b"", head)
    if sender is not None:
        head = re.sub(rb"(?im)^from:.*(\r?\n[ \t].*)*(\r?\n|$)", b"", head)
        head = f"From: {sender}\n".encode() + head
    mid = email.utils.make_msgid(domain="example.com").encode()
    return b"Message-ID: " + mid + b"\n" + head + sep + body


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    # no turn runs while the clock moves a day a mail
    yearly = GAMES_YAML.replace('deadline: "50 0,12 * * *"', 'deadline: "0 12 1 6 *"')
    yearly = yearly.replace(
        "  - name: beta\n    game: officewars\n",
        '  - name: beta\n    game: officewars\n    deadline: "0 12 1 6 *"\n',
    )
    assert yearly.count("0 12 1 6 *") == 2
    harness = Harness(tmp_path_factory.mktemp("libraries"), yearly)
    try:
        yield harness
    finally:
        harness.close()


def alpha_reply_address(judge) -> str:
    """ann's reply address in alpha, from the mail that gave her the seat."""
    for mail in judge.outbox("password", ANN):
        address = email.utils.parseaddr(str(mail["Reply-To"]))[1]
        if address.startswith("alpha+"):
            return address
    raise AssertionError("no reply address of ann's in alpha")


def _new_rows(judge, before):
    return [r for r in judge.app.store.mails() if r.id not in before]


def _replies_to(judge, address, since):
    return [r for r in judge.app.store.outbox_rows(to_addr=address) if r.id not in since]


@pytest.mark.parametrize("path", MAILS, ids=lambda p: p.name)
def test_from_a_stranger(judge, path):
    """A stranger's odd mail to a game: stored as sent, refused or
    ignored, never quarantined, never an order."""
    judge.clock.advance(days=1)  # past the daily cap on replies
    raw = fresh(path.read_bytes())
    before = {r.id for r in judge.app.store.mails()}
    sent = {r.id for r in judge.app.store.outbox_rows()}
    code, _ = judge.send_raw(raw, mail_from=STRANGER, rcpt=("alpha@judge.example",))
    assert code == 250
    (row,) = _new_rows(judge, before)
    assert row.state in ("refused", "ignored"), (row.state, row.note, row.error)
    for reply in _replies_to(judge, STRANGER, sent):
        mail = email.message_from_bytes(reply.message, policy=email.policy.default)
        assert "is not a player of alpha" in mail.get_body(("plain",)).get_content()


@pytest.mark.parametrize("path", MAILS, ids=lambda p: p.name)
def test_as_a_players_mail(judge, path):
    """The same mail as ann's, to her reply address (no password needed):
    processed, and the receipt is a readable mail that says what was and
    was not understood."""
    judge.clock.advance(days=1)
    raw = fresh(path.read_bytes(), "Ann <ann@example.org>")
    reply_to = alpha_reply_address(judge)
    before = {r.id for r in judge.app.store.mails()}
    sent = {r.id for r in judge.app.store.outbox_rows()}
    code, _ = judge.send_raw(raw, mail_from=ANN, rcpt=(reply_to,))
    assert code == 250
    (row,) = _new_rows(judge, before)
    assert row.state in ("applied", "refused", "ignored"), (row.state, row.note, row.error)
    if row.state == "ignored":  # automatic mail (a list's own headers): never answered
        assert not _replies_to(judge, ANN, sent)
        return
    (reply,) = _replies_to(judge, ANN, sent)
    mail = email.message_from_bytes(reply.message, policy=email.policy.default)
    text = mail.get_body(("plain",)).get_content()
    assert "== alpha (Office Wars" in text, text
    assert "\ufffd" not in str(mail["Subject"])
