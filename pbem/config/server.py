"""games.yaml's server section: the domain, where to listen, storage, the
outbound mail and the limits."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from pbem.config.checker import Checker, _duration
from pbem.config.model import (
    DOMAIN,
    EMAIL,
    RELAY_QUEUE_LIFETIME,
    SETTLE_AFTER_OUTAGE,
    Dkim,
    Limits,
    MetricsConfig,
    Network,
    Outbound,
    ServerConfig,
    StorageTimeouts,
    TrustedRelay,
    WebConfig,
)
from pbem.mail import dkim

SERVER_KEYS = (
    "domain",
    "listen",
    "timezone",
    "storage",
    "outbound",
    "limits",
    "lmtp",
    "trusted_relay",
    "web",
    "dkim",
    "operator",
    "metrics",
    "storage_timeouts",
    # mail delayed by an MTA (docs/deadlines.md, "Mail held by an MTA")
    "settle_after_outage",
    "relay_queue_lifetime",
)
DKIM_KEYS = ("require", "nameservers", "timeout", "key", "selector", "domain")
OUTBOUND_KEYS = ("host", "port", "from", "username", "password", "starttls", "tls", "maildir")
LIMIT_KEYS = (
    "max_message_size",
    "max_recipients",
    "max_connections",
    "idle_timeout",
    "max_commands",
    "replies_per_day",
    "proven_replies_per_day",
    "confirm_within",
    "unreachable_after",
)


def server_section(c: Checker, data: dict, path: Path) -> ServerConfig | None:
    raw = c.mapping(data, "server", "server section", required=True)
    c.keys(raw, SERVER_KEYS, "server")
    domain = c.string(
        raw,
        "domain",
        "server domain",
        required=bool(raw) or "server" in data,
        pattern=DOMAIN,
        hint=" (for example judge.example)",
    )
    host, port = _listen(c, raw, "server listen", "listen", 2525)
    tz = c.timezone(raw, "timezone", "server timezone") or "UTC"
    storage = c.string(raw, "storage", "server storage") or "var/pbem.sqlite"
    base = path.resolve().parent

    def place(value: str) -> Path:
        p = Path(value)
        return p if p.is_absolute() else base / p

    where: Path | str = place(storage)
    if "://" in storage:  # a database URL, kept as written
        where = storage
        scheme = storage.split("://", 1)[0].lower()
        if scheme not in STORAGE_SCHEMES:
            c.add(
                raw,
                "storage",
                f"server storage: {scheme}:// is not a database pbem keeps mail in "
                "(postgresql://user@host/database, or a path to an SQLite file)",
            )

    outbound = _outbound(c, raw, domain, place)
    limits = _limits(c, raw)
    lmtp = c.string(raw, "lmtp", "server lmtp (a unix socket path, or host:port)")
    lmtp_tcp = _host_port(lmtp)
    relay = _trusted_relay(c, raw)
    web = _web(c, raw)
    dkim = _dkim(c, raw, domain, place)
    operator = c.string(raw, "operator", "server operator (an address)", pattern=EMAIL)
    metrics = _metrics(c, raw)
    settle, lifetime = _held_mail(c, raw)
    if domain is None:
        return None
    return ServerConfig(
        domain,
        host,
        port,
        tz,
        where,
        outbound,
        limits,
        lmtp_socket=place(lmtp) if lmtp and not lmtp_tcp else None,
        lmtp_listen=lmtp_tcp,
        trusted_relay=relay,
        web=web,
        dkim=dkim,
        operator=operator,
        metrics=metrics,
        storage_timeouts=_storage_timeouts(c, raw),
        settle_after_outage=settle,
        relay_queue_lifetime=lifetime,
    )


def _held_mail(c: Checker, raw: dict) -> tuple[timedelta, timedelta]:
    """How long a turn whose deadline passed while the server took no mail
    waits once it takes mail again (0: not at all), and how far before our
    own receipt a trusted relay's Received time may lie."""
    settle = _duration(c, raw, "settle_after_outage", "server", SETTLE_AFTER_OUTAGE)
    lifetime = _duration(c, raw, "relay_queue_lifetime", "server", RELAY_QUEUE_LIFETIME)
    return settle or timedelta(0), lifetime or timedelta(0)


