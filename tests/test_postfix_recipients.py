"""No backscatter: the guide's Postfix (docs/deploy.md, "Recipients checked
at RCPT") asks pbem about each recipient of the judge's domain while the
sender is still on the line (reject_unverified_recipient: a probe over the
transport that delivers the mail). Mail to an address pbem does not have is
refused at RCPT with 550, so Postfix never takes it and never bounces it
to a (possibly forged) sender; every address pbem has is taken and reaches
it; with pbem down an address Postfix has not checked yet gets 450, never
550, and one it has checked is taken, queued, and delivered when pbem is
back.

The guide's lines are read from the guide and written into main.cf as
they stand. One Postfix hands mail to pbem by LMTP (step 3); another by
SMTP over the guide's ``pbem`` transport to a list of nodes whose first is
down (step 7.5)."""

from __future__ import annotations

import re
import smtplib
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from email.utils import make_msgid
from pathlib import Path

import pytest

from pbem.mail import bounces
from pbem.mail.lists import unsubscribe_address
from tests.mailharness import SERVER_YAML, Harness, free_port, wait_for
from tests.postfix import Postfix, RemoteServer, need_postfix

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "deploy.md"
ANN, BOB = "ann@example.org", "bob@example.org"
VICTIM = "victim@example.org"  # a forged sender
UNKNOWN = "nobody@judge.example"
OPS = "ops@example.org"  # the guide's reader of postmaster@ and abuse@

GAME = """\
  - name: alpha
    game: officewars
    map: six
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org}
    master: {email: gm@example.org, password: gm-secret}
"""

# Where the test differs from the guide: Postfix looks for a probe's answer
# after one second rather than three, and a "no" or a "not now" is asked
# again after four seconds, not minutes (never less than the time Postfix
# takes to look: the answer would be gone before it is read), so that an
# address refused for now is seen to be taken soon after pbem is back; and
# no SMTP connection to pbem is kept open between deliveries (the test
# stops pbem under it).
TEST_ONLY = (
    "address_verify_poll_delay = 1s",
    "address_verify_negative_expire_time = 4s",
    "address_verify_negative_refresh_time = 4s",
    "smtp_connection_cache_on_demand = no",
)

CLOCK_SKEW = re.compile(r"file system clock is \d+ seconds? ahead|resetting file time stamps")


def guide_block(heading: str, first_line: str) -> list[str]:
    """The lines of the guide's code block that starts with ``first_line``,
    in the part under ``heading``."""
    text = GUIDE.read_text()
    part = text[text.index(heading) :]
    return re.search(rf"```\n({re.escape(first_line)}.*?)```", part, re.S)[1].splitlines()


def recipient_check() -> tuple[str, ...]:
    """The recipient check's main.cf lines, as the guide writes them."""
    lines = guide_block("### Recipients checked at RCPT", "# /etc/postfix/main.cf")
    text = "\n".join(lines)
    assert "reject_unverified_recipient" in text
    assert re.search(r"^unverified_recipient_reject_code = 550$", text, re.M)
    return tuple(lines)


def pbem_transport() -> str:
    """The guide's ``pbem`` transport (step 7.5) as a master.cf entry, its
    chroot off as for every service of the test's Postfix."""
    lines = guide_block("### 7.5 Postfix on each machine", "# /etc/postfix/master.cf")
    fields = " ".join(line.strip() for line in lines if not line.startswith("#")).split()
    assert fields[:2] == ["pbem", "unix"] and fields[7] == "smtp", fields
    fields[4] = "n"  # chroot
    return "pbem/unix = " + " ".join(fields)


