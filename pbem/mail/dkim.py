"""DKIM (RFC 6376) by dkimpy: verifying the signatures of mail received
directly (no relay in front), and signing the mail we send.

Verifying. A mail counts as signed by its sender's domain when one of its
DKIM signatures verifies and that signature's domain (d=) is aligned with
the From: domain: relaxed alignment as DMARC defines it (RFC 7489 3.1.1),
both have the same organisational domain, the registrable name just below
a public suffix, looked up in the Public Suffix List (publicsuffixlist).
So mail.example.org signs for example.org and the other way round, but
evil.co.uk never for example.co.uk, and a public suffix (org, co.uk,
github.io) signs for nobody. Keys are looked up in the DNS through the name
servers games.yaml names (dnspython, with a timeout, answers cached for
their TTL); a DNS that does not answer is a temporary failure, never a pass.
Only signatures whose domain is aligned are checked at all (a signature of
another domain could prove nothing), at most MAX_SIGNATURES of them.

Signing. With a key configured, every mail sent gets a DKIM-Signature
(rsa-sha256, relaxed/simple) over the headers that say who it is from, what
it is and where it belongs (From, To, Subject, Date, Message-ID, the reply
headers, MIME headers, the List-* headers, Auto-Submitted, Precedence),
each present one signed once more than it appears, so no second copy can be
added on the way. ``make_key`` writes a new key for ``pbem dkim-key``.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import dkim as dkimpy
import dkim.crypto as dkim_crypto
import dns.exception
import dns.resolver
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed
from dkim.crypto import UnparsableKeyError, parse_pem_private_key
from publicsuffixlist import PublicSuffixList

from pbem.collector import held_off

log = logging.getLogger("pbem.dkim")
_QUIET = logging.getLogger("pbem.dkim.verify")  # dkimpy's own complaints: the verdict says it

MAX_SIGNATURES = 5  # aligned signatures checked in one mail; more prove nothing more
KEY_BITS = 2048
SIGNED = (
    "from",
    "sender",
    "reply-to",
    "to",
    "cc",
    "subject",
    "date",
    "message-id",
    "in-reply-to",
    "references",
    "mime-version",
    "content-type",
    "content-transfer-encoding",
    "list-id",
    "list-help",
    "list-unsubscribe",
    "list-unsubscribe-post",
    "list-post",
    "list-owner",
    "list-archive",
    "auto-submitted",
    "precedence",
)

DnsFunc = Callable[..., "bytes | None"]


class DnsTrouble(Exception):
    """The DNS gave no answer now (a timeout, no server answered): try later."""


@dataclass(frozen=True)
class Verdict:
    """What a mail's DKIM signatures show about its From: domain."""

    result: str  # pass, fail, none (no signature), misaligned, temperror
    domain: str = ""  # the signing domain the result is about
    why: str = ""  # what went wrong, in words for the sender

    @property
    def passed(self) -> bool:
        return self.result == "pass"


# -- alignment ---------------------------------------------------------------------------


@cache
def _suffixes() -> PublicSuffixList:
    return PublicSuffixList()  # the list the package ships (ICANN and private parts)


@lru_cache(maxsize=4096)
def organisational(domain: str) -> str | None:
    """The registrable domain ``domain`` belongs to (example.org for
    mail.example.org; example.co.uk for a.example.co.uk), None for a
    public suffix itself or a name that is not a domain."""
    name = domain.strip().rstrip(".").lower()
    if not name or ".." in name:
        return None
    return _suffixes().privatesuffix(name)


def aligned(signer: str, from_domain: str) -> bool:
    """Relaxed alignment: the same organisational domain."""
    org = organisational(from_domain)
    return org is not None and organisational(signer) == org


# -- key look-ups ---------------------------------------------------------------------------


