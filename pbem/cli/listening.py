"""Where one node of `pbem serve` listens: games.yaml's addresses, each
replaced by a flag of its own (``--host``, ``--port``, ``--lmtp``,
``--web-port``, ``--metrics-port``), so that several nodes can run on one
machine from one games.yaml (docs/deploy.md, "Several nodes on one
machine"). Before anything starts, each address is tried: one in use is
said in one plain line naming the flag that chooses another (the command
then exits with 2, which the guide's systemd units do not restart on),
never a traceback from deep in the event loop. A unix socket another
process answers on is in use too: it is never taken from under it."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import socket
from pathlib import Path

from pbem.cli.errors import InputError
from pbem.config import Config
from pbem.config.server import _host_port


def with_flags(config: Config, args: argparse.Namespace, base: Path) -> Config:
    """``config`` with the server's addresses the flags name put in place
    (``base``: the folder a relative socket path is read from)."""
    server = config.server
    changes: dict = {}
    if args.host:
        changes["host"] = args.host
    if args.port is not None:
        changes["port"] = args.port
    lmtp = getattr(args, "lmtp", None)
    if lmtp:
        tcp = _host_port(lmtp)
        if tcp is None and ":" in lmtp and "/" not in lmtp:
            raise InputError(
                f"--lmtp {lmtp}: give host:port (127.0.0.1:2425) or a socket path (/run/pbem/lmtp2)"
            )
        changes["lmtp_listen"] = tcp
        changes["lmtp_socket"] = None if tcp else (base / lmtp)
    if args.web_port is not None and server.web is not None:
        changes["web"] = dataclasses.replace(server.web, port=args.web_port)
    metrics_port = getattr(args, "metrics_port", None)
    if metrics_port is not None and server.metrics is not None:
        changes["metrics"] = dataclasses.replace(server.metrics, port=metrics_port)
    if not changes:
        return config
    return dataclasses.replace(config, server=dataclasses.replace(server, **changes))


def check_free(config: Config) -> None:
    """InputError for the first of the node's addresses that is in use."""
    s = config.server
    _port_free(s.host, s.port, "smtp")
    if s.lmtp_listen is not None:
        _port_free(*s.lmtp_listen, "lmtp")
    if s.lmtp_socket is not None:
        _socket_free(s.lmtp_socket)
    if s.web is not None:
        _port_free(s.web.host, s.web.port, "web")
    if s.metrics is not None:
        _port_free(s.metrics.host, s.metrics.port, "metrics")


# what listens, its words: ", for what", whose server it may be, the flag
# that moves it, and the other ways to (each with {n}: the next port, {h}: host)
PORTS = {
    "smtp": ("", "mail", "--port {n}", "make run PORT={n}; or listen: {{port: {n}}} in games.yaml"),
    "lmtp": (", for LMTP", "mail", "--lmtp {h}:{n}", "or lmtp: {h}:{n} in games.yaml"),
    "web": (
        ", for the web pages",
        "web",
        "--web-port {n}",
        "make run WEBPORT={n}; or web: listen: {{port: {n}}} in games.yaml",
    ),
    "metrics": (
        ", for health and metrics",
        "metrics",
        "--metrics-port {n}",
        "or metrics: listen: {{port: {n}}} in games.yaml",
    ),
}


def _port_free(host: str, port: int, what: str) -> None:
    if port == 0:
        return
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        purpose, whose, flag, other = PORTS[what]
        if exc.errno != errno.EADDRINUSE:
            raise InputError(f"cannot listen on {host}:{port}{purpose}: {exc.strerror}") from None
        h, n, purpose = host, port + 1, purpose + ("," if purpose else "")
        raise InputError(
            f"port {port} on {host}{purpose} is in use (another pbem serve, or another "
            f"{whose} server?). Stop it, or choose another port: pbem serve "
            f"{flag.format(h=h, n=n)} ({other.format(h=h, n=n).removeprefix('or ')})"
        ) from None


def _socket_free(path: Path) -> None:
    """A socket file that a process answers on is in use; one nobody
    answers on is left from a node that stopped, and is taken."""
    if not path.exists():
        return
    with socket.socket(socket.AF_UNIX) as probe:
        probe.settimeout(2)
        try:
            probe.connect(str(path))
        except OSError:
            return
    raise InputError(
        f"the LMTP socket {path} is in use (another pbem serve answers on it). Stop it, "
        f"or give this node a socket of its own: pbem serve --lmtp {path}2"
    )
