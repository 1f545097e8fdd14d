"""What the command line's commands share: bad input."""

from __future__ import annotations


class InputError(Exception):
    """Bad input from the user: printed, exit status 2."""