class KeyLookup:
    """dkimpy's DNS hook: TXT records through the given name servers (the
    system's when none are given), answers cached for their TTL. No record
    is None (a missing key); no answer at all raises DnsTrouble."""

    def __init__(self, nameservers: tuple[str, ...], timeout: float) -> None:
        self.timeout = timeout
        self.problem = ""
        try:
            self.resolver = dns.resolver.Resolver(configure=not nameservers)
        except dns.exception.DNSException as exc:  # no /etc/resolv.conf to read
            self.resolver = dns.resolver.Resolver(configure=False)
            self.problem = f"no name servers: {exc}"
        if nameservers:
            self.resolver.nameservers = list(nameservers)
        self.resolver.timeout = timeout
        self.resolver.lifetime = timeout
        self.resolver.cache = dns.resolver.LRUCache(4096)

    def __call__(self, name: bytes, timeout: float = 5) -> bytes | None:
        if self.problem:
            raise DnsTrouble(self.problem)
        try:
            answer = self.resolver.resolve(
                name.decode("ascii", "replace"), "TXT", lifetime=self.timeout, search=False
            )
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return None
        except dns.exception.DNSException as exc:
            raise DnsTrouble(f"{type(exc).__name__}: {exc}") from exc
        for record in answer:
            return b"".join(record.strings)
        return None


_served: DnsFunc | None = None  # keys served by a test or a benchmark, instead of the DNS


def serve_keys(dnsfunc: DnsFunc | None) -> None:
    """Answer key look-ups with ``dnsfunc`` (name -> TXT record or None)
    instead of the DNS, in this process; None: the DNS again. For tests and
    benchmarks, which have no network."""
    global _served
    _served = dnsfunc


@lru_cache(maxsize=8)
def _lookup(nameservers: tuple[str, ...], timeout: float) -> KeyLookup:
    return KeyLookup(nameservers, timeout)


def lookup(nameservers: tuple[str, ...], timeout: float) -> DnsFunc:
    """The DNS hook for these settings (one per process, its cache shared)."""
    return _served or _lookup(nameservers, timeout)


# -- verifying ---------------------------------------------------------------------------------


_D_TAG = re.compile(rb"(?:^|;)\s*d\s*=\s*([^;]*)")


def signing_domains(message: dkimpy.DKIM) -> list[str | None]:
    """Each DKIM-Signature's d=, top first (None where there is none), read
    quickly to choose which to check; dkimpy reads each one it checks
    itself, and a pass counts only for the domain it read (``_one``)."""
    out: list[str | None] = []
    for name, value in message.headers:
        if name.lower() != b"dkim-signature":
            continue
        found = _D_TAG.search(value)
        d = b"".join(found.group(1).split()) if found else b""
        out.append(d.decode("ascii", "replace").lower() or None)
    return out


class _Message(dkimpy.DKIM):
    """dkimpy's verifier, its keys parsed once: a key record read again
    (the same name, the same text) is not parsed again for every mail."""

    def verify_sig(self, sig: Any, include_headers: Any, sig_header: Any, dnsfunc: Any) -> Any:
        name = sig[b"s"] + b"._domainkey." + sig[b"d"] + b"."
        record = dnsfunc(name, timeout=self.timeout)  # DnsTrouble goes up: no verdict now
        try:
            self.pk, self.keysize, self.ktag, self.seqtlsrpt = _parsed_key(name, record)
        except (dkimpy.KeyFormatError, binascii.Error):
            return False
        return self.verify_sig_process(sig, include_headers, sig_header, dnsfunc)


@lru_cache(maxsize=1024)
def _parsed_key(name: bytes, record: bytes | None) -> tuple[Any, ...]:
    return tuple(dkimpy.evaluate_pk(name, record))


