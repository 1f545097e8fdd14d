"""No mail to robots, and no flood through the judge: one predicate decides
"automatic or bounce" before any reply; every reply counts toward one daily
cap per address; the last reply before the cap says so; what the cap held
goes out as one digest when it resets, and orders sent meanwhile count."""

from __future__ import annotations

import email
import email.policy

import pytest

from pbem.mail.replycap import CAPPED
from tests.mailharness import Harness

ANN = "ann@example.org"
ALPHA = "alpha@judge.example"
SERVER = "judge@judge.example"
STRANGER = "stranger@example.net"

# (name, envelope sender or None for the From address, extra headers, From or None)
AUTOMATIC = [
    ("null envelope", "", {}, None),
    ("daemon envelope", "MAILER-DAEMON@mx.example.net", {}, "MAILER-DAEMON@mx.example.net"),
    ("daemon From", None, {}, "Mail Delivery System <MAILER-DAEMON@mx.example.org>"),
    ("postmaster From", None, {}, "postmaster@example.org"),
    ("postmaster envelope", "postmaster@example.org", {}, None),
    ("delivery report", None, {"Content-Type": "multipart/report; report-type=x"}, None),
    ("auto-replied", None, {"Auto-Submitted": "auto-replied"}, None),
    ("auto-generated", None, {"Auto-Submitted": "auto-generated"}, None),
    ("auto-notified", None, {"Auto-Submitted": "auto-notified"}, None),
    ("auto-replied params", None, {"Auto-Submitted": "auto-replied; owner=x@y"}, None),
    ("X-Autoreply", None, {"X-Autoreply": "yes"}, None),
    ("X-Autorespond", None, {"X-Autorespond": "vacation"}, None),
    ("X-Auto-Response-Suppress", None, {"X-Auto-Response-Suppress": "All"}, None),
    ("Precedence bulk", None, {"Precedence": "bulk"}, None),
    ("Precedence junk", None, {"Precedence": "junk"}, None),
    ("Precedence list", None, {"Precedence": "list"}, None),
    ("List-Id", None, {"List-Id": "<games.lists.example.org>"}, None),
    ("out of office", None, {"Subject": "Out of Office: orders"}, None),
    ("automatic reply", None, {"Subject": "Automatic reply: orders"}, None),
    ("re: autoreply", None, {"Subject": "RE: Autoreply"}, None),
    ("German", None, {"Subject": "Abwesenheitsnotiz: orders"}, None),
    ("German 2", None, {"Subject": "Automatische Antwort: orders"}, None),
    ("French", None, {"Subject": "Réponse automatique : orders"}, None),
    ("Spanish", None, {"Subject": "Respuesta automática: orders"}, None),
    ("Italian", None, {"Subject": "Risposta automatica: orders"}, None),
    ("Dutch", None, {"Subject": "Automatisch antwoord: orders"}, None),
    ("Swedish", None, {"Subject": "Autosvar: orders"}, None),
    ("Portuguese", None, {"Subject": "Resposta automática: orders"}, None),
    ("Polish", None, {"Subject": "Poza biurem: orders"}, None),
]


def _mail(sender: str, to: str, body: str, headers: dict[str, str]) -> bytes:
    head = {"From": sender, "To": to, "Subject": "orders", **headers}
    head.setdefault("Message-ID", email.utils.make_msgid(domain="example.org"))
    if "Content-Type" not in head:
        head["Content-Type"] = "text/plain; charset=utf-8"
    text = "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n" + body
    return text.encode()


def _paths(judge: Harness) -> dict[str, tuple[str, str, str, dict[str, str]]]:
    """Every path that replies to a mail: (From, To, body, extra headers)."""
    pw = judge.password(ANN)
    with judge.app.store.tx(write=False) as conn:
        ann = next(p for p in judge.app.store.players(conn, "alpha") if p.email == ANN)
    token = judge.app.reply_address(ann)
    many = "".join(f"--b\r\nContent-Type: text/plain\r\n\r\npart {i}\r\n" for i in range(600))
    return {
        "receipt": (ANN, ALPHA, f"PASSWORD {pw}\r\nSol holds\r\n", {}),
        "wrong password": (ANN, ALPHA, "PASSWORD wrong\r\nSol holds\r\n", {}),
        "server command": (ANN, SERVER, "LIST\r\n", {}),
        "not a player": (STRANGER, ALPHA, "Sol holds\r\n", {}),
        "credentials from elsewhere": (STRANGER, ALPHA, f"PASSWORD {pw}\r\nSol holds\r\n", {}),
        "token from elsewhere": (STRANGER, token, "Sol holds\r\n", {}),
        "too complex": (
            ANN,
            ALPHA,
            many + "--b--\r\n",
            {"MIME-Version": "1.0", "Content-Type": 'multipart/mixed; boundary="b"'},
        ),
        "unreadable": (
            ANN,
            ALPHA,
            "--b\r\nContent-Type: image/png\r\n\r\nxx\r\n--b--\r\n",
            {"MIME-Version": "1.0", "Content-Type": 'multipart/mixed; boundary="b"'},
        ),
    }


