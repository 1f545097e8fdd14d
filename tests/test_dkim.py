"""DKIM on mail received directly (no relay in front): a game that
requires it takes orders only from mail signed by the From: domain (or a
domain of the same organisation); everything else is refused with a reply
that says why, to the registered address only. Keys are served to dkimpy
through its DNS hook (no network)."""

from __future__ import annotations

import base64
import email
import email.policy
import socket
import threading

import dkim as dkimpy
import dns.message
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rdtypes.ANY.TXT
import dns.rrset
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail import dkim
from tests.mailharness import GAMES_YAML, Harness

ANN = "ann@example.org"
ALPHA = "alpha@judge.example"
BETA = "beta@judge.example"
APPLIED = "These are now your orders"
REFUSED = "nothing was applied: this game takes orders only from mail signed (DKIM)"


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """The suite's own keys: one for example.org (its players' domain),
    one for a stranger's domain; and the DNS records for them."""
    folder = tmp_path_factory.mktemp("keys")
    made = {}
    for name in ("example", "stranger"):
        public = dkim.make_key(folder / f"{name}.key")
        made[name] = ((folder / f"{name}.key").read_bytes(), dkim.txt_value(public).encode())
    records = {
        b"s1._domainkey.example.org.": made["example"][1],
        b"s1._domainkey.mail.example.org.": made["example"][1],
        b"s1._domainkey.evil.example.": made["stranger"][1],
        b"s1._domainkey.org.": made["example"][1],
    }
    return made, records


@pytest.fixture
def served(keys):
    """dkimpy's DNS hook answers from the suite's records; what was asked is kept."""
    asked: list[bytes] = []

    def txt(name: bytes, timeout: float = 5) -> bytes | None:
        asked.append(name)
        return keys[1].get(name)

    dkim.serve_keys(txt)
    try:
        yield asked
    finally:
        dkim.serve_keys(None)


def strict_yaml(where: str = "server") -> str:
    if where == "server":
        return GAMES_YAML.replace(
            "  timezone: Europe/Oslo\n  storage",
            "  dkim: {require: true, nameservers: [127.0.0.1], timeout: 2}\n"
            "  timezone: Europe/Oslo\n  storage",
            1,
        )
    return GAMES_YAML.replace("    map: six\n", "    map: six\n    require_dkim: true\n", 1)


@pytest.fixture
def strict(tmp_path, served):
    harness = Harness(tmp_path, strict_yaml())
    try:
        yield harness
    finally:
        harness.close()


def signed(
    keys, raw: bytes, domain: str = "example.org", key: str = "example", headers=None
) -> bytes:
    include = headers or [b"from", b"to", b"subject", b"message-id"]
    sig = dkimpy.sign(raw, b"s1", domain.encode(), keys[0][key][0], include_headers=include)
    return sig + raw


def orders(judge, sender: str = ANN, to: str = ALPHA, n: int = 1, extra: str = "") -> bytes:
    pw = judge.password(sender, to.split("@")[0]) if "@example.org" in sender else "x"
    return (
        f"From: {sender}\r\nTo: {to}\r\nSubject: orders {n}\r\n"
        f"Message-ID: <o{n}.{id(judge)}@example.org>\r\n{extra}\r\n"
        f"PASSWORD {pw}\r\nSol holds\r\n"
    ).encode()


def send(judge, raw: bytes, mail_from: str = ANN, rcpt=(ALPHA,)) -> str:
    judge.clock.advance(minutes=1)
    code, _ = judge.send_raw(raw, mail_from=mail_from, rcpt=rcpt)
    assert code == 250
    return judge.last(ANN)


def test_signed_mail_is_verified_and_applied(strict, keys, served):
    body = send(strict, signed(keys, orders(strict)))
    assert APPLIED in body
    assert b"s1._domainkey.example.org." in served  # the key was looked up through the hook
    with strict.app.store.tx(write=False) as conn:
        stored = strict.app.store.current_submission(conn, "alpha", strict.game().turn, "ann")
    assert stored is not None and "Sol holds" in stored[1]


def test_a_subdomain_of_the_same_organisation_signs_for_it(strict, keys):
    assert APPLIED in send(strict, signed(keys, orders(strict), domain="mail.example.org"))


def test_tampered_body_is_refused(strict, keys):
    raw = signed(keys, orders(strict)).replace(b"Sol holds", b"Sol x Vega")
    body = send(strict, raw)
    assert REFUSED in body and "its body was changed after it was signed" in body
    assert APPLIED not in body


