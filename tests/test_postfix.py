"""pbem behind a real Postfix, as most judges run: Postfix takes the
domain's mail and hands it to pbem by LMTP; pbem relays its own mail
through the same Postfix; a player's dead mailbox comes back as Postfix's
own delivery status notification, addressed to the mail's return path."""

from __future__ import annotations

import email
import email.policy
import smtplib

import pytest

from tests.mailharness import SERVER_YAML, Harness, free_port, wait_for
from tests.postfix import Postfix, RemoteServer, need_postfix

GAME = """\
  - name: alpha
    game: officewars
    map: six
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org}
      - {name: cid, email: gone@example.org}
    master: {email: gm@example.org, password: gm-secret}
"""


class Site:
    """The players' mail server, the judge's Postfix and pbem, wired up."""

    def __init__(self, tmp_path, server: str = "", postfix: tuple[str, ...] = ()) -> None:
        """``server``: more lines of games.yaml's server section;
        ``postfix``: more lines of Postfix's main.cf."""
        need_postfix()
        self.remote_server = RemoteServer()
        self.remote = self.remote_server.start()
        self.remote.gone.add("gone@example.org")
        lmtp = free_port()
        self.postfix = Postfix(
            "judge.example",
            {
                "judge.example": f"lmtp:inet:127.0.0.1:{lmtp}",
                "example.org": f"smtp:[127.0.0.1]:{self.remote_server.port}",
            },
            postfix,
        )
        self.postfix.start()
        text = SERVER_YAML.replace(
            "  storage:", f"  lmtp: 127.0.0.1:{lmtp}\n  storage:", 1
        ).replace(
            "outbound: {from: judge@judge.example, maildir: var/mail}",
            f"outbound: {{from: judge@judge.example, host: 127.0.0.1, port: {self.postfix.port}}}",
        )
        self.root, self.yaml = tmp_path, text.replace("  storage:", f"{server}  storage:", 1) + GAME
        self.judge = Harness(tmp_path, self.yaml)

    def close(self) -> None:
        try:
            self.postfix.stop()  # first: it holds connections to pbem's LMTP
        finally:
            self.judge.close()
            self.remote_server.stop()

    def delivered(self, to: str, subject_has: str, timeout: float = 30) -> email.message.Message:
        """The mail Postfix delivered to ``to`` whose subject has ``subject_has``."""

        def found():
            for _, raw in self.remote.to(to):
                mail = email.message_from_bytes(raw, policy=email.policy.default)
                if subject_has in str(mail["Subject"]):
                    return mail
            self.judge.settle()
            return None

        wait_for(lambda: found() is not None, timeout, f"a mail to {to} about {subject_has}")
        return found()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = Site(tmp_path_factory.mktemp("postfix-site"))
    try:
        yield s
    finally:
        s.close()


def test_orders_in_through_postfix_and_the_receipt_back_through_it(site):
    judge = site.judge
    password_mail = site.delivered("ann@example.org", "password")
    password = password_mail.get_body(("plain",)).get_content().split("PASSWORD ")[1].split()[0]
    with smtplib.SMTP("127.0.0.1", site.postfix.port, timeout=10) as s:
        s.sendmail(
            "ann@example.org",
            ["alpha@judge.example"],
            (
                "From: Ann <ann@example.org>\r\nTo: alpha@judge.example\r\n"
                "Subject: orders\r\nMessage-ID: <orders-1@example.org>\r\n\r\n"
                f"PASSWORD {password}\r\nSol attacks Alnitak\r\n"
            ).encode(),
        )
    receipt = site.delivered("ann@example.org", "orders")
    assert "+ Sol attacks Alnitak" in receipt.get_body(("plain",)).get_content()
    (row,) = [m for m in judge.app.store.mails() if m.mail_from == "ann@example.org"]
    assert row.rcpt_to == ("alpha@judge.example",)
    assert b"by mx.judge.example (Postfix)" in row.raw  # it came through Postfix, by LMTP
    assert judge.states()["applied"] == 1


def test_a_dead_mailbox_comes_back_as_postfixs_own_report(site):
    """The mails of the game's start to gone@example.org are refused by the
    players' server; Postfix returns its DSN to the mail's return path, by
    LMTP to pbem, which records it against that mail and never answers it."""
    judge = site.judge
    sent = judge.app.store.outbox_rows(to_addr="gone@example.org")
    assert {r.kind for r in sent} >= {"password", "started"}

    def reports():
        judge.settle()
        return [m for m in judge.app.store.mails() if m.state == "bounce"]

    wait_for(lambda: len(reports()) == len(sent), 30, "Postfix's reports to arrive")
    for dsn in reports():
        assert dsn.mail_from in ("", "<>")  # the null return path
        report = email.message_from_bytes(dsn.raw, policy=email.policy.default)
        assert report.get_content_type() == "multipart/report"
        assert "MAILER-DAEMON@judge.example" in str(report["From"])
        assert "gone@example.org" in dsn.raw.decode("utf-8", "replace")
    assert site.remote.to("gone@example.org") == []
    judge.settle()
    assert not [r for r in judge.app.store.outbox_rows() if r.to_addr.startswith("mailer-daemon")]
