"""A server that takes orders only from mail its relay verified (DKIM or
DMARC), read from the topmost Authentication-Results header."""

from __future__ import annotations

import pytest

from pbem.mail.auth import relay_verified
from tests.mailharness import GAMES_YAML, Harness

ANN = "ann@example.org"
ALPHA = "alpha@judge.example"
PASS = "mx.judge.example; dkim=pass header.d=example.org; spf=pass smtp.mailfrom=example.org"


@pytest.fixture
def strict(tmp_path):
    text = GAMES_YAML.replace(
        "  timezone: Europe/Oslo\n  storage",
        "  trusted_relay: mx.judge.example\n  timezone: Europe/Oslo\n  storage",
        1,
    )
    harness = Harness(tmp_path, text)
    try:
        yield harness
    finally:
        harness.close()


def send(judge, headers: list[tuple[str, str]]) -> str:
    pw = judge.password(ANN)
    raw = "".join(f"{k}: {v}\r\n" for k, v in headers)
    raw += f"From: {ANN}\r\nTo: {ALPHA}\r\nSubject: orders\r\n\r\nPASSWORD {pw}\r\nSol holds\r\n"
    judge.clock.advance(minutes=1)
    judge.send_raw(raw.encode(), mail_from=ANN)
    return judge.last(ANN)


def test_verified_mail_is_applied(strict):
    assert "These are now your orders" in send(strict, [("Authentication-Results", PASS)])


def test_a_long_verdict_is_read_whole(strict):
    """The relay's header is read from the mail as it came, however long
    (folded over many lines), not from a shortened copy."""
    others = "".join(f";\r\n  spf=none smtp.helo=relay{i}.example.net" for i in range(40))
    header = f"mx.judge.example{others};\r\n  dkim=pass header.d=example.org"
    assert len(header) > 1500
    assert "These are now your orders" in send(strict, [("Authentication-Results", header)])


@pytest.mark.parametrize(
    "headers",
    [
        [],
        [("Authentication-Results", "mx.judge.example; dkim=fail header.d=example.org")],
        [("Authentication-Results", "mx.elsewhere.example; dkim=pass header.d=example.org")],
        [("Authentication-Results", "mx.judge.example; dkim=pass header.d=evil.example")],
        # a forged header carried inside the mail, below the relay's own verdict
        [
            ("Authentication-Results", "mx.judge.example; dkim=fail header.d=example.org"),
            ("Authentication-Results", PASS),
        ],
    ],
    ids=["none", "fail", "other-relay", "other-signer", "forged-below"],
)
def test_unverified_mail_is_refused(strict, headers):
    body = send(strict, headers)
    assert "nothing was applied: this server takes orders only from mail that its relay" in body
    assert "These are now your orders" not in body


@pytest.mark.parametrize(
    "header, ok",
    [
        ("mx.judge.example; dmarc=pass header.from=example.org", True),
        # relaxed alignment: the same organisational domain (Public Suffix List)
        ("MX.Judge.Example 1; dkim=pass header.i=@mail.example.org", True),
        ("mx.judge.example; dkim=pass header.d=example.org.evil.example", False),
        ("mx.judge.example (our relay); dkim=pass (2048-bit key) header.d=example.org", True),
        (
            "mx.judge.example; dkim=fail header.d=example.org; spf=pass smtp.mailfrom=example.org",
            False,
        ),
        ("mx.judge.example; dmarc=pass header.from=evil.example", False),  # about another From
        ("mx.judge.example; dkim=pass header.d=example.org; dmarc=fail", True),
        ("mx.judge.example; dkim=pass header.d=co.uk", False),
        ("mx.judge.example; dkim=pass header.d=example.org;;;; (((", False),  # not RFC 8601
        ("mx.judge.example; dkim=pass header.i=@example.org", True),
        ("mx.judge.example; dkim=pass header.d=org", False),  # a bare TLD vouches for nothing
        ("mx.judge.example", False),
        ("", False),
    ],
)
def test_relay_verified(header, ok):
    assert relay_verified(header, "mx.judge.example", ANN) is ok