RELAY_ID_HINT = " (the authserv-id of your relay's Authentication-Results)"


def _trusted_relay(c: Checker, raw: dict) -> TrustedRelay | None:
    """The relay whose Authentication-Results count: ``{authserv_id,
    addresses}``, the addresses (IP addresses, networks, ``unix`` for the
    LMTP socket) its connections come from; or only its authserv-id, a
    relay on this machine (loopback and the LMTP socket)."""
    value = raw.get("trusted_relay")
    if value is None:
        return None
    if not isinstance(value, dict):
        name = c.string(
            raw, "trusted_relay", "server trusted_relay", pattern=DOMAIN, hint=RELAY_ID_HINT
        )
        return TrustedRelay(name) if name else None
    c.keys(value, ("authserv_id", "addresses"), "server trusted_relay")
    name = c.string(
        value,
        "authserv_id",
        "server trusted_relay authserv_id",
        required=True,
        pattern=DOMAIN,
        hint=RELAY_ID_HINT,
    )
    items = value.get("addresses")
    if isinstance(items, str):
        items = [items]
    if not isinstance(items, list) or not items:
        c.add(
            value,
            "addresses" if "addresses" in value else None,
            "server trusted_relay addresses: the addresses the relay connects from "
            "(for example [127.0.0.1, 10.0.0.0/8], unix for the LMTP socket)",
        )
        return None
    nets: list[Network] = []
    socket = False
    for item in items:
        if str(item).lower() == "unix":
            socket = True
            continue
        try:
            nets.append(ipaddress.ip_network(str(item), strict=False))
        except ValueError:
            c.add(
                value,
                "addresses",
                f"server trusted_relay addresses: {item!r} is not an IP address or "
                "network (for example 127.0.0.1, 10.0.0.0/8, ::1), nor unix",
            )
    return TrustedRelay(name, tuple(nets), socket) if name else None


# a database URL in ``storage``: PostgreSQL (several nodes may share it), or
# SQLite written as a URL
STORAGE_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg", "sqlite")


def _listen(c: Checker, raw: dict, label: str, item: str, port: int) -> tuple[str, int]:
    """A ``listen: {host, port}`` mapping (the server's, the web's, the
    metrics'): its host (127.0.0.1 unless given) and port."""
    listen = c.mapping(raw, "listen", label)
    c.keys(listen, ("host", "port"), label)
    return (
        c.string(listen, "host", f"{item} host") or "127.0.0.1",
        c.integer(listen, "port", f"{item} port (0: any free port)", port, 0, 65535),
    )


def _host_port(value: str | None) -> tuple[str, int] | None:
    """``lmtp: 127.0.0.1:2424`` (or ``[::1]:2424``) asks for LMTP over TCP;
    anything else is a socket path."""
    m = re.fullmatch(r"\[?([A-Za-z0-9.:-]+?)\]?:(\d{1,5})", value or "")
    if m is None or "/" in (value or "") or not 0 < int(m[2]) < 65536:
        return None
    return m[1], int(m[2])


