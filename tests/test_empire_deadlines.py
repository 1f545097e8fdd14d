"""Empire's phases keep their own deadlines (games.yaml ``deadline:`` by
kind of phase), through the real server on the test clock: the retreat
phase's 12 hours after it opens, the adjustments' own cron, movement back
on its cron; the reminder, missed phases and the reports by the phase's own
deadline; a retreat phase in which nobody has anything to order runs at
once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.config import GameConfig
from pbem.turns.deadlines import first_deadline, next_deadline
from tests.mailharness import Harness
from tests.test_empire_mail import YAML, orders, state

PER_KIND = YAML.replace(
    '    deadline: "0 20 * * *"\n',
    '    deadline:\n      movement: "0 20 * * *"\n      retreat: 12h\n'
    '      adjustment: "30 9 * * *"\n',
).replace("last_year: 1901", "last_year: 1902")
START = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)  # 13:00 in Oslo
EIGHT_PM = timedelta(hours=19)  # 20:00 in Oslo (CET), in UTC


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path, PER_KIND, start=START)
    yield harness
    harness.close()


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=UTC)


def missed(h) -> dict[str, int]:
    with h.app.store.tx(write=False) as conn:
        return {p.name: p.missed for p in h.app.store.players(conn, "dip")}


def to_fall_retreats(h) -> None:
    """Spring and Fall 1901: Germany takes Venice with Austria's support,
    and Italy's army there is dislodged (it may retreat to PIE, TUS, APU)."""
    orders(h, "Austria", "F TRI - ALB\nA VIE - TRI")
    orders(h, "Germany", "A MUN - TYR")
    orders(h, "Italy", "A VEN H")
    h.clock.set(h.game("dip").deadline)
    h.tick()
    orders(h, "Germany", "A TYR - VEN")
    orders(h, "Austria", "A TRI S A TYR - VEN")
    h.clock.set(h.game("dip").deadline)
    h.tick()


def test_each_kind_of_phase_has_its_own_deadline(h):
    # the first phase: movement, on the cron, at least half a day away
    assert h.game("dip").deadline == at(22, 19)
    to_fall_retreats(h)
    s = state(h)
    assert s.code == "F1901R"
    italy = s.player_of["Italy"]
    # the retreat phase opened at the Fall deadline (23 Nov, 20:00 in Oslo): 12 hours
    assert h.game("dip").turn_started_at == at(23, 19)
    assert h.game("dip").deadline == at(24, 7)
    report = h.text(h.report(f"{italy}@example.org", "dip"))
    assert ":: Deadline: F1901R Tue 24 Nov 2026 08:00 CET (Europe/Oslo)" in report
    status, _ = orders(h, "Germany", "STATUS")  # Germany has nothing to order here
    assert "Tue 24 Nov 2026 08:00 CET" in status, status
    # the reminder comes two hours before the retreat phase's own deadline
    before = missed(h)
    h.clock.set(at(24, 5) - timedelta(seconds=1))
    h.tick()
    assert not h.outbox("reminder", f"{italy}@example.org")
    h.clock.set(at(24, 5))
    h.tick()
    (reminder,) = h.outbox("reminder", f"{italy}@example.org")
    assert "Tue 24 Nov 2026 08:00 CET" in h.text(reminder)
    assert len(h.outbox("reminder")) == 1  # only Italy has a retreat to order
    # Italy sends none: the phase runs at its own deadline, charged to Italy alone
    h.clock.set(at(24, 7))
    h.tick()
    s = state(h)
    assert s.code == "W1901A"
    after = missed(h)
    assert after[italy] == before[italy] + 1
    assert all(after[p] == before[p] for p in after if p != italy)
    # the adjustments: their own cron, 09:30 in Oslo the same morning
    assert h.game("dip").deadline == at(24, 8, 30)
    germany = s.player_of["Germany"]
    report = h.text(h.report(f"{germany}@example.org", "dip"))
    assert ":: Deadline: W1901A Tue 24 Nov 2026 09:30 CET (Europe/Oslo)" in report
    assert not h.outbox("reminder", f"{germany}@example.org")  # shorter than the reminder's lead
    h.clock.set(at(24, 8, 30))
    h.tick()
    # Spring 1902: movement, back on its cron, 20:00 that evening
    assert state(h).code == "S1902M"
    assert h.game("dip").deadline == at(24, 19)


