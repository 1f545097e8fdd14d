"""Territory by mail: lobbies filling and starting, LEAVE, spectators and
their reactions, AWAY and coming back, and a tick's report."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.mailharness import Harness

JUDGE = "judge@judge.example"
PEOPLE = [f"p{i}@example.org" for i in range(1, 8)]
YAML = """\
server:
  domain: judge.example
  listen: {host: 127.0.0.1, port: 0}
  storage: var/pbem.sqlite
  outbound: {from: judge@judge.example, maildir: var/mail}
  limits: {replies_per_day: 100}
games:
  - name: terra
    game: territory
    map: france
    timezone: Europe/Oslo
    react_cooldown: 10m
    options: {absent_after: 2, absent_timer: 2, absence: continue}
    seed: 4
"""


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path, YAML)
    yield harness
    harness.close()


def join(h, who, name=None):
    h.send_confirmed(who, JUDGE, f"JOIN terra as {name or who.split('@')[0]}\n")
    return h.last(who)


def full_lobby(h):
    for who in PEOPLE[:6]:
        join(h, who)
    return h.game("terra-1")


def test_the_first_join_opens_a_lobby_and_the_sixth_starts_the_match(h):
    assert "in the lobby terra-1 (1 of 6 seats taken)" in join(h, PEOPLE[0])
    assert h.game("terra-1").status == "forming"
    h.send(PEOPLE[0], JUDGE, "LIST\n")
    assert "JOIN terra to play" in h.last(PEOPLE[0])
    for who in PEOPLE[1:5]:
        join(h, who)
    assert "every seat is taken and the game has started" in join(h, PEOPLE[5])
    g = h.game("terra-1")
    assert g.status == "running" and g.deadline is not None
    started = h.outbox("started", PEOPLE[0])
    assert started and "terra-1" in started[-1]["Subject"]
    # a seventh player opens the next lobby
    assert "in the lobby terra-2 (1 of 6 seats taken)" in join(h, PEOPLE[6])
    # each player has a state and a colour of their own
    engine = h.app.engine("territory")
    state = engine.load_state(g.state)
    assert len(set(state.owners.values())) == 6 and len({p.colour for p in state.players}) == 6


def test_leave_before_the_start_gives_the_seat_back(h):
    join(h, PEOPLE[0])
    join(h, PEOPLE[1])
    h.send_confirmed(PEOPLE[1], JUDGE, "LEAVE terra\n")
    assert "you have left terra-1 (1 seat taken)" in h.last(PEOPLE[1])
    for who in PEOPLE[2:7]:
        join(h, who)
    assert h.game("terra-1").status == "running"  # the sixth seat went to the seventh person
    h.send_confirmed(PEOPLE[2], JUDGE, "LEAVE terra-1\n")
    assert "has no seat in a game called 'terra-1' that has not started" in h.last(PEOPLE[2])


def test_spectators_react_with_a_cooldown(h):
    full_lobby(h)
    h.send_confirmed("fan@example.org", JUDGE, "WATCH terra-1\n")
    h.send("fan@example.org", JUDGE, "REACT terra-1 What a move!\n")
    assert "REACT terra-1: sent to 6 players and spectators" in h.last("fan@example.org")
    relayed = h.outbox("reaction", PEOPLE[3])
    assert relayed and "What a move!" in h.text(relayed[-1])
    h.clock.advance(minutes=3)
    h.send("fan@example.org", "terra-1@judge.example", "REACT again!\n")
    reply = h.last("fan@example.org")
    assert "not sent: one reaction per 10 minutes; wait 7 min" in reply
    h.clock.advance(minutes=7, seconds=1)
    h.send("fan@example.org", JUDGE, "REACT terra-1 again!\n")
    assert "sent to 6" in h.last("fan@example.org")
    # players are not spectators
    h.send(PEOPLE[0], JUDGE, "REACT terra-1 hi\n")
    assert "only spectators react; WATCH terra-1 first" in h.last(PEOPLE[0])


def test_a_tick_report_lists_the_commands_in_the_order_they_ran(h):
    g = full_lobby(h)
    engine = h.app.engine("territory")
    state = engine.load_state(g.state)
    mine = {who: s for s, who in state.owners.items()}
    target = next(s.name for s in state.map.states if s.name not in state.owners)
    second, first = PEOPLE[1], PEOPLE[0]
    pw = {w: h.password(w, "terra-1") for w in (first, second)}
    h.send(second, "terra-1@judge.example", f"PASSWORD {pw[second]}\n{mine['p2']} -> {target}\n")
    h.send(first, "terra-1@judge.example", f"PASSWORD {pw[first]}\n{mine['p1']} -> {target}\n")
    h.clock.set(h.game("terra-1").deadline)
    h.tick()
    text = h.text(h.report(PEOPLE[5], "terra-1"))
    ordered = text.split("== Orders and results, in the order they ran ==")[1]
    assert ordered.index(f"p2: {mine['p2']} -> {target}") < ordered.index(
        f"p1: {mine['p1']} -> {target}"
    )
    assert "No orders from: p3, p4, p5, p6." in " ".join(ordered.split())


def test_away_and_any_mail_bringing_a_player_back(h):
    full_lobby(h)
    pw = h.password(PEOPLE[0], "terra-1")
    h.send(PEOPLE[0], "terra-1@judge.example", f"PASSWORD {pw}\nAWAY\n")
    assert "line 2: away" in h.last(PEOPLE[0])
    h.clock.set(h.game("terra-1").deadline)
    h.tick()
    engine = h.app.engine("territory")
    state = engine.load_state(h.game("terra-1").state)
    assert state.player["p1"].status == "absent"
    assert "p1 is away (said AWAY) and has 2 ticks to come back" in h.text(
        h.report(PEOPLE[1], "terra-1")
    )
    h.send(PEOPLE[0], "terra-1@judge.example", f"PASSWORD {pw}\nSTATUS\n")  # no orders
    h.clock.set(h.game("terra-1").deadline + timedelta(seconds=1))
    h.tick()
    state = engine.load_state(h.game("terra-1").state)
    assert state.player["p1"].status == "active"
    assert "p1 is back" in h.text(h.report(PEOPLE[1], "terra-1"))


def _local(when, zone):
    from pbem.turns.localtime import local

    return local(when, zone)


def test_away_and_back_give_the_dates_in_the_player_s_time_zone(h):
    from pbem.turns.deadlines import cron_after

    g = full_lobby(h)
    pw = h.password(PEOPLE[0], "terra-1")
    to = "terra-1@judge.example"
    h.send(PEOPLE[0], to, f"PASSWORD {pw}\nSET TIMEZONE America/New_York\n")
    h.send(PEOPLE[0], to, f"PASSWORD {pw}\nAWAY\n")
    reply = " ".join(h.last(PEOPLE[0]).split())
    cfg = h.app.game_config("terra-1")
    first = g.deadline
    until = cron_after(cfg, cron_after(cfg, first))  # absent_timer: 2 ticks
    assert f"you count as away from the tick at {_local(first, 'America/New_York')}" in reply
    assert f"your 2 ticks to come back end at the tick at {_local(until, 'America/New_York')}" in (
        reply
    )
    assert "(America/New_York)" in reply and "write BACK (or send any mail) before then" in reply
    # BACK in a later mail of the same tick takes the AWAY back
    h.send(PEOPLE[0], to, f"PASSWORD {pw}\nBACK\n")
    reply = " ".join(h.last(PEOPLE[0]).split())
    assert f"you count as present again from the tick at {_local(first, 'America/New_York')}" in (
        reply
    )
    h.clock.set(first)
    h.tick()
    state = h.app.engine("territory").load_state(h.game("terra-1").state)
    assert state.player["p1"].status == "active"
    assert "p1 is away" not in h.text(h.report(PEOPLE[1], "terra-1"))


def test_a_misspelt_state_gets_the_closest_names(h):
    g = full_lobby(h)
    state = h.app.engine("territory").load_state(g.state)
    mine = next(s for s, who in state.owners.items() if who == "p1")
    pw = h.password(PEOPLE[0], "terra-1")
    h.send(PEOPLE[0], "terra-1@judge.example", f"PASSWORD {pw}\n{mine} -> bordeux\n")
    reply = " ".join(h.last(PEOPLE[0]).split())
    assert "there is no state called 'bordeux' (did you mean: Bordeaux?)" in reply


def test_states_and_troops_everywhere_and_production_in_status(h):
    """A game of states and troops says so in its start mail and STATUS;
    STATUS lists every state with owner, troops and production; the
    report names the state each line is about; a mail with STATUS alone
    gets no sealed-orders hash, a mail with an order does."""
    g = full_lobby(h)
    start = h.text(h.outbox("started", PEOPLE[0])[0])
    assert "Your states and the orders they may give:" in start
    assert "units" not in start.lower() and "hold" not in start.lower(), start
    state = h.app.engine("territory").load_state(g.state)
    mine = {who: s for s, who in state.owners.items()}
    pw = {w: h.password(w, "terra-1") for w in PEOPLE[:2]}
    h.send(PEOPLE[0], "terra-1@judge.example", f"PASSWORD {pw[PEOPLE[0]]}\nSTATUS\n")
    status = h.last(PEOPLE[0])
    assert f"Your states: {mine['p1']}" in status
    paris = next(s for s in state.map.states if s.name == "Paris")
    line = next(x for x in status.splitlines() if x.strip().startswith("Paris "))
    assert f"{state.troops['Paris']} troops" in line and f"+{paris.production}" in line, line
    target = next(s.name for s in state.map.states if s.name not in state.owners)
    order = f"PASSWORD {pw[PEOPLE[1]]}\n{mine['p2']} -> {target}\n"
    h.send(PEOPLE[1], "terra-1@judge.example", order)
    h.clock.set(h.game("terra-1").deadline)
    h.tick()
    report = h.text(h.report(PEOPLE[0], "terra-1"))
    hashes = report.split("SHA-256 of each player's orders")[1].split("\n\n")[0]
    rows = {line.split()[0]: line for line in hashes.splitlines()[1:] if line.strip()}
    assert "no orders" in rows["p1"], hashes  # STATUS alone is no order
    assert "no orders" not in rows["p2"], hashes
    assert f"  {mine['p1']} -> any state (" in report  # the line names its state
