"""Mail an MTA held while the server took none: behind a trusted relay a
mail counts for a deadline by the time the relay received it (the topmost
Received header, on mail from the relay's connection only), and a turn
whose deadline passed while the server was down waits the settling time
after it starts, so that the relay's queued mail arrives first. The real
server over a real SMTP client and SQLite file, on a clock the test moves;
tests/test_postfix.py sends such a mail through a real Postfix."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from pbem.config import load_config
from pbem.config.model import ConfigError
from pbem.mail.ontime import arrival, received_time
from pbem.store import InboxRow
from pbem.turns.localtime import local
from tests.mailharness import GAMES_YAML, Harness

ANN, BOB = "ann@example.org", "bob@example.org"
ALPHA = "alpha@judge.example"
RELAY = "mx.judge.example"
VERIFIED = f"{RELAY}; dkim=pass header.d=example.org"

BEHIND_RELAY = GAMES_YAML.replace(
    "  timezone: Europe/Oslo\n  storage",
    f"  trusted_relay: {{authserv_id: {RELAY}, addresses: [127.0.0.1]}}\n"
    "  timezone: Europe/Oslo\n  storage",
    1,
)


def relayed(h: Harness, sender: str, body: str, at: datetime) -> str:
    """Send ``body`` as the relay passes it on: its Received header (taken
    at ``at``) and its verdict on top; the sender's receipt."""
    raw = (
        f"Received: from mail.example.org (mail.example.org [192.0.2.7])\r\n"
        f"\tby {RELAY} (Postfix) with ESMTPS id 4XyZ1\r\n"
        f"\tfor <{ALPHA}>; {format_datetime(at)}\r\n"
        f"Authentication-Results: {VERIFIED}\r\n"
        f"From: {sender}\r\nTo: {ALPHA}\r\nSubject: orders\r\n"
        f"Message-ID: <{at.timestamp()}.{sender}>\r\n\r\n{body}"
    )
    h.send_raw(raw.encode(), mail_from=sender)
    return h.last(sender)


def test_a_turn_whose_deadline_passed_while_down_waits_for_the_held_mail(tmp_path):
    h = Harness(tmp_path, BEHIND_RELAY)
    deadline, pw = h.game().deadline, h.password(ANN)
    bob = h.password(BOB)
    h.close()
    # down across the deadline: the relay took Ann's orders 20 s before it
    h = Harness(tmp_path, BEHIND_RELAY, start=deadline + timedelta(seconds=43))
    try:
        assert h.game().turn == 1, "the turn waits the settling time"
        receipt = relayed(
            h, ANN, f"PASSWORD {pw}\r\nSol attacks Alnitak\r\n", deadline - timedelta(seconds=20)
        )
        assert "line 2: Sol attacks Alnitak" in receipt
        assert "it was in time for the deadline" in receipt and "so it counts for tick 1" in receipt
        # Bob's mail reached the relay after the deadline: too late
        late = relayed(h, BOB, f"PASSWORD {bob}\r\nVega holds\r\n", deadline + timedelta(seconds=2))
        assert "too late for tick 1" in late and "Nothing was applied" in late
        assert f"reached our mail relay ({RELAY})" in late
        h.advance(minutes=4)
        assert h.game().turn == 1
        h.advance(minutes=1, seconds=1)  # five minutes since the start, and the sweep
        assert h.game().turn == 2
        report = h.text(h.report(ANN))
        assert "Sol attacks Alnitak" in report
    finally:
        h.close()


def test_without_a_settling_time_the_turn_runs_at_start(tmp_path):
    yaml = BEHIND_RELAY.replace(
        "  timezone: Europe/Oslo\n  storage",
        "  settle_after_outage: 0\n  timezone: Europe/Oslo\n  storage",
        1,
    )
    h = Harness(tmp_path, yaml)
    deadline = h.game().deadline
    h.close()
    h = Harness(tmp_path, yaml, start=deadline + timedelta(seconds=43))
    try:
        assert h.game().turn == 2
    finally:
        h.close()