def _outbound(c: Checker, raw: dict, domain: str | None, place: Callable[[str], Path]) -> Outbound:
    """Where mail goes: an SMTP relay (with TLS or STARTTLS), or a Maildir."""
    out = c.mapping(raw, "outbound", "server outbound")
    c.keys(out, OUTBOUND_KEYS, "outbound")
    sender = c.string(out, "from", "outbound from", pattern=EMAIL) or (
        f"judge@{domain}" if domain else ""
    )
    flags = {}
    for key in ("starttls", "tls"):
        flags[key] = out.get(key, False)
        if not isinstance(flags[key], bool):
            c.add(out, key, f"outbound {key} must be true or false")
            flags[key] = False
    if flags["starttls"] and flags["tls"]:
        c.add(out, "tls", "outbound: choose tls (port 465) or starttls (port 587), not both")
    return Outbound(
        host=c.string(out, "host", "outbound host"),
        port=c.integer(out, "port", "outbound port", 25, 1, 65535),
        sender=sender,
        username=c.string(out, "username", "outbound username"),
        password=c.string(out, "password", "outbound password"),
        starttls=flags["starttls"],
        tls=flags["tls"],
        maildir=place(c.string(out, "maildir", "outbound maildir") or "var/mail"),
    )


# a public base address: http(s), a host, an optional path; nothing that
# could break out of a header's <...> or a page's attribute
WEB_URL = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~/%-]*)?$")


def _web(c: Checker, raw: dict) -> WebConfig | None:
    """The HTTP server (``web``): off unless the section is there."""
    if raw.get("web") is None:
        return None
    web = c.mapping(raw, "web", "server web")
    c.keys(web, ("listen", "url", "rate", "burst"), "server web")
    host, port = _listen(c, web, "web listen", "web listen", 8025)
    url = c.string(
        web,
        "url",
        "web url",
        pattern=WEB_URL,
        hint=" (the public address readers reach, for example https://judge.example/;"
        " https for one-click unsubscribing)",
    )
    return WebConfig(
        host=host,
        port=port,
        url=url,
        rate=c.integer(
            web, "rate", "web rate (requests a second per address; 0: no limit)", 20, 0, 100_000
        ),
        burst=c.integer(web, "burst", "web burst (requests at once per address)", 60, 1, 100_000),
    )


def _dkim(c: Checker, raw: dict, domain: str | None, place: Callable[[str], Path]) -> Dkim:
    """Verifying DKIM on mail received directly; signing what is sent."""
    d = c.mapping(raw, "dkim", "server dkim")
    c.keys(d, DKIM_KEYS, "server dkim")
    require = d.get("require", False)
    if not isinstance(require, bool):
        c.add(d, "require", "server dkim require must be true or false")
        require = False
    if require and raw.get("trusted_relay"):
        c.add(
            d,
            "require",
            "server dkim require: a trusted_relay is set, so its Authentication-Results "
            "decide (orders need its DKIM or DMARC pass already); remove one of the two",
        )
    timeout = d.get("timeout", 5)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 60:
        c.add(d, "timeout", "server dkim timeout must be a number of seconds above 0, at most 60")
        timeout = 5
    if require or raw.get("trusted_relay"):  # the Public Suffix List read now, not at a mail
        dkim.organisational(domain or "example.org")
    key, selector, signing = _dkim_signing(c, d, domain, place)
    return Dkim(require, _nameservers(c, d), float(timeout), key, selector, signing)


