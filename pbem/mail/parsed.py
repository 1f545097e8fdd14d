"""What reading a mail yields (:class:`ParsedMail`), and the limits that
bound the reading."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_PARTS = 500  # MIME parts read; more is "too complex"
MAX_DEPTH = 20  # nesting of multiparts
MAX_HEADERS = 500  # header lines of the mail itself
MAX_DECODED = 4 * 2**20  # octets of one part once decoded; a larger part is not read
MAX_TEXT = 200_000  # characters of body text used for orders
# the most CPU time reading one mail may take: CPU, not the wall clock, so
# that a busy machine never refuses an ordinary mail. With what the mail
# then sets off and its answer, no mail costs more than about half a second
# (pbem/mail/budget.py).
PARSE_SECONDS = 0.4


@dataclass
class ParsedMail:
    """What processing needs from a mail."""

    from_addr: str | None = None  # the addr-spec, lower-case domain; never the display name
    subject: str = ""
    message_id: str | None = None
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    auto: str | None = None  # why it is automatic mail, if it is
    bounce: str | None = None  # why it is a bounce, if it is
    bounced_ids: tuple[str, ...] = ()  # Message-IDs the bounce names
    # what a bounce reports (flufl.bounce, else the DSN's Action fields):
    # permanent, temporary, none (a success or warning-free report), or
    # None when nothing in it says; and the addresses it names as failed
    failure: str | None = None
    failed: tuple[str, ...] = ()  # for good
    delayed: tuple[str, ...] = ()  # for now (4.x.x, "delayed")
    loop: bool = False  # carries our own server mark
    lines: list[tuple[int, str]] = field(default_factory=list)  # (line number, text) kept
    ignored: list[tuple[int, str]] = field(default_factory=list)  # quoted, signature, after END
    source: str = "none"  # plain, html, none
    notes: list[str] = field(default_factory=list)  # what could not be read
    too_complex: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    cpu: float = 0.0  # seconds of CPU reading it took (pbem/mail/budget.py counts them)
