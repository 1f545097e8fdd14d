"""Where the host's own files are, in a checkout and when installed."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path


@cache
def templates_dir() -> Path:
    """templates/ at the top of a checkout (also an editable install); in
    an installed wheel, the same files as the package data of pbem.templates."""
    checkout = Path(__file__).resolve().parent.parent / "templates"
    if checkout.is_dir():
        return checkout
    return Path(str(resources.files("pbem.templates")))