def _nameservers(c: Checker, d: dict) -> tuple[str, ...]:
    """The resolvers asked for DKIM keys: IP addresses."""
    value = d.get("nameservers", [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        c.add(d, "nameservers", "server dkim nameservers must be a list of IP addresses")
        return ()
    out = []
    for item in value:
        try:
            out.append(str(ipaddress.ip_address(str(item))))
        except ValueError:
            c.add(
                d,
                "nameservers",
                f"server dkim nameservers: {item!r} is not an IP address (for example 127.0.0.1)",
            )
    return tuple(out)


def _dkim_signing(
    c: Checker, d: dict, domain: str | None, place: Callable[[str], Path]
) -> tuple[Path | None, str | None, str]:
    """The signing key (a file ``pbem dkim-key`` made), its selector and domain."""
    selector = c.string(d, "selector", "server dkim selector", pattern=dkim.SELECTOR)
    signing = c.string(d, "domain", "server dkim domain", pattern=DOMAIN) or domain or ""
    name = c.string(d, "key", "server dkim key (a PEM private key file)")
    if name is None:
        if selector is not None:
            c.add(d, "selector", "server dkim: a selector without a key (key: <file>)")
        return None, None, signing
    key = place(name)
    if selector is None:
        c.add(d, "key", "server dkim: a key needs its selector (selector: <name>)")
    try:
        dkim.read_key(key)
    except OSError as exc:
        c.add(d, "key", f"server dkim key {key}: {exc.strerror} (make one: pbem dkim-key)")
    except ValueError as exc:
        c.add(d, "key", f"server dkim key: {exc}")
    return key, selector, signing


def _limits(c: Checker, raw: dict) -> Limits:
    """What one sender and one connection may do."""
    lim = c.mapping(raw, "limits", "server limits")
    c.keys(lim, LIMIT_KEYS, "server limits")
    replies = c.integer(lim, "replies_per_day", "replies_per_day", 10, 1, 10**6)
    proven = c.integer(lim, "proven_replies_per_day", "proven_replies_per_day", 200, 1, 10**6)
    return Limits(
        max_message_size=c.integer(
            lim, "max_message_size", "max_message_size", 10 * 2**20, 10_000, 2**30
        ),
        max_recipients=c.integer(lim, "max_recipients", "max_recipients", 20, 1, 1000),
        max_connections=c.integer(lim, "max_connections", "max_connections", 64, 1, 10_000),
        idle_timeout=c.integer(lim, "idle_timeout", "idle_timeout", 120, 1, 3600),
        max_commands=c.integer(lim, "max_commands", "max_commands", 1000, 10, 100_000),
        replies_per_day=replies,
        proven_replies_per_day=max(proven, replies),
        confirm_within=_confirm_within(c, lim),
        unreachable_after=c.integer(lim, "unreachable_after", "unreachable_after", 3, 1, 1000),
    )


def _confirm_within(c: Checker, lim: dict) -> timedelta:
    """How long JOIN, LEAVE, WATCH and UNWATCH wait for their confirmation."""
    default = timedelta(hours=48)
    found = _duration(c, lim, "confirm_within", "server limits", default)
    if found is None or not timedelta(minutes=5) <= found <= timedelta(days=30):
        c.add(lim, "confirm_within", "server limits: confirm_within must be 5m to 30d")
        return default
    return found


def _metrics(c: Checker, raw: dict) -> MetricsConfig | None:
    """Health and metrics over HTTP (``metrics``): off unless the section is there."""
    if raw.get("metrics") is None:
        return None
    m = c.mapping(raw, "metrics", "server metrics")
    c.keys(m, ("listen", "max_backlog", "max_outbox_minutes"), "server metrics")
    host, port = _listen(c, m, "metrics listen", "metrics listen", 9125)
    return MetricsConfig(
        host=host,
        port=port,
        max_backlog=c.integer(
            m, "max_backlog", "metrics max_backlog (mails waiting)", 1000, 1, 10**9
        ),
        max_outbox_age=timedelta(
            minutes=c.integer(
                m, "max_outbox_minutes", "metrics max_outbox_minutes", 15, 1, 10 * 24 * 60
            )
        ),
    )


def _storage_timeouts(c: Checker, raw: dict) -> StorageTimeouts:
    """How long pbem waits on its database: connect, statement, spool
    (seconds; PostgreSQL, and the SMTP side's spool on either)."""
    d = c.mapping(raw, "storage_timeouts", "server storage_timeouts")
    c.keys(d, ("connect", "statement", "spool"), "server storage_timeouts")
    return StorageTimeouts(
        connect=c.integer(d, "connect", "storage_timeouts connect", 10, 2, 600),
        statement=c.integer(d, "statement", "storage_timeouts statement", 60, 1, 3600),
        spool=c.integer(d, "spool", "storage_timeouts spool", 5, 1, 60),
    )