def test_a_deadline_that_passes_while_up_runs_at_once(tmp_path):
    """Only a deadline that passed before the server took mail waits."""
    h = Harness(tmp_path, BEHIND_RELAY)
    try:
        h.clock.set(h.game().deadline)
        h.tick()
        assert h.game().turn == 2
    finally:
        h.close()


def test_mail_the_relay_took_in_time_but_read_after_the_turn_ran_says_when(tmp_path):
    h = Harness(tmp_path, BEHIND_RELAY)
    try:
        deadline, pw = h.game().deadline, h.password(ANN)
        h.clock.set(deadline + timedelta(seconds=1))
        h.tick()
        assert h.game().turn == 2
        h.clock.advance(seconds=30)
        receipt = relayed(
            h, ANN, f"PASSWORD {pw}\r\nSol holds\r\n", deadline - timedelta(seconds=5)
        )
        assert "too late for the turn before" in receipt and "Nothing was applied" in receipt
        before = deadline - timedelta(seconds=5)
        assert f"reached our mail relay ({RELAY}) at {before:%Y-%m-%d %H:%M:%S} UTC" in receipt
        ran = deadline + timedelta(seconds=1)
        assert f"already run at {ran:%Y-%m-%d %H:%M:%S} UTC" in receipt
    finally:
        h.close()


# -- which time counts ---------------------------------------------------------------------

OURS = datetime(2026, 11, 21, 1, 50, 23, tzinfo=UTC)


def row(received: str | None, peer: str | None = "127.0.0.1") -> InboxRow:
    head = f"Received: from a by {RELAY}; {received}\r\n" if received else ""
    raw = (
        f"{head}Received: from b by c; Sat, 21 Nov 2026 01:40:00 +0000\r\nFrom: {ANN}\r\n\r\nx\r\n"
    )
    return InboxRow(1, OURS, ANN, (ALPHA,), raw.encode(), "", None, "new", 0, peer=peer)


@pytest.fixture
def server(tmp_path):
    (tmp_path / "games.yaml").write_text(BEHIND_RELAY)
    return load_config(tmp_path / "games.yaml").server


@pytest.mark.parametrize(
    "received, peer, counted",
    [
        (
            "Sat, 21 Nov 2026 02:49:40 +0100",
            "127.0.0.1",
            datetime(2026, 11, 21, 1, 49, 40, tzinfo=UTC),
        ),
        # the sender's own word, not the relay's: our time
        ("Sat, 21 Nov 2026 02:49:40 +0100", "192.0.2.9", OURS),
        # in the future (a clock ahead of ours): our time
        ("Sat, 21 Nov 2026 03:00:00 +0100", "127.0.0.1", OURS),
        # further back than the relay holds mail (5 days): our time
        ("Sat, 14 Nov 2026 02:49:40 +0100", "127.0.0.1", OURS),
        ("not a date", "127.0.0.1", OURS),
        (None, "127.0.0.1", datetime(2026, 11, 21, 1, 40, tzinfo=UTC)),  # the topmost one
    ],
    ids=["relay", "other-peer", "future", "too-old", "unreadable", "topmost"],
)
def test_which_received_time_counts(server, received, peer, counted):
    assert arrival(server, row(received, peer)).at == counted


def test_without_a_relay_our_own_time_counts(tmp_path):
    (tmp_path / "games.yaml").write_text(GAMES_YAML)
    server = load_config(tmp_path / "games.yaml").server
    assert arrival(server, row("Sat, 21 Nov 2026 02:49:40 +0100")).at == OURS


def test_a_received_header_in_an_unknown_zone_reads_as_utc():
    raw = b"Received: from a by b; Sat, 21 Nov 2026 01:49:40 -0000\r\n\r\n"
    assert received_time(raw) == datetime(2026, 11, 21, 1, 49, 40, tzinfo=UTC)


