"""Replies in two pools: mail that proved who sent it (a password, a reply
address) is answered from a generous daily allowance that forged mail never
touches; mail that proved nothing gets few replies a day, brief ones that
quote none of its lines and are never much larger than it. Real mail
through a real SMTP session, a real SQLite file."""

from __future__ import annotations

import email
import email.policy

from pbem.mail.replycap import ALLOWANCE
from tests.mailharness import Harness

ANN = "ann@example.org"
ALPHA, BETA, SERVER = "alpha@judge.example", "beta@judge.example", "judge@judge.example"
STRANGER = "stranger@example.net"


def _sent(judge: Harness, message) -> tuple[bytes, list]:
    """Send ``message``; its bytes as sent (CRLF) and the replies it caused."""
    before = len(judge.app.store.outbox_rows())
    with judge.smtp() as s:
        s.send_message(message)
    judge.settle()
    return message.as_bytes(policy=email.policy.SMTP), judge.app.store.outbox_rows()[before:]


def test_forged_help_floods_do_not_hold_the_owners_receipt(judge):
    for i in range(20):  # anyone can write ann's address in From
        judge.send(ANN, SERVER, "HELP\n", subject=f"forged {i}")
    forged = judge.app.store.outbox_rows("receipt", ANN)
    assert len(forged) == 20 and sum(r.status == "held" for r in forged) == 10
    judge.send(ANN, ALPHA, f"PASSWORD {judge.password(ANN)}\nSol holds\n", subject="mine")
    receipt = judge.app.store.outbox_rows("receipt", ANN)[-1]
    assert receipt.status != "held"
    assert "Understood:" in judge.last(ANN)


def test_a_player_in_two_games_revising_orders_all_day_gets_every_receipt(judge):
    passwords = {ALPHA: judge.password(ANN), BETA: judge.password(ANN, "beta")}
    for i in range(50):
        to = (ALPHA, BETA)[i % 2]
        order = ("Sol holds", "Sol x Alnitak")[i // 2 % 2]
        judge.send(ANN, to, f"PASSWORD {passwords[to]}\n{order}\n", subject=f"revised {i}")
    receipts = judge.app.store.outbox_rows("receipt", ANN)
    assert len(receipts) == 50
    assert [r.status for r in receipts if r.status == "held"] == []
    assert "last reply this server sends" not in judge.last(ANN)


def _brief(judge: Harness, body: str, subject: str) -> tuple[bytes, str, str]:
    """A stranger's mail and the one reply to it: the mail's bytes, the
    reply's text and subject (every reply checked to be within the size)."""
    raw, replies = _sent(judge, judge.message(STRANGER, SERVER, body, subject))
    assert [r.kind for r in replies] == ["receipt"]
    reply = replies[0]
    assert len(reply.message) <= len(raw) + ALLOWANCE, (len(reply.message), len(raw))
    mail = email.message_from_bytes(reply.message, policy=email.policy.default)
    return raw, mail.get_body(("plain",)).get_content(), str(mail["Subject"])


def _quotes_nothing(body: str, text: str, subject: str, sent_subject: str) -> None:
    assert sent_subject not in subject and sent_subject not in text
    assert subject == "Re: your mail"
    quoted = [line for line in body.splitlines() if line.strip() and line.strip() in text]
    assert quoted == [], quoted[:5]


def test_a_strangers_junk_commands_get_a_brief_answer_no_larger_than_their_mail(judge):
    body = "".join(f"JOIN nosuch{i:04} as visitor{i:04}\n" for i in range(200))
    assert len(body) > 6000
    raw, text, subject = _brief(judge, body, "Buy cheap watches at spam.example")
    _quotes_nothing(body, text, subject, "Buy cheap watches at spam.example")
    assert "there is no game called 'nosuch0000'" in text
    assert "The rest is left out" in text  # cut to the mail's size


def test_a_stranger_mail_of_a_thousand_unknown_words_gets_only_line_numbers(judge):
    body = "".join(f"wordnumber{i}\n" for i in range(1000))
    raw, text, subject = _brief(judge, body, "Visit spam.example today")
    _quotes_nothing(body, text, subject, "Visit spam.example today")
    assert "Lines not carried out: 1-200." in text
    assert "lines 201-1000 were not read" in text  # the cap on lines a mail


def test_help_to_a_stranger_is_answered_once_within_the_size_of_the_mail(judge):
    raw, text, subject = _brief(judge, "HELP\n" * 50, "Visit spam.example today")
    assert subject == "Re: your mail" and "spam.example" not in text
    assert text.count("this list of commands") == 1
    assert "line 2" not in text  # the same command again in one mail: answered once
