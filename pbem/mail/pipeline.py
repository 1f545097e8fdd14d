"""A mail's way through the host, once it is stored and read: the steps
below, in the order they run. Each is a small function with one job; a
step that settles the mail returns its final state and the reason
(``End``), and the steps after it do not run. A mail that goes through
every step is ``applied`` if something of it was stored, ``answered`` if
all it asked was answered and nothing refused (HELP), else ``refused``.

The queue around it (claiming, batches, savepoints, quarantine) is
pbem/inbox.py; a game's section of a mail goes its own way
(pbem/mail/section.py); the commands are pbem/commands/.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection

from pbem.app import App, Recipient
from pbem.commands import (
    MAX_PASSWORDS,
    PASSWORDS_CAP,
    REGISTRY,
    Context,
    GameReply,
    ReadMail,
    Section,
    Use,
    Worker,
    confirm,
    read_commands,
    subject_password,
)
from pbem.commands.orders import fold_history
from pbem.mail import bounces, dkim, parse
from pbem.mail import section as sections
from pbem.mail.budget import Budget
from pbem.mail.compose import BadAddress, safe_address
from pbem.mail.parse import ParsedMail, is_daemon, normalise
from pbem.mail.unsubscribe import unsubscribe
from pbem.store import InboxRow, PlayerRow


@dataclass(frozen=True)
class End:
    """A mail's final state, and why."""

    state: str  # applied, answered, refused, ignored, bounce, duplicate
    note: str | None = None


@dataclass
class Way:
    """A mail on its way, and what the steps found out about it."""

    app: App
    conn: Connection
    worker: Worker
    row: InboxRow
    mail: ParsedMail
    now: datetime
    sender: str = ""  # the From: address, once it is known to be one
    addressed: str | None = None  # the one game the mail was sent to, if one
    read: ReadMail | None = None
    passwords: list[str] = field(default_factory=list)
    tokens: dict[str | None, Recipient] = field(default_factory=dict)  # reply addresses used
    players: list[PlayerRow] = field(default_factory=list)  # the sender's seats
    replies: list[GameReply] = field(default_factory=list)  # the receipt, game by game
    server_lines: list[str] = field(default_factory=list)  # the receipt, for no game
    applied: bool = False  # something of the mail was stored
    dkim: Callable[[], dkim.Verdict] | None = None  # its DKIM verdict, worked out when asked
    pending: list[confirm.Pending] = field(default_factory=list)  # commands to confirm
    authenticated: bool = False  # a game's credentials passed: the mail proved its sender
    budget: Budget = field(default_factory=Budget)  # what the mail may still cost


Step = Callable[[Way], "End | None"]


def handle(worker: Worker, conn: Connection, row: InboxRow, mail: ParsedMail) -> str:
    """Take one stored mail through every step; returns its final state."""
    app = worker.app
    way = Way(app, conn, worker, row, mail, app.clock.now(), budget=Budget(spent=mail.cpu))
    end = next((e for e in (step(way) for step in STEPS) if e is not None), None)
    if end is None:
        end = End("applied" if way.applied else "answered" if answered(way) else "refused")
    app.store.finish_mail(conn, row.id, end.state, end.note, way.now, worker.holder)
    worker.finished(row.id, mail.message_id)
    return end.state


def answered(w: Way) -> bool:
    """Every command answered: nothing refused or left unread."""
    ok = (w.server_lines or w.replies) and not w.mail.notes
    return bool(ok) and all(not r.refused and not r.error for r in w.replies)


# -- the steps -------------------------------------------------------------------------


def recognise_bounce(w: Way) -> End | None:
    """A bounce, or any mail to a bounce address, is recorded against the
    mail of ours its return path names (elsewhere: counted for nothing);
    never answered (pbem/mail/bounces.py)."""
    tokens = [r.token for r in map(w.app.recipient, w.row.rcpt_to) if r and r.kind == "bounces"]
    if not w.mail.bounce and not tokens:
        return None
    done = bounces.settle(w.app, w.conn, w.row, w.mail, [t for t in tokens if t], w.now)
    return End(done.state, done.note)


def drop_automatic(w: Way) -> End | None:
    """Automatic mail (out of office, lists, our own coming back) is never answered."""
    return End("ignored", w.mail.auto) if w.mail.auto else None


