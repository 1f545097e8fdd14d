"""Closing what a command opened: the stores ``open_app`` opens inside
``closing_stores()`` are closed when the block ends (a database server's
connections closed, not left to the garbage collector). Light on purpose:
the command line imports it before any command runs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_closing: list[list[Any]] = []


@contextmanager
def closing_stores() -> Iterator[None]:
    """Close every store opened (``opened``) inside the block when it ends."""
    mine: list[Any] = []
    _closing.append(mine)
    try:
        yield
    finally:
        _closing.remove(mine)
        for store in mine:
            store.close()


def opened(store: Any) -> None:
    """A store was opened: closed at the end of the innermost
    ``closing_stores`` block, if there is one."""
    if _closing:
        _closing[-1].append(store)