def test_a_plain_cron_gives_every_phase_the_same_rhythm(tmp_path):
    h = Harness(tmp_path, YAML, start=START)
    try:
        to_fall_retreats(h)
        assert state(h).code == "F1901R"
        assert h.game("dip").deadline == at(24, 19)  # a whole day, as before
    finally:
        h.close()


def test_a_retreat_phase_with_nothing_to_order_runs_at_once(tmp_path):
    """Italy nobody plays: its dislodged army is nobody's to order, so the
    retreat phase runs as soon as it opens, says so, and the Winter (a
    build for Germany) gets its own deadline from then."""
    position = tmp_path / "venice.txt"
    position.write_text(
        "Phase: Fall 1901, movement (F1901M)\n"
        "Austria: A TRI, A BUD, F ALB; centres BUD, TRI, VIE\n"
        "Germany: A TYR, A BER, F KIE; centres BER, KIE, MUN\n"
        "Italy: A VEN, A ROM, F NAP; centres NAP, ROM, VEN\n"
        "England: F LON, F EDI, A LVP; centres EDI, LON, LVP\n"
        "France: F BRE, A PAR, A MAR; centres BRE, MAR, PAR\n"
        "Russia: A MOS, F SEV, A WAR, F STP/SC; centres MOS, SEV, STP, WAR\n"
        "Turkey: F ANK, A CON, A SMY; centres ANK, CON, SMY\n"
        "Players: ann Austria, bob Germany, cid England, dee France, eve Russia\n"
    )
    five = "ann bob cid dee eve".split()
    yaml = PER_KIND.split("    players:\n")[0].replace("map: standard", f"position: {position}")
    yaml += "    players:\n" + "".join(
        f"      - {{name: {n}, email: {n}@example.org}}\n" for n in five
    )
    h = Harness(tmp_path, yaml, start=START)
    try:
        assert state(h).code == "F1901M"
        orders(h, "Germany", "A TYR - VEN")
        orders(h, "Austria", "A TRI S A TYR - VEN")
        deadline = h.game("dip").deadline
        h.clock.set(deadline)
        h.tick()
        s = state(h)
        assert s.code == "W1901A", s.code  # F1901R ran at once: nobody to order it
        assert "ven" not in s.dislodged and s.units["ven"][0] == "Germany"
        assert h.game("dip").turn_started_at == deadline
        assert h.game("dip").deadline == at(24, 8, 30)  # the adjustments' own cron
        report = h.text(h.report("bob@example.org", "dip")).replace("\r\n", "\n")
        assert "Fall 1901, retreats (F1901R) results" in report
        assert "at once: nobody had anything to order" in report
        assert missed(h)["ann"] == missed(h)["bob"] == 0  # they ordered; the retreats: nobody
    finally:
        h.close()


def test_a_length_is_counted_from_the_moment_the_phase_opens():
    """Late after an outage, early after READY or ADJUDICATE, or the first
    phase of a scenario: a kind with a length has all of it; a kind with a
    cron of its own keeps the rules of a cron, by its own period."""
    cfg = GameConfig(
        "dip",
        "empire",
        "standard",
        "0 20 * * *",
        "Europe/Oslo",
        (),
        phase_deadlines={"retreat": timedelta(hours=12), "adjustment": "30 9,21 * * *"},
    )
    now = at(23, 22, 17)  # the server came back three hours after a 20:00 deadline
    missed = at(23, 19)
    assert next_deadline(cfg, now, missed, kind="retreat") == now + timedelta(hours=12)
    assert next_deadline(cfg, now, early=True, kind="retreat") == now + timedelta(hours=12)
    assert first_deadline(cfg, now, "retreat") == now + timedelta(hours=12)
    # adjustments twice a day (09:30 and 21:30 in Oslo): at least half of 12 hours after a late turn
    assert next_deadline(cfg, now, kind="adjustment") == at(24, 8, 30)
    assert next_deadline(cfg, at(23, 20, 17), missed, kind="adjustment") == at(24, 8, 30)
    assert next_deadline(cfg, at(23, 20, 17), kind="adjustment") == at(23, 20, 30)
    # movement, and any kind not given, on the game's cron as before
    assert next_deadline(cfg, now, missed) == at(24, 19)
    assert next_deadline(cfg, now, missed, kind="movement") == at(24, 19)