def drop_duplicate(w: Way) -> End | None:
    """The same Message-ID again: the same mail, sent twice."""
    if not w.mail.message_id:
        return None
    earlier = w.worker.earlier_copy(w.conn, w.mail.message_id, w.row.id)
    return None if earlier is None else End("duplicate", f"same Message-ID as mail #{earlier}")


def unsubscribe_by_mail(w: Way) -> End | None:
    """Mail to an observer's unsubscribe address (``unsubscribe+<token>``)
    unsubscribes them; automatic mail never gets here. A mail to no other
    address of ours ends here, answered only to the observer, and only
    once (a wrong token: not at all)."""
    recipients = [w.app.recipient(a) for a in w.row.rcpt_to]
    tokens = [r.token for r in recipients if r and r.kind == "unsubscribe" and r.token]
    if not tokens:
        return None
    done = [a for a in (unsubscribe(w.app, w.conn, t, by_mail=True) for t in tokens) if a]
    if any(r and r.kind != "unsubscribe" for r in recipients):
        w.applied = w.applied or bool(done)
        return None
    if done:
        return End("applied", f"unsubscribed {', '.join(done)}")
    return End("ignored", "unsubscribe: the token names no observer")


def check_sender(w: Way) -> End | None:
    """There must be someone to answer, at an address that is safe to write to."""
    if w.mail.from_addr is None:
        return End("refused", "no readable From: address; nobody to answer")
    try:
        safe_address(w.mail.from_addr)
    except BadAddress:
        return End("refused", "the From: address cannot be answered safely")
    w.sender = w.mail.from_addr
    return None


def refuse_too_complex(w: Way) -> End | None:
    """A mail too complex to read is refused once, politely, to a player."""
    if not w.mail.too_complex:
        return None
    tell_player(w, "Your mail could not be read", f"Your mail was not read: {w.mail.too_complex}.")
    return End("refused", f"too complex: {w.mail.too_complex}")


def split_into_sections(w: Way) -> End | None:
    """The mail's lines, game by game, with the credentials it carries."""
    recipients = [r for r in (w.app.recipient(a) for a in w.row.rcpt_to) if r is not None]
    games = [r.game for r in recipients if r.game]
    w.addressed = games[0] if len(set(games)) == 1 else None
    w.read = read_commands(w.mail.lines, w.addressed, w.app.has_game)
    for first, last, why in w.read.unread:
        w.budget.skip(first, last, why)
    fold_history(w.read.sections, w.addressed, w.app.has_game)
    w.passwords = list(w.read.passwords)
    in_subject = subject_password(w.mail.subject)
    if in_subject and len(w.passwords) < MAX_PASSWORDS:
        w.passwords.append(in_subject)
    elif in_subject:
        w.mail.notes.append(f"the password in the subject was not read: {PASSWORDS_CAP}")
    w.tokens = {r.game: r for r in recipients if r.kind == "reply"}
    w.players = w.worker.players_by_email(w.conn, w.sender)
    cfg = w.app.config.server.dkim
    w.dkim = dkim.Later(w.row.raw, w.sender, lambda: dkim.lookup(cfg.nameservers, cfg.timeout))
    return None


def recognise_late_bounce(w: Way) -> End | None:
    """Mail from someone who is no player here, that nothing so far marked
    as a bounce (a mail system that gives its bounces a sender and a From
    of its own): read by the bounce library before anything answers it."""
    if w.players or w.mail.bounce or w.mail.too_complex or is_master(w.app, w.sender):
        return None
    parse.read_failures_within(normalise(w.row.raw), w.mail)
    if w.mail.failure not in ("permanent", "temporary"):
        return None
    w.mail.bounce = f"a report of a {w.mail.failure} delivery failure"
    w.mail.bounced_ids = parse.bounced_ids(w.row.raw)
    return recognise_bounce(w)


def run_game_sections(w: Way) -> End | None:
    """Each game's section: who writes, then its orders and commands."""
    assert w.read is not None
    for key, section in w.read.sections.items():
        if w.budget.over():  # the mail has had its time: the rest is not read
            for number in section_lines(section):
                w.budget.skip(number)
            continue
        if key is None:
            w.replies += no_game(section)
            continue
        if not section_has_business(section) and key not in w.tokens and has_other_business(w):
            continue
        reply, changed = sections.run(
            w.app,
            w.conn,
            w.worker,
            w.row,
            w.mail,
            w.now,
            section,
            sections.Credentials(w.passwords, w.tokens.get(key), w.players, w.dkim, w.budget),
        )
        if reply is not None:
            w.replies.append(reply)
            w.authenticated = w.authenticated or reply.proven
        w.applied = w.applied or changed
    return None