class Site:
    """The players' mail server, pbem, and two Postfixes in front of it:
    ``postfix`` by LMTP, ``nodes`` by SMTP to a dead node, then to pbem."""

    def __init__(self, tmp_path: Path) -> None:
        need_postfix()
        self.root = tmp_path
        self.remote_server = RemoteServer()
        self.remote = self.remote_server.start()
        self.lmtp = free_port()
        players = f"smtp:[127.0.0.1]:{self.remote_server.port}"
        check = recipient_check() + TEST_ONLY
        self.judge: Harness | None = None
        self.nodes: Postfix | None = None
        self.dead: socket.socket | None = None
        self.postfix = Postfix(
            "judge.example",
            {"judge.example": f"lmtp:inet:127.0.0.1:{self.lmtp}", "example.org": players},
            check,
        )
        self.postfix.start()
        self.yaml = (
            SERVER_YAML.replace(
                "  storage:", f"  lmtp: 127.0.0.1:{self.lmtp}\n  storage:", 1
            ).replace(
                "outbound: {from: judge@judge.example, maildir: var/mail}",
                "outbound: {from: judge@judge.example, host: 127.0.0.1, "
                f"port: {self.postfix.port}}}",
            )
            + GAME
        )
        self.judge = Harness(tmp_path, self.yaml)
        # a node that is down: its port held, never listened on, refuses
        self.dead = socket.socket()
        self.dead.bind(("127.0.0.1", 0))
        dead = self.dead.getsockname()[1]
        self.nodes = Postfix(
            "judge.example",
            {
                "judge.example": f"pbem:[127.0.0.1]:{dead}, [127.0.0.1]:{self.judge.port}",
                "example.org": players,
            },
            check,
            (pbem_transport(),),
        )
        self.nodes.start()

    def close(self) -> None:
        try:
            for postfix in (self.postfix, self.nodes):
                if postfix is not None:
                    postfix.stop()  # first: they hold connections to pbem
        finally:
            if self.judge is not None:
                self.judge.close()
            if self.dead is not None:
                self.dead.close()
            self.remote_server.stop()

    def send(self, postfix: Postfix, sender: str, to: str) -> tuple[int, str, str]:
        """A mail through ``postfix``: the code and text of the answer to
        RCPT, or to DATA once RCPT was taken; and its Message-ID."""
        message_id = make_msgid(domain="example.org")
        raw = (
            f"From: {sender}\r\nTo: {to}\r\nSubject: hello\r\n"
            f"Message-ID: {message_id}\r\n\r\nHello.\r\n"
        ).encode()
        with smtplib.SMTP("127.0.0.1", postfix.port, timeout=60) as s:
            s.ehlo("mail.example.org")
            assert s.mail(sender)[0] == 250
            code, text = s.rcpt(to)
            if code == 250:
                code, text = s.data(raw)
        return code, text.decode(errors="replace"), message_id

    def send_all(self, sends: list[tuple[Postfix, str, str]]) -> list[tuple[int, str, str]]:
        """``send`` each (postfix, sender, to) side by side: an address new
        to Postfix waits seconds at RCPT, while Postfix asks pbem."""
        with ThreadPoolExecutor(len(sends)) as pool:
            return list(pool.map(lambda s: self.send(*s), sends))

    def arrived(self, message_id: str) -> tuple[str, ...]:
        """The envelope recipients of the mail pbem received as ``message_id``."""

        def find():
            for mail in self.judge.app.store.mails():
                if mail.message_id == message_id:
                    return mail.rcpt_to
            return None

        wait_for(lambda: find() is not None or time.sleep(0.05), 30, f"pbem to get {message_id}")
        return find()

    def sessions(self) -> int:
        """Connections to pbem's SMTP and LMTP ports that pbem has not
        closed (established, being opened, or closed by Postfix only)."""
        ports = {self.judge.port, self.lmtp}
        count = 0
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            local, state = line.split()[1:4:2]
            count += state in ("01", "03", "08") and int(local.split(":")[1], 16) in ports
        return count

    def no_reports(self) -> None:
        """Neither Postfix holds any mail or wrote any delivery report; the
        players' server received none."""
        for postfix in (self.postfix, self.nodes):
            wait_for(lambda p=postfix: not p.queue() or time.sleep(0.2), 30, "an empty queue")
            log = postfix.log()
            assert "non-delivery notification" not in log and "status=bounced" not in log
            # the guide's lines as Postfix reads them: no warning, but a loaded
            # machine's file system clock running ahead of Postfix's (cleanup
            # says so and resets the queue file's times), which is no setting's
            warned = [
                line
                for line in log.splitlines()
                if " warning: " in line and not CLOCK_SKEW.search(line)
            ]
            assert warned == []
        assert [r for r in self.remote.received if r[0] in ("", "<>")] == []


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = Site(tmp_path_factory.mktemp("postfix-recipients"))
    try:
        yield s
    finally:
        s.close()


def test_an_unknown_address_is_refused_at_rcpt_and_nothing_is_bounced(site):
    answers = site.send_all([(p, VICTIM, UNKNOWN) for p in (site.postfix, site.nodes)])
    for postfix, (code, text, _) in zip((site.postfix, site.nodes), answers, strict=True):
        assert code == 550, text
        assert "Recipient address rejected: undeliverable address" in text
        assert "no such game or address here" in text  # pbem's own answer, passed on
        # refused before a queue file was made: there is nothing to bounce
        assert re.search(rf"NOQUEUE: reject: RCPT from \S+: 550 5\.1\.1 <{UNKNOWN}>", postfix.log())
    site.no_reports()
    assert site.remote.to(VICTIM) == []
    assert not [m for m in site.judge.app.store.mails() if UNKNOWN in m.rcpt_to]