def test_tampered_signed_header_is_refused(strict, keys):
    raw = signed(keys, orders(strict)).replace(b"Subject: orders 1", b"Subject: orders 2")
    body = send(strict, raw)
    assert REFUSED in body and "a signed header was changed" in body


def test_unsigned_mail_is_refused(strict):
    body = send(strict, orders(strict))
    assert REFUSED in body and "it carries no DKIM signature" in body
    assert "(example.org)" in body


@pytest.mark.parametrize("domain", ["evil.example", "org"])
def test_misaligned_signature_is_refused(strict, keys, served, domain):
    """Signed, and valid, but by another organisation (or by a public
    suffix, which is nobody's): its key is never even looked up."""
    key = "stranger" if domain == "evil.example" else "example"
    body = send(strict, signed(keys, orders(strict), domain=domain, key=key))
    assert REFUSED in body and f"it is signed by {domain}, not by your address's domain" in body
    assert not served


def test_forged_authentication_results_never_count(strict):
    """ACCEPTANCE-MAIL 31: no relay in front, so a header the mail brings
    along proves nothing; our own check finds no signature."""
    forged = "Authentication-Results: judge.example; dkim=pass header.d=example.org; dmarc=pass\r\n"
    body = send(strict, orders(strict, extra=forged))
    assert REFUSED in body and "it carries no DKIM signature" in body


def test_forged_sender_is_never_answered(strict, keys):
    """A forger writes as ann from another envelope address: the refusal
    goes to ann's registered address only."""
    raw = orders(strict).replace(b"Sol holds", b"Sol x Vega")
    body = send(strict, raw, mail_from="mallory@evil.example")
    assert REFUSED in body
    assert not strict.outbox(to="mallory@evil.example")


def test_key_missing_from_the_dns(strict, keys):
    raw = signed(keys, orders(strict)).replace(b"s=s1;", b"s=s9;")
    body = send(strict, raw)
    assert REFUSED in body and "example.org publishes no DKIM key for its signature" in body


def test_dns_failure_is_temporary_not_a_pass(strict, keys):
    def silent(name: bytes, timeout: float = 5) -> bytes | None:
        raise dkim.DnsTrouble("Timeout: the DNS operation timed out")

    dkim.serve_keys(silent)
    body = send(strict, signed(keys, orders(strict)))
    assert REFUSED in body and "a temporary failure of the DNS" in body
    assert "Send the same mail again in a few minutes" in body


def test_game_master_mail_needs_it_too(strict, keys):
    raw = (
        b"From: gm@example.org\r\nTo: alpha@judge.example\r\nSubject: pause\r\n\r\n"
        b"PASSWORD gm-secret\r\nPAUSE\r\n"
    )
    strict.clock.advance(minutes=1)
    strict.send_raw(raw, mail_from="gm@example.org")
    assert REFUSED in strict.last("gm@example.org")
    strict.clock.advance(minutes=1)
    strict.send_raw(signed(keys, raw), mail_from="gm@example.org")
    assert strict.game().status == "paused"


def test_a_game_may_require_it_alone(tmp_path, keys, served):
    """alpha requires DKIM, beta does not: the same unsigned mail is refused
    by one and applied by the other."""
    judge = Harness(tmp_path, strict_yaml("game"))
    try:
        assert REFUSED in send(judge, orders(judge))
        body = send(judge, orders(judge, to=BETA, n=2), rcpt=(BETA,))
        assert APPLIED in body
        assert APPLIED in send(judge, signed(keys, orders(judge, n=3)))
    finally:
        judge.close()


# -- alignment and verdicts, directly ---------------------------------------------------------


@pytest.mark.parametrize(
    "signer, sender, ok",
    [
        ("example.org", "example.org", True),
        ("mail.example.org", "example.org", True),
        ("example.org", "lists.example.org", True),
        ("Example.ORG.", "example.org", True),
        ("example.co.uk", "a.example.co.uk", True),
        ("evil.co.uk", "example.co.uk", False),
        ("co.uk", "example.co.uk", False),
        ("org", "example.org", False),
        ("example.org.evil.example", "example.org", False),
        ("ann.github.io", "bob.github.io", False),  # the list's private part counts too
    ],
)
def test_relaxed_alignment(signer, sender, ok):
    assert dkim.aligned(signer, sender) is ok


def test_several_signatures_one_aligned_passes(keys):
    raw = b"From: ann@example.org\r\nSubject: x\r\n\r\nhello\r\n"
    twice = signed(keys, signed(keys, raw, domain="evil.example", key="stranger"))
    verdict = dkim.verify(twice, "example.org", lambda n, timeout=5: keys[1].get(n))
    assert verdict.passed and verdict.domain == "example.org"


