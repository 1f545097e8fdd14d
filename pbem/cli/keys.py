"""pbem dkim-key: a key to sign outgoing mail with (DKIM), and the DNS
record that lets receivers check the signatures."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

import yaml

from pbem.cli.errors import InputError
from pbem.config.model import DOMAIN
from pbem.mail import dkim


def cmd_dkim_key(args: argparse.Namespace, out: TextIO) -> int:
    selector = args.selector
    if not dkim.SELECTOR.match(selector):
        raise InputError(f"{selector!r} is not a selector (letters, digits, hyphens: pbem2026)")
    domain = args.domain or _config_domain(Path(args.config))
    key = Path(args.key or f"var/dkim-{selector}.key")
    if args.show:
        public = _public_of(key)
        print(f"The key {key} signs as {selector}._domainkey.{domain}.", file=out)
    else:
        try:
            public = dkim.make_key(key, args.bits)
        except FileExistsError:
            raise InputError(
                f"{key} exists and is not overwritten (a key in use would stop "
                "verifying); name another file with --key, or print its DNS record "
                "with --show"
            ) from None
        print(f"Wrote a new {args.bits}-bit RSA key to {key} (readable by you only).", file=out)
    _print_record(out, key, selector, domain, dkim.txt_value(public))
    return 0


def _print_record(out: TextIO, key: Path, selector: str, domain: str, value: str) -> None:
    print(
        f"\nPublish this TXT record in the DNS of {domain}:\n\n"
        f"{dkim.zone_line(selector, domain, value)}\n\n"
        "The same record's text in one piece (for a DNS provider's form; name "
        f"{selector}._domainkey.{domain}):\n\n{value}\n\n"
        "Then add to the server section of games.yaml:\n\n"
        f"  dkim:\n    key: {key}\n    selector: {selector}\n    domain: {domain}\n\n"
        "and check the record is visible before mail goes out signed: "
        f"dig +short TXT {selector}._domainkey.{domain}",
        file=out,
    )


def _config_domain(path: Path) -> str:
    """The server's domain in games.yaml, when --domain names none."""
    try:
        data = yaml.safe_load(path.read_text())
        domain = data["server"]["domain"]
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        raise InputError(
            f"no --domain given and no server domain readable in {path}: "
            "name the signing domain with --domain"
        ) from None
    if not isinstance(domain, str) or not DOMAIN.match(domain):
        raise InputError(f"{path}: the server domain {domain!r} is not a domain; use --domain")
    return domain


def _public_of(key: Path) -> bytes:
    """The public half of an existing key, as DER."""
    from cryptography.hazmat.primitives import serialization

    try:
        private = serialization.load_pem_private_key(key.read_bytes(), password=None)
    except ValueError as exc:
        raise InputError(f"{key} is not a PEM private key ({exc})") from None
    return private.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def add_command(sub: argparse._SubParsersAction, command: object) -> None:
    """Register ``pbem dkim-key`` (``command`` is main's subcommand maker)."""
    p = command(  # type: ignore[operator]
        sub,
        "dkim-key",
        help="make a key to DKIM-sign outgoing mail; print its DNS record",
        description="Write a new RSA key (never over an existing file) and print the DNS "
        "TXT record to publish and the games.yaml lines that make the server sign its "
        "mail with it. With --show, print the record of an existing key again.",
    )
    p.add_argument("--selector", required=True, help="the key's name in the DNS (pbem2026)")
    p.add_argument("--domain", help="the signing domain (default: games.yaml's server domain)")
    p.add_argument("--key", help="the key file to write (default: var/dkim-SELECTOR.key)")
    p.add_argument("--bits", type=int, choices=(2048, 3072, 4096), default=dkim.KEY_BITS)
    p.add_argument("--show", action="store_true", help="print the record of an existing key")
    p.add_argument("--config", default="games.yaml")
    p.set_defaults(run=cmd_dkim_key)
