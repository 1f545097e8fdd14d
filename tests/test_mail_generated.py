"""Generated mails (hypothesis): processing never raises and every stored
mail ends in exactly one final state."""

from __future__ import annotations

import hashlib
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.inbox import Processor
from pbem.lifecycle.opening import open_app
from pbem.turns.clock import FakeClock
from tests.mailharness import GAMES_YAML

FINAL = {"applied", "refused", "ignored", "bounce", "duplicate"}
COUNTER = itertools.count()


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    root = tmp_path_factory.mktemp("generated")
    (root / "games.yaml").write_text(GAMES_YAML)
    application = open_app(root / "games.yaml", clock=FakeClock())
    yield application
    application.store.close()


header_names = st.sampled_from(
    [
        "From",
        "To",
        "Subject",
        "Content-Type",
        "Content-Transfer-Encoding",
        "MIME-Version",
        "Auto-Submitted",
        "Precedence",
        "Message-ID",
        "References",
        "In-Reply-To",
        "X-Foo",
    ]
)
header_values = st.one_of(
    st.sampled_from(
        [
            "ann@example.org",
            "Ann <ann@example.org>",
            "=?utf-8?b?w6k=?= <bob@example.org>",
            "=?bogus?q?x?=",
            "<>",
            "text/plain; charset=x-unknown",
            "text/html",
            'multipart/mixed; boundary="b"',
            "multipart/report",
            "base64",
            "quoted-printable",
            "auto-replied",
            "no",
            "bulk",
            "<id@x>",
            "",
            "\x00",
            "a" * 3000,
        ]
    ),
    st.text(max_size=80).map(lambda t: t.replace("\r", " ").replace("\n", " ")),
)
body_lines = st.one_of(
    st.sampled_from(
        [
            "Sol holds",
            "Sol x Alnitak",
            "PASSWORD nope",
            "GAME alpha",
            "GAME zeta",
            "STATUS",
            "HELP",
            "LIST",
            "WATCH alpha",
            "PRESS ALL",
            "ENDPRESS",
            "READY",
            "RESIGN",
            "NEW TOKEN",
            "> Sol holds",
            "-- ",
            "END",
            "--b",
            "--b--",
            "Content-Type: text/plain",
            "vote surrender",
            "=C3=A9",
            "",
        ]
    ),
    st.text(max_size=60).map(lambda t: t.replace("\r", "")),
)


@st.composite
def mails(draw) -> bytes:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=2000))
    headers = draw(st.lists(st.tuples(header_names, header_values), max_size=8))
    body = "\r\n".join(draw(st.lists(body_lines, max_size=20)))
    head = "".join(f"{k}: {v}\r\n" for k, v in headers)
    raw = (head + "\r\n" + body).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        raw = raw.replace(b"e", draw(st.sampled_from([b"\xe9", b"\x00", b"e\r", b"e"])))
    return raw


def generated(examples: int):
    """The test's settings and its mails: ``examples`` of them, the same
    ones every run."""

    def wrap(test):
        return settings(
            max_examples=examples,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )(
            given(
                raw=mails(),
                sender=st.sampled_from(
                    ["", "ann@example.org", "MAILER-DAEMON@x.org", "stranger@example.net"]
                ),
                rcpt=st.sampled_from(
                    [
                        ("alpha@judge.example",),
                        ("judge@judge.example",),
                        ("alpha+ann.aaaa@judge.example", "beta@judge.example"),
                    ]
                ),
            )(test)
        )

    return wrap


# `make test` processes 300 generated mails; the long run (CI), 1,500
@generated(300)
def test_every_generated_mail_reaches_one_final_state(app, raw, sender, rcpt):
    one_final_state(app, raw, sender, rcpt)


@pytest.mark.long
@generated(1500)
def test_every_one_of_more_generated_mails_reaches_one_final_state(app, raw, sender, rcpt):
    one_final_state(app, raw, sender, rcpt)


def one_final_state(app, raw: bytes, sender: str, rcpt: tuple[str, ...]) -> None:
    raw = raw + b"\r\n" + str(next(COUNTER)).encode()  # distinct bytes, distinct rows
    ((inbox_id, new),) = app.store.store_mails(
        [
            {
                "received_at": app.clock.now(),
                "mail_from": sender,
                "rcpt_to": list(rcpt),
                "raw": raw,
                "sha256": hashlib.sha256(raw).hexdigest(),
                "message_id": None,
            }
        ]
    )
    assert new
    Processor(app).run_pending()
    row = app.store.mail(None, inbox_id)
    assert row.state in FINAL, (row.state, row.error)
    assert row.attempts == 0, row.error