def test_every_address_of_pbem_is_taken_and_reaches_it(site):
    app = site.judge.app
    with app.store.tx(write=False) as conn:
        ann = next(p for p in app.store.players(conn, "alpha") if p.name == "ann")
    reply = app.reply_address(ann)
    sent = app.store.outbox_rows("password", ANN)[0]
    addresses = [
        "alpha@judge.example",  # a game
        "judge@judge.example",  # the judge's own
        reply,  # a player's reply address
        bounces.return_path(app, sent),  # where an outgoing mail's bounce comes
        unsubscribe_address(app, "alpha", "fan@example.org"),
        "confirm+abc123@judge.example",  # pbem reads the token once it has the mail
    ]
    sends = [(site.postfix, ANN, a) for a in addresses]
    sends += [(site.nodes, ANN, a) for a in ("alpha@judge.example", reply)]
    for (_, _, address), (code, text, message_id) in zip(sends, site.send_all(sends), strict=True):
        assert code == 250, (address, text)
        assert site.arrived(message_id) == (address,)
    # postmaster@ and abuse@ are a person's: taken without a probe, and theirs
    person = [
        (site.postfix, ANN, "postmaster@judge.example"),
        (site.nodes, ANN, "abuse@judge.example"),
    ]
    for code, text, message_id in site.send_all(person):
        assert code == 250, text
        wait_for(
            lambda m=message_id: [raw for _, raw in site.remote.to(OPS) if m.encode() in raw],
            30,
            f"{message_id} to reach {OPS}",
        )
        assert not [m for m in app.store.mails() if m.message_id == message_id]
    for postfix in (site.postfix, site.nodes):
        probed = r"<(postmaster|abuse)@judge\.example>.*status=(un)?deliverable"
        assert not re.search(probed, postfix.log())
    site.no_reports()


def test_with_the_database_down_an_address_is_taken_and_waits(site):
    address = "pbem@judge.example"  # the judge's, never mailed: Postfix asks pbem
    site.judge.app.faults = frozenset({"store_down"})  # pbem cannot store a mail
    try:
        code, text, message_id = site.send(site.postfix, ANN, address)
        assert code == 250, text  # pbem knows its addresses without its database
        failed = re.compile(rf"to=<{address}>.*status=deferred .*said: 451 ")
        wait_for(lambda: failed.search(site.postfix.log()), 30, "pbem to answer 451")
    finally:
        site.judge.app.faults = frozenset()
    assert site.arrived(message_id) == (address,)
    site.no_reports()


def test_with_pbem_down_an_address_waits_never_a_permanent_refusal(site):
    known = "alpha@judge.example"
    code, text, first = site.send(site.postfix, ANN, known)  # Postfix has checked it
    assert code == 250, text
    with site.judge.app.store.tx(write=False) as conn:
        bob = next(p for p in site.judge.app.store.players(conn, "alpha") if p.name == "bob")
    fresh = site.judge.app.reply_address(bob)  # never mailed: Postfix must ask pbem
    # pbem stops between sessions, not in one (which would only be cut off)
    assert site.arrived(first) == (known,)
    wait_for(lambda: not site.sessions() or time.sleep(0.1), 30, "Postfix to hang up")
    site.judge.close()
    site.judge = None

    # an address Postfix has checked: taken, and queued until pbem is back
    code, text, queued = site.send(site.postfix, ANN, known)
    assert code == 250, text
    failed = re.compile(rf"to=<{known}>.*status=deferred \(connect to .*Connection refused")
    wait_for(lambda: failed.search(site.postfix.log()), 30, "a delivery to fail for now")
    assert [m for m in site.postfix.queue() if m["recipients"][0]["address"] == known]
    # one it has not: refused for now, by LMTP and by SMTP (every node down)
    for code, text, _ in site.send_all([(p, ANN, fresh) for p in (site.postfix, site.nodes)]):
        assert code == 450, text
        assert "unverified address" in text and "Connection refused" in text

    site.judge = Harness(site.root, site.yaml)  # pbem is back
    assert site.arrived(queued) == (known,)
    answers = []

    def taken() -> bool:
        answers.append(site.send(site.postfix, ANN, fresh))
        return answers[-1][0] == 250 or time.sleep(0.5)

    wait_for(taken, 30, f"Postfix to take {fresh} again")
    assert all(code // 100 == 4 for code, _, _ in answers[:-1]), answers
    assert site.arrived(answers[-1][2]) == (fresh,)
    site.no_reports()
