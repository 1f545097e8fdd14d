"""Implosion by mail: each mail adds orders, CLEAR withdraws them, orders
run in the order the server received the mails, and the reports show every
roll and commit to the next turn's seed."""

from __future__ import annotations

import hashlib
import re
import urllib.request

import pytest

from tests.mailharness import Harness

RING = "ring@judge.example"
ANN, BOB = "ann@example.org", "bob@example.org"
YAML = """\
server:
  domain: judge.example
  listen: {host: 127.0.0.1, port: 0}
  storage: var/pbem.sqlite
  outbound: {from: judge@judge.example, maildir: var/mail}
  limits: {replies_per_day: 100}
games:
  - name: ring
    game: implosion
    map: ring
    timezone: Europe/Oslo
    options: {turns: 3}
    seed: 9
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org}
    master: {email: gm@example.org, password: gm-secret}
"""


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path, YAML)
    yield harness
    harness.close()


def board(h):
    engine = h.app.engine("implosion")
    return engine.load_state(h.game("ring").state)


def orders(h, who, text):
    h.send(who, RING, f"PASSWORD {h.password(who, 'ring')}\n{text}\n")
    return h.last(who)


def test_each_mail_adds_orders_and_clear_withdraws_them(h):
    s = board(h)
    start = s.player["ann"].start
    a, b = s.board.adjacency[start][:2]
    reply = orders(h, ANN, f"move 3 from {start} to {a}")
    assert "These orders are added to your orders for turn 1 of 3" in reply
    reply = orders(h, ANN, f"{start} -> {b}")
    standing = reply.split("Your orders now, in that order:")[1]
    assert standing.index(f"move 3 from {start} to {a}") < standing.index(
        f"move all from {start} to {b}"
    )
    reply = orders(h, ANN, f"CLEAR\nmove 2 from {start} to {b}")
    assert "your earlier orders for turn 1 of 3 are withdrawn" in reply
    standing = reply.split("Your orders now, in that order:")[1]
    assert f"move 2 from {start} to {b}" in standing and f"to {a}" not in standing
    h.clock.set(h.game("ring").deadline)
    h.tick()
    results = h.text(h.report(ANN, "ring")).split("== What happened ==")[0]
    assert f"move 2 from {start} to {b}: moved 2 units to {b}" in results
    assert f"to {a}" not in results


def test_the_mail_received_first_moves_first(h):
    """Bob's mail reaches the server before ann's: his orders run first."""
    import json

    s = board(h)
    ann_start, bob_start = s.player["ann"].start, s.player["bob"].start
    orders(h, BOB, f"move 4 from {bob_start} to {s.board.adjacency[bob_start][0]}")
    orders(h, ANN, f"move 11 from {ann_start} to {s.board.adjacency[ann_start][0]}")
    h.clock.set(h.game("ring").deadline)
    h.tick()
    with h.app.store.tx(write=False) as conn:
        queue = h.app.store.submission_queue(conn, "ring", 1)
        record = json.loads(h.app.store.turn_result(conn, "ring", 1))
    assert queue["bob"][0][0] < queue["ann"][0][0]
    assert [r["player"] for r in record["results"]] == ["bob", "ann"]


def test_reports_list_the_rolls_and_reveal_the_committed_seed(h):
    s = board(h)
    # set up a battle by hand for turn 2: ann's units next to bob's
    start = s.player["ann"].start
    near = s.board.adjacency[start][0]
    orders(h, ANN, f"move 6 from {start} to {near}")
    h.clock.set(h.game("ring").deadline)
    h.tick()
    first = h.text(h.report(ANN, "ring"))
    committed = re.search(r"next turn's seed, revealed in the next report:\s+(\w+)", first)[1]
    h.clock.set(h.game("ring").deadline)
    h.tick()
    second = h.text(h.report(ANN, "ring"))
    seed = re.search(r"Random seed of this turn: (\d+)", second)[1]
    assert hashlib.sha256(seed.encode()).hexdigest() == committed