def test_every_path_answers_a_person(judge):
    """The paths really reply when the mail is not automatic (else the
    table below would prove nothing)."""
    for name, (sender, to, body, headers) in _paths(judge).items():
        before = len(judge.app.store.outbox_rows())
        code, _ = judge.send_raw(_mail(sender, to, body, headers), sender, (to,))
        assert code == 250
        assert len(judge.app.store.outbox_rows()) > before, name


@pytest.mark.parametrize("variant", AUTOMATIC, ids=[v[0] for v in AUTOMATIC])
def test_automatic_mail_is_never_answered(judge, variant):
    name, envelope, headers, from_header = variant
    before = len(judge.app.store.outbox_rows())
    sent = 0
    for path, (sender, to, body, extra) in _paths(judge).items():
        head = {**extra, **headers}
        if "Content-Type" in extra and "Content-Type" in headers:
            head["Content-Type"] = headers["Content-Type"] + '; boundary="b"'
        raw = _mail(from_header or sender, to, body, head)
        code, _ = judge.send_raw(raw, sender if envelope is None else envelope, (to,))
        assert code == 250, path
        sent += 1
    rows = judge.app.store.mails()[-sent:]
    assert len(judge.app.store.outbox_rows()) == before, [
        (r.kind, r.to_addr) for r in judge.app.store.outbox_rows()[before:]
    ]
    assert {r.state for r in rows} <= {"ignored", "bounce"}, [(r.state, r.note) for r in rows]


def _capped(judge: Harness, to: str) -> list:
    return [r for r in judge.app.store.outbox_rows(to_addr=to) if r.kind in CAPPED]


def _text(raw: bytes) -> str:
    mail = email.message_from_bytes(raw, policy=email.policy.default)
    return " ".join(mail.get_body(("plain",)).get_content().split())


def test_fifty_forged_and_fifty_token_mails_give_the_player_at_most_the_cap(judge):
    pw = judge.password(ANN)
    with judge.app.store.tx(write=False) as conn:
        ann = next(p for p in judge.app.store.players(conn, "alpha") if p.email == ANN)
    token = judge.app.reply_address(ann)
    with judge.smtp() as s:
        for i in range(50):  # forged: ann's address, no password
            s.sendmail(ANN, [ALPHA], _mail(ANN, ALPHA, f"PASSWORD guess{i}\r\nSol holds\r\n", {}))
        for i in range(50):  # ann's reply address, from strangers
            who = f"s{i}@example.net"
            s.sendmail(who, [token], _mail(who, token, "Sol x Alnitak\r\n", {}))
    judge.settle(60)
    capped = _capped(judge, ANN)
    live = [r for r in capped if r.status != "held"]
    assert len(live) == 10  # the cap, replies_per_day
    assert "further replies today are held; your orders are still being recorded" in _text(
        live[-1].message
    )
    assert all("further replies" not in _text(r.message) for r in live[:-1])
    # an hour later ann sends real orders: recorded, and their receipt sent:
    # the forged mails spent only the replies to mail that proves nothing
    judge.clock.advance(hours=2)
    judge.send(ANN, ALPHA, f"PASSWORD {pw}\nSol x Alnitak\n", subject="my real orders")
    mine = judge.app.store.mails()[-1]
    assert mine.state == "applied"
    receipt = judge.app.store.outbox_rows("receipt", ANN)[-1]
    assert receipt.status != "held" and "Sol attacks Alnitak" in _text(receipt.message)
    held = [r for r in _capped(judge, ANN) if r.status == "held"]
    # held: the replies past the cap to the 50 forged mails (each refused
    # to ann's address: password checks are never paused, tests/test_forger.py)
    # and the 50 alerts that her reply address was used by others: 100 - 10
    assert len(held) == 90
    # the cap resets at midnight: what it held comes as one digest
    judge.advance(hours=12)
    digests = [r for r in _capped(judge, ANN) if r.kind == "digest"]
    assert len(digests) == 1 and digests[0].status in ("pending", "sent")
    text = _text(digests[0].message)
    assert "held 90 replies to you" in text
    assert "Your credentials for alpha were used" in text
    assert {r.status for r in _capped(judge, ANN) if r.kind != "digest"} == {"sent", "digested"}
