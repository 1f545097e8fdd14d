"""A corpus of malformed and unusual mails, each sent by real SMTP to a
running server, each with the final state it must reach and what the reply
must say (or that there is no reply at all)."""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from typing import Any

import pytest

from tests.mailharness import GAMES_YAML, Harness

ALPHA = "alpha@judge.example"
ANN = "ann@example.org"


@dataclass
class Case:
    name: str
    raw: Any  # bytes, or a function of the password giving bytes
    state: str  # the final state of the stored mail
    reply: tuple[str, ...] | None  # substrings of the reply; None: no reply at all
    mail_from: str = ANN
    rcpt: tuple[str, ...] = (ALPHA,)
    absent: tuple[str, ...] = ()  # must not be in the reply


def mail(
    headers: str,
    body: str | bytes,
    *,
    frm: str = f"Ann <{ANN}>",
    to: str = ALPHA,
    subject: str = "orders",
    extra: str = "",
) -> bytes:
    head = f"From: {frm}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{time.time_ns()}@x>\r\n"
    head += extra + headers
    if isinstance(body, str):
        body = body.replace("\n", "\r\n").encode("utf-8")
    return head.encode("utf-8") + b"\r\n" + body


def plain(body: str, **kw: Any) -> Any:
    return lambda pw: mail(
        "Content-Type: text/plain; charset=utf-8\r\n", body.replace("PW", pw), **kw
    )


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def alt(plain_text: str, html: str) -> Any:
    def build(pw: str) -> bytes:
        return mail(
            'MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="b1"\r\n',
            "--b1\nContent-Type: text/plain; charset=utf-8\n\n"
            + plain_text.replace("PW", pw)
            + "\n--b1\nContent-Type: text/html; charset=utf-8\n\n"
            + html.replace("PW", pw)
            + "\n--b1--\n",
        )

    return build


def html_only(html: str) -> Any:
    return lambda pw: mail(
        "MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n", html.replace("PW", pw)
    )


def nested(depth: int) -> Any:
    def build(pw: str) -> bytes:
        body = ""
        for i in range(depth):
            body += f'--n{i}\nContent-Type: multipart/mixed; boundary="n{i + 1}"\n\n'
        body += f"--n{depth}\nContent-Type: text/plain\n\nPASSWORD {pw}\nSol holds\n"
        for i in range(depth, -1, -1):
            body += f"--n{i}--\n"
        return mail('MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="n0"\r\n', body)

    return build


def many_parts(count: int) -> Any:
    def build(pw: str) -> bytes:
        parts = "".join(f"--p\nContent-Type: text/plain\n\npart {i}\n" for i in range(count))
        return mail(
            'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="p"\r\n',
            f"--p\nContent-Type: text/plain\n\nPASSWORD {pw}\nSol holds\n" + parts + "--p--\n",
        )

    return build


REPORT = (
    "MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; "
    'boundary="r"\r\n'
)