# -- signing what we send --------------------------------------------------------------------


def record_of(output: str) -> bytes:
    return next(line for line in output.splitlines() if line.startswith("v=DKIM1")).encode()


def test_dkim_key_makes_a_key_and_refuses_to_overwrite(tmp_path, capsys):
    from pbem.cli.main import main

    key = tmp_path / "k.key"
    assert (
        main(["dkim-key", "--selector", "s2026", "--domain", "judge.example", "--key", str(key)])
        == 0
    )
    out = capsys.readouterr().out
    assert "s2026._domainkey.judge.example. IN TXT (" in out
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    value = record_of(out)
    assert value.startswith(b"v=DKIM1; k=rsa; p=")
    der = base64.b64decode(value.split(b"p=")[1])
    assert len(der) > 256  # a 2048-bit modulus
    before = key.read_bytes()
    code = main(["dkim-key", "--selector", "s2026", "--domain", "judge.example", "--key", str(key)])
    assert code == 2 and key.read_bytes() == before
    assert "exists and is not overwritten" in capsys.readouterr().err
    assert (
        main(
            [
                "dkim-key",
                "--selector",
                "s2026",
                "--domain",
                "judge.example",
                "--key",
                str(key),
                "--show",
            ]
        )
        == 0
    )
    assert record_of(capsys.readouterr().out) == value


def test_outgoing_mail_is_signed_and_verifies(tmp_path, capsys):
    from pbem.cli.main import main

    key = tmp_path / "var" / "dkim.key"
    main(["dkim-key", "--selector", "s2026", "--domain", "judge.example", "--key", str(key)])
    record = record_of(capsys.readouterr().out)
    text = GAMES_YAML.replace(
        "  timezone: Europe/Oslo\n  storage",
        "  dkim: {key: var/dkim.key, selector: s2026}\n  timezone: Europe/Oslo\n  storage",
        1,
    )
    judge = Harness(tmp_path, text)
    try:
        judge.send(ANN, ALPHA, f"PASSWORD {judge.password(ANN)}\nSol holds\n")
        judge.settle()
    finally:
        judge.close()
    files = sorted((tmp_path / "var" / "mail" / "new").iterdir())
    assert files
    records = {b"s2026._domainkey.judge.example.": record}
    for path in files:
        raw = path.read_bytes()
        assert raw.startswith(b"Return-Path: <bounces+")  # the return path, then the signature
        assert raw.split(b"\r\n", 1)[1].startswith(b"DKIM-Signature: ")
        assert dkimpy.verify(raw, dnsfunc=lambda n, timeout=5: records.get(n)), path.name
        signed_headers = _signed_headers(raw)
        assert {"from", "to", "subject", "date", "message-id"} <= set(signed_headers)
        assert signed_headers.count("from") == 2  # oversigned: no second From can be added
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        for name in ("List-Id", "List-Unsubscribe", "List-Help", "Auto-Submitted", "Precedence"):
            if msg[name] is not None:
                assert name.lower() in signed_headers, (path.name, name)
        tampered = raw.replace(b"Subject: ", b"Subject: X", 1)
        assert not dkimpy.verify(tampered, dnsfunc=lambda n, timeout=5: records.get(n))


def _signed_headers(raw: bytes) -> list[str]:
    msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    tags = dict(
        t.strip().split("=", 1)
        for t in "".join(str(msg["DKIM-Signature"]).split()).split(";")
        if "=" in t
    )
    return [h.lower() for h in tags["h"].split(":")]


def test_signer_signs_list_headers_when_present(keys):
    """The headers mailing lists add are in the signature when a mail has them."""
    raw = (
        b"From: judge@judge.example\r\nTo: ann@example.org\r\nSubject: report\r\n"
        b"List-Id: <alpha.judge.example>\r\nList-Unsubscribe: <mailto:u@judge.example>\r\n"
        b"List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\nAuto-Submitted: auto-generated\r\n"
        b"Precedence: list\r\nX-Other: no\r\n\r\nbody\r\n"
    )
    out = dkim.Signer(keys[0]["example"][0], "s1", "example.org")(raw)
    names = _signed_headers(out)
    for name in (
        "list-id",
        "list-unsubscribe",
        "list-unsubscribe-post",
        "auto-submitted",
        "precedence",
    ):
        assert name in names
    assert "x-other" not in names
    assert dkimpy.verify(out, dnsfunc=lambda n, timeout=5: keys[1].get(n))


def test_unreadable_key_sends_unsigned(tmp_path, caplog):
    bad = tmp_path / "bad.key"
    bad.write_text("not a key")
    sign = dkim.signer(bad, "s1", "judge.example")
    assert sign(b"From: a@b.example\r\n\r\nx\r\n") == b"From: a@b.example\r\n\r\nx\r\n"
    assert "cannot read the signing key" in caplog.text