def run_server_commands(w: Way) -> End | None:
    """The commands that need no game (HELP, LIST, JOIN, WATCH...), each
    answered once however often the mail gives it."""
    assert w.read is not None
    ctx = Context(w.app, w.conn, w.worker, REGISTRY, w.mail, w.row, w.now, w.server_lines)
    ctx.addressed = w.addressed
    ctx.proven = w.authenticated
    done: set[tuple[str, str]] = set()
    for number, name, arg in w.read.server_commands:
        command = REGISTRY.get(name)
        if (name, arg.lower()) in done:
            continue
        done.add((name, arg.lower()))
        if w.budget.over():
            w.budget.skip(number)
        elif command is not None and command.handler is not None:
            command.handler(ctx, Use(number, name, arg))
    w.pending = ctx.pending
    w.applied = w.applied or ctx.changed
    return None


def confirm_by_reply(w: Way) -> End | None:
    """A reply to ``confirm+<token>@domain`` (the mail that asked to confirm
    a JOIN, LEAVE, WATCH or UNWATCH) confirms it, if it comes from the
    address that mail went to; nothing else in it is read. Automatic mail
    never gets here (drop_automatic)."""
    recipients = [w.app.recipient(a) for a in w.row.rcpt_to]
    token = next((r.token for r in recipients if r and r.kind == "confirm" and r.token), None)
    if token is None:
        return None
    if is_daemon(w.sender):
        return End("ignored", "a mail from a daemon confirms nothing")
    ctx = Context(w.app, w.conn, w.worker, REGISTRY, w.mail, w.row, w.now)
    outcome = confirm.reply_lines(ctx, token)
    note = "confirmation: " + "; ".join(outcome.lines)
    return End("applied" if outcome.done else "refused", note)


def ask_confirmation(w: Way) -> End | None:
    """JOIN, LEAVE, WATCH and UNWATCH wait for the sender to confirm them: a
    mail of its own asks. If the mail had nothing else to answer, that
    mail is the only answer."""
    if not w.pending or is_daemon(w.sender):
        return None
    ctx = Context(w.app, w.conn, w.worker, REGISTRY, w.mail, w.row, w.now)
    ctx.proven = w.authenticated
    lines = confirm.ask_by_mail(ctx, w.pending)
    if w.replies or w.server_lines:
        w.server_lines += lines
        w.applied = True
        return None
    return End("applied", "waiting for confirmation: " + "; ".join(lines))


def note_unread(w: Way) -> End | None:
    """The lines not read (over a cap, or once the mail had had its time),
    told in the answer's notes: which, and why."""
    w.mail.notes += w.budget.notes()
    return None


def refuse_unreadable(w: Way) -> End | None:
    """Nothing in the mail to answer: say so if nothing could be read (to
    a player), else let it be."""
    if w.replies or w.server_lines:
        return None
    if w.mail.notes:
        tell_player(
            w,
            "Your mail could not be read",
            "Nothing in your mail could be read as orders:\n"
            + "\n".join(f"- {n}" for n in w.mail.notes),
        )
        return End("refused", "; ".join(w.mail.notes))
    return End("ignored", "nothing to do")


def send_receipt(w: Way) -> End | None:
    """The receipt: every game's part and the server commands' lines, to
    the sender's registered address, as a reply to the mail. A mail that
    proved who sent it gets the full receipt, from the replies of proven
    mail; one that proved nothing (its From may be forged) a brief one,
    from the few replies of its own pool: it quotes none of the mail's
    lines and is never much larger than the mail (pbem/mail/replycap.py)."""
    to = registered_address(w.players, w.sender)
    if is_daemon(to):  # an automatic mail never gets this far (drop_automatic); nor a daemon
        return None
    received = w.now.strftime("%Y-%m-%d %H:%M:%S UTC")
    if not w.authenticated:
        w.app.queue(
            w.conn,
            "receipt",
            to,
            "Re: your mail",
            "brief",
            {"row": w.row, "mail": w.mail, "games": brief(w.replies), "received": received}
            | {"server_lines": w.server_lines},
            reply_to=reply_to(w),
            in_reply_to=w.mail.message_id,
            inbox_id=w.row.id,
            hide=w.passwords,
            cause=len(w.row.raw),
        )
        return None
    subject = w.mail.subject
    if not subject.lower().startswith("re:"):
        subject = "Re: " + (subject or "your orders")
    w.app.queue(
        w.conn,
        "receipt",
        to,
        subject,
        "receipt",
        {
            "row": w.row,
            "mail": w.mail,
            "games": w.replies,
            "server_lines": w.server_lines,
            "received": received,
        },
        reply_to=reply_to(w),
        in_reply_to=w.mail.message_id,
        references=w.mail.references,
        inbox_id=w.row.id,
        hide=w.passwords,
        game=receipt_game(w),
        proven=True,
    )
    return None