CASES = [
    Case(
        "plain", plain("PASSWORD PW\nSol x Alnitak\n"), "applied", ("line 2: Sol attacks Alnitak",)
    ),
    Case(
        "html-only",
        html_only("<html><body><p>PASSWORD PW</p><p>Sol&nbsp;x Alnitak</p></body></html>"),
        "applied",
        ("read from the text of its HTML", "Sol attacks Alnitak"),
    ),
    Case(
        "html-reply-with-blockquote",
        html_only("<div>PASSWORD PW<br>Sol holds</div><blockquote>Sol x Alnitak</blockquote>"),
        "applied",
        ("Sol holds",),
        absent=("Sol attacks Alnitak",),
    ),
    Case(
        "alternative-prefers-plain",
        alt("PASSWORD PW\nSol holds", "<p>Sol x Alnitak</p>"),
        "applied",
        ("Sol holds",),
        absent=("Sol attacks",),
    ),
    Case(
        "quoted-printable",
        lambda pw: mail(
            "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: "
            "quoted-printable\r\n",
            f"PASSWORD {pw}\nSol =\nx Alnitak=20\n",
        ),
        "applied",
        ("Sol attacks Alnitak",),
    ),
    Case(
        "base64",
        lambda pw: mail(
            "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n",
            b64(f"PASSWORD {pw}\nSol holds\n"),
        ),
        "applied",
        ("line 2: Sol holds",),
    ),
    Case(
        "base64-invalid-characters",
        lambda pw: mail(
            "Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n",
            "!!" + b64(f"PASSWORD {pw}\nSol holds\n") + "%%\n",
        ),
        "applied",
        ("Sol holds",),
    ),
    Case(
        "latin-1-declared",
        lambda pw: mail(
            "Content-Type: text/plain; charset=iso-8859-1\r\n",
            f"PASSWORD {pw}\n# caf\xe9\nSol holds\n".encode("latin-1"),
        ),
        "applied",
        ("line 3: Sol holds",),
    ),
    Case(
        "latin-1-undeclared",
        lambda pw: mail("", f"PASSWORD {pw}\n# d\xe9j\xe0 vu\nSol holds\n".encode("latin-1")),
        "applied",
        ("Sol holds",),
    ),
    Case(
        "cp1252",
        lambda pw: mail(
            "Content-Type: text/plain; charset=windows-1252\r\n",
            f"PASSWORD {pw}\n# \u201cquoted\u201d\nSol holds\n".encode("cp1252"),
        ),
        "applied",
        ("Sol holds",),
    ),
    Case(
        "unknown-charset",
        lambda pw: mail(
            "Content-Type: text/plain; charset=x-klingon\r\n", f"PASSWORD {pw}\nSol holds\n"
        ),
        "applied",
        ("unknown charset 'x-klingon'", "Sol holds"),
    ),
    Case(
        "utf-8-with-emoji",
        plain("PASSWORD PW\n# 🚀 go ✓\nSol holds\n"),
        "applied",
        ("line 3: Sol holds",),
    ),
    Case(
        "rfc2047-headers",
        plain(
            "PASSWORD PW\nSol holds\n",
            frm=f"=?utf-8?q?Ann_=C3=A9?= <{ANN}>",
            subject="=?x-bogus?q?orders?= =?utf-8?b?w6k=?=",
        ),
        "applied",
        ("Sol holds",),
    ),
    Case(
        "display-name-decides-nothing",
        plain("Sol holds\n", frm=f'"{ANN}" <eve@evil.example>'),
        "refused",
        ("eve@evil.example is not a player of alpha",),
        mail_from="eve@evil.example",
    ),
    Case(
        "gmail-reply",
        plain(
            "PASSWORD PW\nSol holds\n\nOn Sat, 21 Nov 2026 at 12:00, pbem "
            "<judge@judge.example> wrote:\n> Sol x Alnitak\n> Vega holds\n"
        ),
        "applied",
        ("Sol holds", "Ignored (3 lines"),
        absent=("Sol attacks",),
    ),
    Case(
        "gmail-reply-wrapped",
        plain(
            "PASSWORD PW\nSol holds\nOn Sat, 21 Nov 2026 at 12:00, "
            "pbem <judge@\njudge.example> wrote:\nSol x Alnitak\n"
        ),
        "applied",
        ("Sol holds",),
        absent=("Sol attacks",),
    ),
    Case(
        "outlook-original-message",
        plain("PASSWORD PW\nSol holds\n-----Original Message-----\nSol x Alnitak\n"),
        "applied",
        ("Sol holds",),
        absent=("Sol attacks",),
    ),
    Case(
        "outlook-header-block",
        plain(
            "PASSWORD PW\nSol holds\n\nFrom: pbem <judge@judge."
            "example>\nSent: Saturday\nTo: Ann\nSubject: orders\n\n"
            "Sol x Alnitak\n"
        ),
        "applied",
        ("Sol holds",),
        absent=("Sol attacks",),
    ),
    Case(
        "outlook-underscores",
        plain("PASSWORD PW\nSol holds\n" + "_" * 32 + "\nSol x Alnitak\n"),
        "applied",
        ("Sol holds",),
        absent=("Sol attacks",),
    ),
    Case(
        "signature",
        plain("PASSWORD PW\nSol holds\n-- \nAnn\nSol x Alnitak\n"),
        "applied",
        ("Sol holds",),
        absent=("Sol attacks",),
    ),
    Case(
        "pgp-clear-signed",
        plain(
            "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nPASSWORD PW\n"
            "- Sol holds\n-----BEGIN PGP SIGNATURE-----\n\niQEzBAEBCAAdFiEE\n"
            "Sol x Alnitak\n-----END PGP SIGNATURE-----\n"
        ),
        "applied",
        ("line 5: Sol holds", "signed with PGP; the signature was not checked"),
        absent=("Sol attacks", "Hash", "not an order"),
    ),
    Case(
        "end-line",
        plain("PASSWORD PW\nSol holds\nEND\nSol x Alnitak\n"),
        "applied",
        ("Sol holds",),
        absent=("Sol attacks",),
    ),
    Case("null-byte", plain("PASSWORD PW\nSol\x00 holds\n"), "applied", ("line 2: Sol holds",)),
    Case(
        "bare-lf-and-cr",
        lambda pw: (f"From: {ANN}\nTo: {ALPHA}\nSubject: x\n\nPASSWORD {pw}\rSol holds\n").encode(),
        "applied",
        ("Sol holds",),
    ),
    Case(
        "long-line",
        plain("PASSWORD PW\nSol holds\n" + "# " + "y" * 2000 + "\n"),
        "applied",
        ("Sol holds",),
    ),
    Case(
        "long-order-line",
        plain("PASSWORD PW\n" + "z" * 2000 + "\n"),
        "refused",
        ("this is not an order",),
    ),
    Case(
        "no-from",
        lambda pw: f"To: {ALPHA}\r\nSubject: x\r\n\r\nPASSWORD {pw}\r\n".encode(),
        "refused",
        None,
    ),
    Case(
        "no-message-id-no-date",
        lambda pw: (f"From: {ANN}\r\nTo: {ALPHA}\r\n\r\nPASSWORD {pw}\r\nSol holds\r\n").encode(),
        "applied",
        ("Sol holds",),
    ),
    Case("no-headers-at-all", lambda pw: b"Sol holds\r\n", "refused", None),
    Case(
        "two-from-addresses", plain("Sol holds\n", frm=f"{ANN}, bob@example.org"), "refused", None
    ),
    Case(
        "only-attachments",
        lambda pw: mail(
            'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="a"\r\n',
            "--a\nContent-Type: application/pdf\nContent-Transfer-Encoding: base64\n\n"
            + b64("%PDF-1.4 binary")
            + "\n--a--\n",
        ),
        "refused",
        ("there is no text part",),
    ),
    Case(
        "text-and-binary-attachment",
        lambda pw: mail(
            'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="a"\r\n',
            f"--a\nContent-Type: text/plain\n\nPASSWORD {pw}\nSol holds\n--a\nContent-Type: "
            "image/png\nContent-Transfer-Encoding: base64\n\n"
            + base64.b64encode(bytes(range(256))).decode()
            + "\n--a--\n",
        ),
        "applied",
        ("1 attachment(s) or non-text part(s) ignored", "Sol holds"),
    ),
    Case(
        "malformed-mime-no-boundary",
        lambda pw: mail(
            "MIME-Version: 1.0\r\nContent-Type: multipart/mixed\r\n", f"PASSWORD {pw}\nSol holds\n"
        ),
        "applied",
        ("has no parts; it was read as text", "Sol holds"),
    ),
    Case(
        "auto-replied",
        plain("I am on holiday\n", extra="Auto-Submitted: auto-replied\r\n"),
        "ignored",
        None,
    ),
    Case(
        "precedence-bulk", plain("Out of office\n", extra="Precedence: bulk\r\n"), "ignored", None
    ),
    Case("x-autoreply", plain("Away\n", extra="X-Autoreply: yes\r\n"), "ignored", None),
    Case(
        "list-traffic", plain("Digest\n", extra="List-Id: <games.example.org>\r\n"), "ignored", None
    ),
    Case(
        "auto-submitted-no-is-a-person",
        plain("PASSWORD PW\nSol holds\n", extra="Auto-Submitted: no\r\n"),
        "applied",
        ("Sol holds",),
    ),
    Case(
        "bounce-empty-sender",
        lambda pw: mail(
            REPORT,
            "--r\nContent-Type: text/plain\n\nDelivery failed\n--r\nContent-Type: "
            "text/rfc822-headers\n\nMessage-ID: <nothing@judge.example>\n--r--\n",
            frm="MAILER-DAEMON@mx.example",
        ),
        "bounce",
        None,
        mail_from="",
    ),
    Case(
        "bounce-garbage",
        lambda pw: b"From: MAILER-DAEMON@mx.example\r\n\r\n\x00\xff\xfe",
        "bounce",
        None,
        mail_from="MAILER-DAEMON@mx.example",
    ),
    Case(
        "our-own-mail-looped",
        plain("Your mail was received\n", extra="X-Pbem-Server: judge.example\r\n"),
        "ignored",
        None,
    ),
    Case("nested-100-levels", nested(100), "refused", ("nests more than",)),
    Case("20000-parts", many_parts(20_000), "refused", ("more than 500 parts",)),
    Case(
        "5000-addresses-in-to",
        plain("PASSWORD PW\nSol holds\n", to=", ".join(f"p{i}@example.org" for i in range(5000))),
        "applied",
        ("Sol holds",),
    ),
    Case(
        "not-a-player",
        plain("Sol holds\n", frm="stranger@example.net"),
        "refused",
        ("stranger@example.net is not a player of alpha",),
        mail_from="stranger@example.net",
    ),
]