# -- the resolver, against a DNS server on 127.0.0.1 -----------------------------------------


class LoopbackDns:
    """A tiny DNS server on 127.0.0.1 (dnspython's messages over UDP)
    answering TXT questions from ``records``; ``answer=False``: it hears
    and never answers (a DNS that is down)."""

    def __init__(self, records: dict[str, bytes], answer: bool = True) -> None:
        self.records, self.answer = records, answer
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.questions: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                data, peer = self.sock.recvfrom(4096)
            except OSError:
                return
            query = dns.message.from_wire(data)
            name = query.question[0].name.to_text()
            self.questions.append(name)
            if not self.answer:
                continue
            reply = dns.message.make_response(query)
            if name in self.records:
                text = self.records[name]
                chunks = [text[i : i + 255] for i in range(0, len(text), 255)]
                rdata = dns.rdtypes.ANY.TXT.TXT(dns.rdataclass.IN, dns.rdatatype.TXT, chunks)
                rrset = dns.rrset.from_rdata(name, 300, rdata)
                reply.answer.append(rrset)
            else:
                reply.set_rcode(dns.rcode.NXDOMAIN)
            self.sock.sendto(reply.to_wire(), peer)

    def close(self) -> None:
        self.sock.close()


def test_keys_come_through_the_named_name_server(keys):
    """The configured name server is asked (no other), a 2048-bit key's
    record in several strings is put together, the answer is cached, and
    a missing name is no key."""
    record = keys[1][b"s1._domainkey.example.org."]
    server = LoopbackDns({"s1._domainkey.example.org.": record})
    try:
        lookup = dkim.KeyLookup(("127.0.0.1",), 2.0)
        lookup.resolver.port = server.port
        raw = signed(keys, b"From: ann@example.org\r\nSubject: x\r\n\r\nhello\r\n")
        assert dkim.verify(raw, "example.org", lookup).passed
        assert dkim.verify(raw, "example.org", lookup).passed
        assert server.questions == ["s1._domainkey.example.org."]  # the second from the cache
        assert lookup(b"s9._domainkey.example.org.") is None
    finally:
        server.close()


def test_a_silent_name_server_is_a_temporary_failure(keys):
    server = LoopbackDns({}, answer=False)
    try:
        lookup = dkim.KeyLookup(("127.0.0.1",), 0.5)
        lookup.resolver.port = server.port
        raw = signed(keys, b"From: ann@example.org\r\nSubject: x\r\n\r\nhello\r\n")
        verdict = dkim.verify(raw, "example.org", lookup)
        assert verdict.result == "temperror" and not verdict.passed
        assert server.questions
    finally:
        server.close()


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**4096), st.integers(min_value=-1, max_value=600))
def test_whole_numbers_convert_as_dkimpy_did(n, length):
    """Our conversions in dkimpy's RSA give what its byte-at-a-time ones
    gave, for every number that fits the length asked for."""
    import dkim.crypto as dkim_crypto

    expected = bytearray()
    m = n
    while length < 0 or len(expected) < length:
        expected.append(m & 0xFF)
        m >>= 8
        if length < 0 and m == 0:
            break
    expected.reverse()
    if length >= 0 and n >= 256**length:
        return  # too big for the length: never asked of it (RSA numbers are below the modulus)
    assert dkim_crypto.int2str(n, length) == bytes(expected)
    assert dkim_crypto.str2int(bytes(expected)) == n


@settings(max_examples=40, deadline=None)
@given(st.binary(min_size=1, max_size=200), st.integers(min_value=0, max_value=255))
def test_openssl_checks_rsa_as_dkimpy_does(keys, body, flip):
    """The RSA step done by OpenSSL agrees with dkimpy's own arithmetic, on
    good signatures and on signatures with one byte changed."""
    import hashlib

    key = dkimpy.crypto.parse_pem_private_key(keys[0]["example"][0])
    public = {"modulus": key["modulus"], "publicExponent": key["publicExponent"]}
    digest = hashlib.sha256(body)
    good = dkimpy.crypto.RSASSA_PKCS1_v1_5_sign(digest, key)
    bad = bytearray(good)
    bad[flip % len(bad)] ^= 0x5A
    for signature in (good, bytes(bad)):
        ours = dkim._openssl_verify(hashlib.sha256(body), signature, public)
        theirs = dkim._python_verify(hashlib.sha256(body), signature, public)
        assert ours == theirs == (signature == good)
