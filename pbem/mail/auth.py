"""Passwords and reply tokens.

Anyone can forge a From: address, so it never suffices: orders need the
player's password (a PASSWORD line, or in the subject) or must come to the
player's reply address, which carries a token only the server can make.

- Passwords are stored as salted scrypt hashes, never in clear.
- A reply token is an HMAC of (game, player, version) under a server secret
  kept in storage: the server checks it without storing it; NEW TOKEN (or
  the game master) bumps the version, which revokes every earlier token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from email.parser import BytesHeaderParser
from email.policy import compat32
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import authres

from pbem.mail import dkim

if TYPE_CHECKING:
    from pbem.config.model import TrustedRelay

_N, _R, _P = 2**14, 8, 1


def new_password() -> str:
    """A password a person can type: 12 characters, no look-alikes."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    return "".join(secrets.choice(alphabet) for _ in range(12))


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    encoded = [base64.b64encode(v).decode() for v in (salt, digest)]
    return f"scrypt${_N}${_R}${_P}${encoded[0]}${encoded[1]}"


def check_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(
            password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=32
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, base64.b64decode(digest))


def new_secret() -> str:
    return secrets.token_hex(32)


def mac(secret: str, size: int, *parts: object) -> str:
    """An HMAC-SHA256 of ``parts`` (joined by NUL) under the server secret,
    its first ``size`` bytes in lower-case base32: it survives an address
    being lower-cased. Reply addresses, return paths and unsubscribe
    addresses all carry one."""
    message = "\0".join(str(p) for p in parts).encode()
    digest = hmac.new(bytes.fromhex(secret), message, hashlib.sha256).digest()
    return base64.b32encode(digest[:size]).decode().lower()


@lru_cache(maxsize=65536)
def reply_token(secret: str, game: str, player: str, version: int) -> str:
    return mac(secret, 10, game, player, version)


def check_token(secret: str, game: str, player: str, version: int, token: str) -> bool:
    return hmac.compare_digest(reply_token(secret, game, player, version), token.lower())


class Verifier:
    """Checks passwords, remembering the ones that were right and wrong.

    scrypt is slow on purpose (tens of milliseconds); a player sends the
    same password with every mail, so a right (hash, password) pair is
    remembered in memory, under a digest of both, and checked at once the
    next time. A wrong pair is remembered too, under an HMAC with a key of
    this process's own, so the same wrong guess sent again costs no check
    (``known_wrong``); how many checks a mail may run is pbem/mail/budget.py's.
    """

    def __init__(self, size: int = 4096, wrong: int = 16384) -> None:
        self.size = size
        self._known: dict[bytes, None] = {}
        self.wrong_size = wrong
        self._wrong: dict[bytes, None] = {}
        self._pepper = secrets.token_bytes(32)

    @staticmethod
    def _key(password: str, stored: str) -> bytes:
        return hashlib.sha256(f"{stored}\0{password}".encode()).digest()

    def known(self, password: str, stored: str) -> bool:
        """True if this password was checked right before (no slow check)."""
        return self._key(password, stored) in self._known

    def _wrong_key(self, password: str, stored: str) -> bytes:
        message = f"{stored}\0{password}".encode("utf-8", "surrogatepass")
        return hmac.new(self._pepper, message, hashlib.sha256).digest()

    def known_wrong(self, password: str, stored: str) -> bool:
        """True if this password was checked wrong before (no slow check)."""
        return self._wrong_key(password, stored) in self._wrong

    def check(self, password: str, stored: str) -> bool:
        key = self._key(password, stored)
        if key in self._known:
            return True
        if not check_password(password, stored):
            if len(self._wrong) >= self.wrong_size:
                self._wrong.pop(next(iter(self._wrong)))
            self._wrong[self._wrong_key(password, stored)] = None
            return False
        if len(self._known) >= self.size:
            self._known.pop(next(iter(self._known)))
        self._known[key] = None
        return True


def relay_verified(
    header: str | None, relay: TrustedRelay | str, from_addr: str, peer: str | None = None
) -> bool:
    """True if ``header``, the topmost Authentication-Results of a mail
    (RFC 8601, read by authres), was written by the trusted ``relay`` (its
    authserv-id) and says the From: domain passed DMARC (``header.from``
    naming it) or passed DKIM with a signature (``header.d``) of a domain
    aligned with it (the same organisational domain: pbem/mail/dkim.py).
    The topmost header is the one our own relay added last; anything below
    it came with the mail and proves nothing.

    Anyone who reaches our port can write that header, so with ``relay``
    the configured TrustedRelay it counts only on mail received from one of
    the relay's addresses: ``peer``, the address the mail came from (the
    inbox row's); None (unknown) never is. A bare authserv-id reads the
    header alone, for callers that checked the connection themselves."""
    if not header or "@" not in from_addr:
        return False
    if not isinstance(relay, str) and not relay.sent(peer):
        return False
    try:
        parsed = authres.AuthenticationResultsHeader.parse_value(" ".join(header.split()))
    except Exception:  # authres raises its own errors for every way a header can be wrong
        return False
    if (parsed.authserv_id or "").lower() != str(relay).lower():
        return False
    domain = from_addr.rpartition("@")[2].lower()
    return any(_vouches(result, domain) for result in parsed.results)


def _vouches(result: Any, domain: str) -> bool:
    """One result that vouches for the From: domain: DMARC passed for it
    (``header.from`` present and the From: domain), or DKIM passed with a
    signing domain (``header.d``) aligned with it. A result that does not
    say which domain it is about vouches for none."""
    if str(result.result).lower() != "pass":
        return False
    props = {f"{p.type}.{p.name}".lower(): str(p.value) for p in result.properties}
    method = str(result.method).lower()
    if method == "dmarc":
        return props.get("header.from", "").lower() == domain
    if method == "dkim":
        signer = props.get("header.d", "").lower()
        return bool(signer) and dkim.aligned(signer, domain)
    return False


def topmost(raw: bytes, name: str) -> str | None:
    """The first (topmost) ``name`` header of a raw mail, unfolded, read
    from the bytes as they came (not the parsed mail's shortened copy)."""
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    try:
        value = BytesHeaderParser(policy=compat32).parsebytes(head + b"\r\n\r\n").get(name)
    except Exception:
        return None
    if value is None:
        return None
    return " ".join(str(value).split())