@pytest.fixture(scope="module")
def corpus_judge(tmp_path_factory):
    # one deadline a year, in June: the clock moves a day a case, and no turn runs
    yearly = GAMES_YAML.replace('deadline: "50 0,12 * * *"', 'deadline: "0 12 1 6 *"')
    harness = Harness(tmp_path_factory.mktemp("corpus"), yearly)
    try:
        yield harness
    finally:
        harness.close()


def test_corpus_is_big_enough():
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_corpus(corpus_judge, case):
    judge = corpus_judge
    judge.clock.advance(days=1)  # past the daily cap on replies to one address
    raw = case.raw(judge.password(ANN)) if callable(case.raw) else case.raw
    before = {r.id for r in judge.app.store.mails()}
    started = time.monotonic()
    code, _ = judge.send_raw(raw, mail_from=case.mail_from, rcpt=case.rcpt)
    assert code == 250
    assert time.monotonic() - started < 15
    (row,) = [r for r in judge.app.store.mails() if r.id not in before]
    # stored byte for byte as received (the client ends the data with CRLF)
    assert row.raw == (raw if raw.endswith(b"\r\n") else raw + b"\r\n")
    assert row.state == case.state, (row.state, row.note, row.error)
    replies = [r for r in judge.app.store.outbox_rows() if r.message_id and _for(judge, r, row)]
    if case.reply is None:
        assert not replies, [r.to_addr for r in replies]
        return
    assert len(replies) == 1
    body = _body(replies[0].message)
    for text in case.reply:
        assert text in body, body
    understood = body.split("Understood:")[-1].split("\n\n")[0].split("These are now")[0]
    for text in case.absent:  # never read as an order of this mail
        assert text not in understood, body


def _for(judge: Harness, outbox_row: Any, inbox_row: Any) -> bool:
    from sqlalchemy import select

    from pbem.store.schema import outbox

    with judge.app.store.tx() as conn:
        inbox_id = conn.execute(
            select(outbox.c.inbox_id).where(outbox.c.id == outbox_row.id)
        ).scalar_one()
    return inbox_id == inbox_row.id


def _body(raw: bytes) -> str:
    import email
    import email.policy

    return (
        email.message_from_bytes(raw, policy=email.policy.default)
        .get_body(("plain",))
        .get_content()
    )
