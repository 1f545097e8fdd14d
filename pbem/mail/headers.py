"""Headers the email package may parse: bounded before its header parser
sees them.

The modern policy's header parser (``email._header_value_parser``) takes
time that grows with the square of a header's length on some input: 24 KB
of ``"`` in a From: cost seconds. No header a person writes comes near the
bounds below, so a header over them is unreadable (an empty header: a From:
over them names nobody to answer), and reading any header, whatever it
holds, costs a few hundredths of a second at most. ``POLICY`` is the modern
policy with that check before every header it parses (the mail's own and
every MIME part's), ``POLICY.clone(until=...)`` one that also stops
parsing headers at a point of the thread's CPU clock; ``readable`` is the
check, for a header read by hand.
"""

from __future__ import annotations

import time
from email.headerregistry import UnstructuredHeader
from email.policy import EmailPolicy
from typing import Any

MAX_HEADER = 8000  # characters of any header read through the parser
MAX_STRUCTURED = 1000  # of a header with a syntax (addresses, Content-Type, dates...)
MAX_SPECIALS = 64  # quotes, parentheses, backslashes, brackets, commas... in one such header
MAX_ENCODED = 20  # RFC 2047 encoded words in one such header
_SPECIALS = '"()\\<>[],;:@'


def readable(name: str, value: str, structured: bool | None = None) -> bool:
    """Whether the header ``name: value`` may be handed to the header
    parser: short enough, and, for a header with a syntax of its own, few
    enough of the characters that make parsing it slow."""
    if len(value) > MAX_HEADER:
        return False
    if structured is None:
        factory = POLICY.header_factory
        kind = factory.registry.get(name.lower(), factory.default_class)
        structured = not issubclass(kind, UnstructuredHeader)
    if not structured:
        return True
    if len(value) > MAX_STRUCTURED or value.count("=?") > MAX_ENCODED:
        return False
    return sum(value.count(c) for c in _SPECIALS) <= MAX_SPECIALS


class _Bounded(EmailPolicy):
    """The modern policy; a header it may not parse reads as empty, and so
    does every header once this thread's CPU clock passes ``until`` (the
    read's budget: the parser reads every MIME part's Content-Type)."""

    until: float | None = None

    def header_fetch_parse(self, name: str, value: str) -> Any:
        if hasattr(value, "name"):  # a header object already
            return super().header_fetch_parse(name, value)
        in_time = self.until is None or time.thread_time() <= self.until
        if in_time and readable(name, value):
            return super().header_fetch_parse(name, value)
        return self.header_factory(name, "")


POLICY = _Bounded()
