"""A server that takes orders only from mail its relay verified (DKIM or
DMARC), read from the topmost Authentication-Results header, and only on
mail that came over a connection from the relay's addresses."""

from __future__ import annotations

import ipaddress
import smtplib

import pytest

from pbem.config import load_config
from pbem.config.model import ConfigError, TrustedRelay
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
        ("MX.Judge.Example 1; dkim=pass header.d=mail.example.org", True),
        # a result that does not say which domain it is about vouches for none
        ("mx.judge.example; dmarc=pass", False),
        ("mx.judge.example; dmarc=pass policy.dmarc=reject", False),
        ("mx.judge.example; dkim=pass", False),
        ("mx.judge.example; dkim=pass header.i=@example.org", False),  # no header.d
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
        ("mx.judge.example; dkim=pass header.i=@example.org header.d=example.org", True),
        ("mx.judge.example; dkim=pass header.d=org", False),  # a bare TLD vouches for nothing
        ("mx.judge.example", False),
        ("", False),
    ],
)
def test_relay_verified(header, ok):
    assert relay_verified(header, "mx.judge.example", ANN) is ok


def test_a_relay_checks_the_connection_too():
    relay = TrustedRelay("mx.judge.example", (ipaddress.ip_network("10.0.0.0/8"),), False)
    header = "mx.judge.example; dmarc=pass header.from=example.org"
    assert relay_verified(header, relay, ANN, "10.1.2.3")
    for peer in ("127.0.0.1", "11.0.0.1", "unix:", None, "nonsense"):
        assert not relay_verified(header, relay, ANN, peer), peer
    assert relay_verified(header, TrustedRelay("mx.judge.example"), ANN, "unix:")
    assert relay_verified(header, TrustedRelay("mx.judge.example"), ANN, "::1")


# -- through a real server: the relay known by its addresses ----------------------------------

RELAY_AT = "127.0.0.2"  # Linux answers every 127.x.x.x: the relay's own address, here


@pytest.fixture
def by_address(tmp_path):
    text = GAMES_YAML.replace(
        "  timezone: Europe/Oslo\n  storage",
        f"  trusted_relay: {{authserv_id: mx.judge.example, addresses: [{RELAY_AT}, 10.0.0.0/8]}}\n"
        "  timezone: Europe/Oslo\n  storage",
        1,
    )
    harness = Harness(tmp_path, text)
    try:
        yield harness
    finally:
        harness.close()


def send_from(judge, source: str, header: str) -> str:
    """The same mail but for its Message-ID (the same bytes twice would be
    one mail), by a real SMTP session from ``source``: the receipt."""
    pw = judge.password(ANN)
    raw = (
        f"Authentication-Results: {header}\r\nFrom: {ANN}\r\nTo: {ALPHA}\r\n"
        f"Subject: orders\r\nMessage-ID: <{source}.{len(judge.app.store.mails())}@example.org>"
        f"\r\n\r\nPASSWORD {pw}\r\nSol holds\r\n"
    )
    judge.clock.advance(minutes=1)
    with smtplib.SMTP("127.0.0.1", judge.port, timeout=10, source_address=(source, 0)) as s:
        s.sendmail(ANN, [ALPHA], raw.encode())
    judge.settle()
    return judge.last(ANN)


REFUSED = "nothing was applied: this server takes orders only from mail that its relay"


def test_a_verdict_counts_only_from_the_relays_address(by_address):
    """Any client that reaches the port can write the relay's header: the
    same mail counts from the relay's address and not from another."""
    judge = by_address
    body = send_from(judge, "127.0.0.1", PASS)
    assert REFUSED in body and "These are now your orders" not in body
    assert judge.app.store.mails()[-1].peer == "127.0.0.1"
    body = send_from(judge, RELAY_AT, PASS)
    assert "These are now your orders" in body
    assert judge.app.store.mails()[-1].peer == RELAY_AT


def test_dmarc_pass_without_header_from_is_no_pass(by_address):
    judge = by_address
    body = send_from(judge, RELAY_AT, "mx.judge.example; dmarc=pass; spf=pass")
    assert REFUSED in body
    body = send_from(judge, RELAY_AT, "mx.judge.example; dmarc=pass header.from=example.org")
    assert "These are now your orders" in body


def test_a_relay_named_only_is_a_relay_on_this_machine(strict):
    """The short form (only the authserv-id) trusts loopback and the LMTP
    socket: the relay on the same machine, as docs/deploy.md sets it up."""
    relay = strict.app.config.server.trusted_relay
    assert str(relay) == "mx.judge.example" and relay.socket
    assert relay.sent("127.0.0.1") and relay.sent("::1") and relay.sent("unix:")
    assert not relay.sent("192.0.2.1") and not relay.sent(None)


@pytest.mark.parametrize(
    "value, problem",
    [
        ("{authserv_id: mx.judge.example}", "server trusted_relay addresses: the addresses"),
        ("{authserv_id: mx.judge.example, addresses: []}", "trusted_relay addresses: the"),
        (
            "{authserv_id: mx.judge.example, addresses: [10.0.0.300]}",
            "'10.0.0.300' is not an IP address or network",
        ),
        ("{addresses: [127.0.0.1]}", "server trusted_relay authserv_id is missing"),
        ("{authserv_id: mx, addresses: [127.0.0.1]}", "authserv_id 'mx' is not valid"),
        ("{authserv_id: mx.judge.example, addresses: ['::1'], port: 25}", "unknown key 'port'"),
    ],
)
def test_pbem_check_names_a_bad_relay(tmp_path, value, problem):
    text = GAMES_YAML.replace(
        "  timezone: Europe/Oslo\n  storage",
        f"  trusted_relay: {value}\n  timezone: Europe/Oslo\n  storage",
        1,
    )
    (tmp_path / "games.yaml").write_text(text)
    with pytest.raises(ConfigError) as got:
        load_config(tmp_path / "games.yaml")
    assert any(problem in p and "line 4" in p for p in got.value.problems), got.value.problems


def test_a_relays_addresses_are_read(tmp_path):
    text = GAMES_YAML.replace(
        "  timezone: Europe/Oslo\n  storage",
        "  trusted_relay:\n    authserv_id: mx.judge.example\n"
        "    addresses: [10.0.0.0/8, '2001:db8::/32', 192.0.2.7, unix]\n"
        "  timezone: Europe/Oslo\n  storage",
        1,
    )
    (tmp_path / "games.yaml").write_text(text)
    relay = load_config(tmp_path / "games.yaml").server.trusted_relay
    assert relay.socket and [str(n) for n in relay.addresses] == [
        "10.0.0.0/8",
        "2001:db8::/32",
        "192.0.2.7/32",
    ]
    assert relay.sent("10.9.9.9") and relay.sent("2001:db8::1") and not relay.sent("192.0.2.8")