def test_the_settings_are_checked(tmp_path):
    (tmp_path / "games.yaml").write_text(
        GAMES_YAML.replace(
            "  storage:", "  settle_after_outage: 2m\n  relay_queue_lifetime: 1d\n  storage:", 1
        )
    )
    server = load_config(tmp_path / "games.yaml").server
    assert server.settle_after_outage == timedelta(minutes=2)
    assert server.relay_queue_lifetime == timedelta(days=1)
    (tmp_path / "games.yaml").write_text(
        GAMES_YAML.replace("  storage:", "  settle_after_outage: soon\n  storage:", 1)
    )
    with pytest.raises(ConfigError, match="settle_after_outage must be a duration"):
        load_config(tmp_path / "games.yaml")


def test_a_receipt_while_the_turn_settles_says_when_it_resolves_and_what_counts(tmp_path):
    """Down across the deadline: the turn waits the settling time (five
    minutes from the start). A receipt meanwhile names the deadline as
    passed, when the turn resolves, and whether this mail counts for it."""
    h = Harness(tmp_path, BEHIND_RELAY)
    deadline, pw = h.game().deadline, h.password(ANN)
    h.close()
    start = deadline + timedelta(seconds=43)
    h = Harness(tmp_path, BEHIND_RELAY, start=start)
    try:
        resolves = local(start + timedelta(minutes=5), "Europe/Oslo")
        ann = relayed(
            h, ANN, f"PASSWORD {pw}\r\nSol attacks Alnitak\r\n", deadline - timedelta(seconds=20)
        )
        said = " ".join(ann.split())
        assert (
            f"Deadline: {local(deadline, 'Europe/Oslo')}, passed; the turn (tick 1) resolves at "
            f"{resolves}, at "
            "the end of the settling time after this server took no mail, so that mail held "
            "meanwhile counts. The orders of this mail count for it." in said
        ), ann
        # no orders, and after the deadline
        status = relayed(h, ANN, f"PASSWORD {pw}\r\nSTATUS\r\n", deadline + timedelta(seconds=30))
        said = " ".join(status.split())
        assert f"the turn (tick 1) resolves at {resolves}" in said
        assert "Orders sent now are too late for it." in said
        # orders after the deadline: too late for the turn that settles
        late = relayed(h, ANN, f"PASSWORD {pw}\r\nSol holds\r\n", deadline + timedelta(seconds=40))
        settled = start + timedelta(minutes=5)
        assert "too late for tick 1" in late
        said = " ".join(late.split())
        assert f"the turn resolves at {settled:%Y-%m-%d %H:%M:%S} UTC, at the end of the" in said
        h.advance(minutes=5, seconds=1)
        assert h.game().turn == 2  # as the receipts said
    finally:
        h.close()


def test_a_receipt_in_a_game_on_a_clock_names_the_settled_tick(tmp_path):
    """Strategic Initiative: every order read before the tick runs counts;
    after an outage the tick due runs at the end of the settling time."""
    from tests.test_scenario_start import DUEL, KIM, configure

    text = configure(tmp_path).read_text()
    h = Harness(tmp_path, text)
    due, pw = h.game("duel").deadline, h.password(KIM, "duel")
    h.close()
    start = due + timedelta(minutes=2)
    h = Harness(tmp_path, text, start=start)
    try:
        h.send(KIM, DUEL, f"PASSWORD {pw}\nmove inf1 to D3\n")
        said = " ".join(h.last(KIM).split())
        resolves = local(start + timedelta(minutes=5), "UTC")
        assert (
            f"Next tick: {local(due, 'UTC')}, passed; the tick (day 1, 10:15) runs at {resolves}, "
            "at the end of the settling time" in said
        ), said
        assert "The orders of this mail count for it." in said
        tick = h.game("duel").turn
        h.advance(minutes=5, seconds=1)
        assert h.game("duel").turn == tick + 1  # as the receipt said
    finally:
        h.close()