STEPS: tuple[Step, ...] = (
    recognise_bounce,
    drop_automatic,
    drop_duplicate,
    unsubscribe_by_mail,
    check_sender,
    confirm_by_reply,
    refuse_too_complex,
    split_into_sections,
    recognise_late_bounce,
    run_game_sections,
    run_server_commands,
    ask_confirmation,
    note_unread,
    refuse_unreadable,
    send_receipt,
)


# -- what the steps share ----------------------------------------------------------------


def section_lines(section: Section) -> list[int]:
    """The numbers of a section's order, command and press lines."""
    return sorted(
        [n for n, _ in section.orders]
        + [n for n, _, _ in section.commands]
        + [n for n, _, _, _ in section.press]
    )


def section_has_business(section: Section) -> bool:
    return bool(section.orders or section.commands or section.press)


def has_other_business(w: Way) -> bool:
    """An empty section is passed over in a mail that has other business."""
    assert w.read is not None
    return len(w.read.sections) > 1 or bool(w.read.server_commands)


def no_game(section: Section) -> list[GameReply]:
    """Lines that name no game (the mail went to the server's own address
    without a GAME line above them)."""
    if not section_has_business(section):
        return []
    return [
        GameReply(
            "",
            error="these lines name no game: send them to the game's address "
            "or put a line GAME <name> above them",
            refused=[{"line": n, "text": t.strip(), "why": "no game"} for n, t in section.orders],
        )
    ]


def brief(replies: list[GameReply]) -> list[dict[str, object]]:
    """Each game's part of a brief receipt: what the server says, and the
    numbers of the lines refused, none of their text."""
    return [
        {
            "game": r.game,
            "error": r.error,
            "said": [*r.messages, *r.status],
            "refused": line_numbers([x["line"] for x in r.refused]),
            "received": r.received,
        }
        for r in replies
    ]


def line_numbers(numbers: list[int]) -> str:
    """1, 3-5, 9: line numbers, runs written as ranges."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def is_master(app: App, address: str) -> bool:
    return any((g.master_email or "").lower() == address.lower() for g in app.config.games)


def registered_address(players: list[PlayerRow], sender: str) -> str:
    """The sender's address as the player registered it (its case), else as written."""
    for p in players:
        if p.email.lower() == sender.lower():
            return p.email
    return sender


def reply_to(w: Way) -> str | None:
    """The player's reply address for the first game answered (read
    again if this mail asked for a new token)."""
    games = [r.game for r in w.replies if r.game and not r.error]
    for p in w.players:
        if games and p.game == games[0] and p.status == "active":
            if any(r.new_token for r in w.replies):
                p = next(x for x in w.app.store.players(w.conn, p.game) if x.id == p.id)
            return w.app.reply_address(p)
    return None


def receipt_game(w: Way) -> str | None:
    """The one game a receipt answers for (its list headers), if one."""
    games = {r.game for r in w.replies if r.game}
    return games.pop() if len(games) == 1 and not w.server_lines else None


def tell_player(w: Way, subject: str, text: str) -> None:
    """A refusal of the whole mail, to its sender if the sender plays here
    (never to a daemon; the daily cap is counted where every reply is
    queued: App.queue, pbem/replycap.py)."""
    players = w.app.store.players_by_email(w.conn, w.mail.from_addr or "")
    if not players or is_daemon(players[0].email):
        return
    w.app.queue(
        w.conn,
        "refusal",
        players[0].email,
        subject,
        "alert",
        {"subject": subject, "text": text, "game": None},
        in_reply_to=w.mail.message_id,
        inbox_id=w.row.id,
        game=sent_to_game(w),
        cause=len(w.row.raw),
    )


def sent_to_game(w: Way) -> str | None:
    """The one game the mail was sent to (its envelope), if one: the
    refusal of the whole mail carries that game's list headers."""
    found = {r.game for r in map(w.app.recipient, w.row.rcpt_to) if r is not None and r.game}
    return found.pop() if len(found) == 1 else None