def test_a_battle_in_a_report_shows_its_shots(h):
    # ann and bob next to each other on ring 9, placed in storage by hand
    from dataclasses import replace

    from sqlalchemy import update

    from pbem.store.schema import games

    engine = h.app.engine("implosion")
    s = board(h)
    ring9 = sorted((n for n in s.board.nodes if n.ring == 9), key=lambda n: n.pos)
    a, b = ring9[0].name, ring9[1].name
    units = dict(s.units)
    units[a] = ("ann", 9)
    units[b] = ("bob", 2)
    with h.app.store.tx() as conn:
        conn.execute(
            update(games)
            .where(games.c.name == "ring")
            .values(state=engine.dump_state(replace(s, units=units)))
        )
    orders(h, ANN, f"move 9 from {a} to {b}")
    h.clock.set(h.game("ring").deadline)
    h.tick()
    text = " ".join(h.text(h.report(BOB, "ring")).split())  # lines are wrapped at 72
    assert re.search(
        rf"battle for {re.escape(b)}: 9 units against 2 of bob, shots D[+-]( [AD][+-])*", text
    )


def test_status_lists_each_unit_s_connections(h):
    s = board(h)
    start = s.player["ann"].start
    reply = " ".join(orders(h, ANN, "STATUS").split())
    links = ", ".join(f"{t} (empty)" for t in s.board.adjacency[start])
    assert f"{start}: has 12 units; connects to {links}" in reply


def test_a_typo_gets_the_closest_nodes_and_away_is_refused(h):
    s = board(h)
    start = s.player["ann"].start
    near = s.board.adjacency[start][0]
    reply = " ".join(orders(h, ANN, f"move 2 from {start}9 to {near}\nAWAY").split())
    assert f"there is no node '{start}9'" in reply
    assert f"(did you mean: {start}" in reply
    assert 'line 3: "AWAY": Implosion has no absence rule' in reply


def test_one_unit_reads_as_one_unit(h):
    s = board(h)
    start = s.player["ann"].start
    near = s.board.adjacency[start][0]
    orders(h, ANN, f"move 1 from {start} to {near}")
    h.clock.set(h.game("ring").deadline)
    h.tick()
    text = " ".join(h.text(h.report(ANN, "ring")).split())
    assert f"move 1 from {start} to {near}: moved 1 unit to {near}" in text


def test_clear_withdraws_the_lines_above_it_in_the_same_mail(h):
    """CLEAR in the middle of a mail: what came before it, in earlier mails
    and above it in this one, is withdrawn; the receipt says which lines."""
    s = board(h)
    start = s.player["ann"].start
    a, b = s.board.adjacency[start][:2]
    reply = orders(h, ANN, f"move 3 from {start} to {a}\nCLEAR\nmove 2 from {start} to {b}")
    assert "line 2: withdrawn by the CLEAR on line 3" in reply, reply
    assert "there were no orders from earlier mails to withdraw" in reply
    standing = reply.split("Your orders now, in that order:")[1]
    assert f"move 2 from {start} to {b}" in standing and f"to {a}" not in standing
    assert "above it in the same mail" in reply  # the hint says what CLEAR does


def test_a_big_board_s_map_is_shown_at_full_size_by_mail_and_on_the_web(tmp_path):
    """The map of twelve players is wider than the 800 pixels of a small
    board's: the mail and the game's pages show it at its own width, in a
    box that scrolls sideways, not scaled down to the text's column, where
    its names and unit counts could not be read."""
    seats = "".join(f"      - {{name: p{i}, email: p{i}@example.org}}\n" for i in range(12))
    yaml = YAML.replace(YAML[YAML.index("    players:") : YAML.index("    master:")],
                        "    players:\n" + seats)  # fmt: skip
    yaml = yaml.replace("  limits:", "  web: {listen: {host: 127.0.0.1, port: 0}}\n  limits:")
    h = Harness(tmp_path, yaml)
    try:
        h.clock.set(h.game("ring").deadline)
        h.tick()
        mail = h.report("p0@example.org", "ring")
        png = next(p for p in mail.walk() if p.get_content_type() == "image/png")
        html = next(p for p in mail.walk() if p.get_content_type() == "text/html").get_content()
        width = int.from_bytes(png.get_content()[16:20], "big")
        assert width == 912  # 800, and 8 pixels for each of the rim's 24 nodes past ten
        assert f'width="{width}" style="max-width: none"' in html
        assert '<div style="overflow-x: auto"><img src="cid:map@pbem"' in html
        for path in ("/games/ring", "/games/ring/turns/1"):
            url = f"http://127.0.0.1:{h.server.web.port}{path}"
            with urllib.request.urlopen(url, timeout=20) as response:
                assert '<figure class="full">' in response.read().decode(), path
    finally:
        h.close()