def _whole_numbers() -> None:
    """dkimpy's RSA turns numbers into bytes and back one byte at a time
    (a 2,048-bit number shifted 256 times, for every signature); Python
    does the same conversion at once. Same results for every number RSA
    gives them (below the modulus, so within the length asked for)."""

    def int2str(n: int, length: int = -1) -> bytes:
        assert n >= 0
        return n.to_bytes(max(1, (n.bit_length() + 7) // 8) if length < 0 else length, "big")

    def str2int(s: bytes) -> int:
        return int.from_bytes(bytes(s), "big")

    dkim_crypto.int2str = int2str
    dkim_crypto.str2int = str2int


_whole_numbers()


@lru_cache(maxsize=1024)
def _rsa_key(modulus: int, exponent: int) -> rsa.RSAPublicKey:
    return rsa.RSAPublicNumbers(exponent, modulus).public_key()


def _openssl_verify(digest: Any, signature: bytes, public_key: dict) -> bool:
    """RFC 8017's RSASSA-PKCS1-v1_5 check of a signed digest, done by
    OpenSSL (through cryptography) instead of dkimpy's Python arithmetic:
    the same answer, a tenth of the time. dkimpy hands over the hash object
    of the signed headers and its key as numbers."""
    algorithm = _HASHES.get(digest.name.lower())
    if algorithm is None:  # a hash dkimpy knows and OpenSSL is not asked for
        return _python_verify(digest, signature, public_key)
    key = _rsa_key(public_key["modulus"], public_key["publicExponent"])
    try:
        key.verify(signature, digest.digest(), padding.PKCS1v15(), Prehashed(algorithm))
    except (InvalidSignature, ValueError):
        return False
    return True


_HASHES = {"sha256": hashes.SHA256(), "sha1": hashes.SHA1()}
_python_verify = dkimpy.RSASSA_PKCS1_v1_5_verify
dkimpy.RSASSA_PKCS1_v1_5_verify = _openssl_verify


def verify(raw: bytes, from_domain: str, dnsfunc: DnsFunc) -> Verdict:
    """The verdict of a mail's signatures on its From: domain."""
    try:
        message = _Message(raw, logger=_QUIET, minkey=1024)
    except Exception as exc:  # dkimpy cannot read the mail at all
        return Verdict("fail", why=f"the mail could not be read for DKIM ({exc})")
    domains = signing_domains(message)
    if not domains:
        return Verdict("none", why="it carries no DKIM signature")
    candidates = [i for i, d in enumerate(domains) if d and aligned(d, from_domain)]
    if not candidates:
        others = ", ".join(sorted({d for d in domains if d})) or "an unreadable domain"
        return Verdict(
            "misaligned",
            others,
            f"it is signed by {others}, not by your address's domain ({from_domain})",
        )
    verdicts = []
    for index in candidates[:MAX_SIGNATURES]:
        verdict = _one(message, index, domains[index] or "", dnsfunc)
        if verdict.passed:
            return verdict
        verdicts.append(verdict)
    temporary = [v for v in verdicts if v.result == "temperror"]
    return temporary[0] if temporary else verdicts[0]


def _one(message: _Message, index: int, domain: str, dnsfunc: DnsFunc) -> Verdict:
    """One signature, checked: pass, fail (with why) or temperror."""
    asked: list[bytes | None] = []

    def remembering(name: bytes, timeout: float = 5) -> bytes | None:
        asked.append(answer := dnsfunc(name, timeout=timeout))
        return answer

    try:
        ok = message.verify(idx=index, dnsfunc=remembering)
    except DnsTrouble as exc:
        return Verdict("temperror", domain, f"{domain}'s DKIM key could not be looked up ({exc})")
    except dkimpy.ValidationError as exc:
        if "body hash" in str(exc):
            return Verdict("fail", domain, "its body was changed after it was signed")
        return Verdict("fail", domain, f"its signature is not valid ({exc})")
    except dkimpy.DKIMException as exc:
        return Verdict("fail", domain, f"its signature cannot be checked ({exc})")
    if ok and (message.domain or b"").decode("ascii", "replace").lower() == domain:
        return Verdict("pass", domain)
    if asked and not asked[-1]:
        return Verdict("fail", domain, f"{domain} publishes no DKIM key for its signature")
    return Verdict(
        "fail", domain, "its signature does not match (a signed header was changed after signing)"
    )


class Later:
    """A mail's verdict, worked out the first time it is asked for (a mail
    to several games is verified once; a mail that needs no verdict never)."""

    def __init__(self, raw: bytes, from_addr: str, dnsfunc: Callable[[], DnsFunc]) -> None:
        self.raw = raw
        self.from_domain = from_addr.rpartition("@")[2].lower()
        self.dnsfunc = dnsfunc
        self._verdict: Verdict | None = None

    def __call__(self) -> Verdict:
        if self._verdict is None:
            # dkimpy makes thousands of short-lived objects a mail and no
            # cycles; the collector, woken by them, would scan the worker's
            # whole long-lived heap in the middle (a third of the time it takes)
            with held_off():
                verdict = verify(self.raw, self.from_domain, self.dnsfunc())
            log.debug("DKIM for %s: %s %s", self.from_domain, verdict.result, verdict.why)
            self._verdict = verdict
        return self._verdict


# -- signing -----------------------------------------------------------------------------------


def read_key(path: Path) -> bytes:
    """A PEM RSA private key as dkimpy signs with it; raises ValueError
    saying what is wrong, OSError when it cannot be read."""
    data = path.read_bytes()
    try:
        parse_pem_private_key(data)
    except (UnparsableKeyError, ValueError, IndexError, TypeError) as exc:
        raise ValueError(f"{path} is not a PEM RSA private key ({exc})") from exc
    return data


class Signer:
    """Signs mail with one key, as one selector of one domain."""

    def __init__(self, key: bytes, selector: str, domain: str) -> None:
        self.key = key
        self.selector = selector.encode("ascii")
        self.domain = domain.encode("ascii")

    def __call__(self, message: bytes) -> bytes:
        head = message.split(b"\r\n\r\n", 1)[0] if b"\r\n\r\n" in message else message
        linesep = b"\r\n" if b"\r\n" in head else b"\n"
        include = _to_sign(_header_names(head, linesep))
        try:
            signer = dkimpy.DKIM(message, logger=_QUIET, linesep=linesep)
            signature = signer.sign(self.selector, self.domain, self.key, include_headers=include)
        except dkimpy.DKIMException as exc:  # never seen with our own mail; sent unsigned
            log.error("DKIM: could not sign a mail (%s); it is sent unsigned", exc)
            return message
        return signature + message


def _header_names(head: bytes, linesep: bytes) -> list[str]:
    names = []
    for line in head.split(linesep):
        if line and line[:1] not in (b" ", b"\t") and b":" in line:
            names.append(line.split(b":", 1)[0].strip().decode("ascii", "replace").lower())
    return names


def _to_sign(names: Iterable[str]) -> list[bytes]:
    """The headers to sign: each present one once more than it appears
    (From always)."""
    counts = {n: 0 for n in SIGNED}
    for name in names:
        if name in counts:
            counts[name] += 1
    counts["from"] = max(counts["from"], 1)
    return [n.encode() for n, k in counts.items() if k for _ in range(k + 1)]


def signer(key: Path | None, selector: str | None, domain: str) -> Callable[[bytes], bytes]:
    """What to do to every mail before it is sent: sign it, when a key is
    configured; a key that cannot be read now is logged and mail goes out
    unsigned (``pbem check`` names the problem)."""
    if key is None or not selector:
        return _unsigned
    try:
        return Signer(read_key(key), selector, domain)
    except (OSError, ValueError) as exc:
        log.error("DKIM: cannot read the signing key %s (%s); mail is sent unsigned", key, exc)
        return _unsigned


def _unsigned(message: bytes) -> bytes:
    return message


# -- a new key --------------------------------------------------------------------------------


def make_key(path: Path, bits: int = KEY_BITS) -> bytes:
    """Write a new RSA private key to ``path`` (readable by its owner only;
    never over an existing file: FileExistsError); returns the public key
    as DER, for the DNS record."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    return key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def txt_value(public_der: bytes) -> str:
    """The TXT record's text for a public key."""
    return "v=DKIM1; k=rsa; p=" + base64.b64encode(public_der).decode("ascii")


def zone_line(selector: str, domain: str, value: str) -> str:
    """The record as a zone file line, its text split into strings of at
    most 255 characters (a TXT string's limit)."""
    parts = [value[i : i + 250] for i in range(0, len(value), 250)]
    quoted = "\n    ".join(f'"{p}"' for p in parts)
    return f"{selector}._domainkey.{domain}. IN TXT (\n    {quoted} )"


SELECTOR = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9-]{1,63})*$")
