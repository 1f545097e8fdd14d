"""Empire by mail: judge-style reports, the end of a game, and the
scoreboard across games (RANK, pbem rank)."""

from __future__ import annotations

from datetime import UTC, datetime

from pbem.cli.main import main
from pbem.store import Store
from tests.mailharness import EVENINGS, Harness, empire_yaml, served

DIP = (*EVENINGS, "options: {last_year: 1901}", "seed: 3")
YAML = empire_yaml(*DIP)  # tests/test_empire_deadlines.py and test_rollback.py play it too
h = served(YAML)
paged = served(empire_yaml(*DIP, web=True), fresh_pages=True)


def state(h):
    """dip's state (the other files that play it read it so)."""
    return h.empire_state()


def orders(h, power, text):
    """Mail ``text`` to dip from the player of ``power``: the reply, and
    the player's name."""
    who = h.empire_state().player_of[power]
    return h.play(who, text), who


def test_a_game_by_mail_with_judge_style_reports_and_the_scoreboard(h):
    reply, _ = orders(h, "Germany", "A Munich - Tyrolia\nA Berlin -> Kiel\nF KIE - HOL")
    assert "A MUN - TYR" in reply and "F KIE - HOL" in reply
    reply, _ = orders(h, "Italy", "Army Venice moves to Tyrolia\nA Rome - Paris")
    assert "Paris cannot be reached from rom" in reply or "cannot be reached" in reply
    reply, austria = orders(h, "Austria", "A Vienna - Tyrolia")
    h.clock.set(h.game("dip").deadline)
    h.tick()
    text = h.text(h.report(f"{austria}@example.org", "dip"))
    assert text.startswith(":: Judge: pbem  Game: dip  Variant: Standard")
    assert ":: Deadline: F1901M" in text
    assert "A VIE - TYR  (*bounce*)" in text and "A MUN - TYR  (*bounce*)" in text
    assert "F KIE - HOL" in text
    # Fall: Holland is taken; the Winter of the last year ends the game
    orders(h, "Germany", "A Kiel H")
    h.clock.set(h.game("dip").deadline)
    h.tick()
    s = h.empire_state()
    assert s.owners["hol"] == "Germany"
    if s.code.startswith("W"):
        h.clock.set(h.game("dip").deadline)
        h.tick()
    assert h.game("dip").status == "finished"
    final = h.text(h.report(f"{austria}@example.org", "dip"))
    assert "== The game is over ==" in final and "christmas eve 1901" in final
    h.send("fan@example.org", "judge@judge.example", "RANK\n")
    lines = h.last("fan@example.org").splitlines()
    board = lines[lines.index("The scoreboard (points over finished games, never below 0):") + 1 :]
    germany, russia = h.empire_state().player_of["Germany"], h.empire_state().player_of["Russia"]
    # best first: Germany (Holland taken) and Russia have 4 centres each
    assert sorted(line.split()[1] for line in board[:2]) == sorted([germany, russia])
    assert "@" not in h.last("fan@example.org")  # players by name: RANK shows no address
    assert all("4 points in 1 game" in line for line in board[:2])
    assert all("3 points" in line for line in board[2:7])


def test_pbem_rank_prints_the_scoreboard(h, capsys):
    with h.app.store.tx() as conn:
        h.app.store.add_scores(conn, "old", [("ann@example.org", "ann", 7)], h.clock.now())
    assert main(["rank", "--config", str(h.root / "games.yaml")]) == 0
    assert "ann@example.org" in capsys.readouterr().out


def test_the_scoreboard_across_two_games_never_goes_below_zero(tmp_path, capsys):
    store = Store.at(tmp_path / "db.sqlite")
    store.migrate()
    first, second = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
    with store.tx() as conn:
        store.add_scores(conn, "one", [("a@x.org", "ann", 5), ("b@x.org", "bob", -3)], first)
        store.add_scores(conn, "two", [("a@x.org", "ann", -3), ("b@x.org", "bob", 4)], second)
        store.add_scores(conn, "two", [("a@x.org", "ann", 99)], second)  # once only
        ranking = store.ranking(conn)
    assert ranking == [("b@x.org", 4, 2), ("a@x.org", 2, 2)]  # bob: 0 - 3 -> 0, then 4
    store.close()


def test_end_game_by_the_master_scores_the_centres_as_they_stand(tmp_path):
    h = Harness(tmp_path, empire_yaml(*DIP, "master: {email: gm@example.org, password: gm}"))
    try:
        h.send("gm@example.org", "dip@judge.example", "PASSWORD gm\nEND GAME\n")
        h.confirm("gm@example.org")  # END GAME waits for the master to confirm it
        assert h.game("dip").status == "finished"
        with h.app.store.tx(write=False) as conn:
            ranking = h.app.store.ranking(conn)
        russia = h.empire_state().player_of["Russia"]
        assert ranking[0] == (f"{russia}@example.org", 4, 1) and len(ranking) == 7
    finally:
        h.close()


def test_a_player_orders_in_the_judges_notation_and_reads_the_receipt_and_report(h):
    reply, france = orders(h, "France", "A PAR-BUR, A MAR S A PAR-BUR\nF BRE-MAO\nF BRE - ECH")
    assert "line 2: A PAR - BUR" in reply and "line 2: A MAR S A PAR - BUR" in reply
    assert "line 4: F BRE - ENG" in reply
    assert "Note: line 4: replaces your earlier order for F BRE (F BRE - MAO)" in reply
    assert "MOVE" not in reply
    reply, _ = orders(h, "England", "A liverpol - yorkshire\nF LON - Narnia\nF EDI-NTH")
    assert "line 2: A LVP - YOR" in reply
    assert "Note: line 2: read 'liverpol' as Liverpool (LVP)" in reply
    assert "line 3: \"F LON - Narnia\": there is no province called 'Narnia'" in reply
    reply, germany = orders(h, "Germany", "A MUN-BUR\nA BER S A MUN - SIL\nF KIE-HOL")
    assert "Note: line 3: your A MUN is ordered A MUN - BUR, not MUN - SIL" in reply
    reply, _ = orders(h, "Russia", "BUILD A MOS")
    assert "you build in the Winter adjustments" in reply
    h.clock.set(h.game("dip").deadline)
    h.tick()
    text = h.text(h.report(f"{france}@example.org", "dip")).replace("\r\n", "\n")
    assert "Empire: dip, Spring 1901, movement (S1901M) results" in text
    assert "  A PAR - BUR\n" in text and "  A MAR S A PAR - BUR\n" in text
    assert "  A MUN - BUR  (*bounce*)" in text
    assert "  A BER S A MUN - SIL  (*void*)" in text
    assert "== Units after S1901M ==" in text
    assert "  France: A BUR, F ENG, A MAR" in text
    assert "  France (3): BRE, MAR, PAR" in text
    assert "Next: Fall 1901, movement (F1901M)" in text


def test_nobody_is_charged_a_missed_retreat_phase_they_had_no_part_in(h):
    orders(h, "Turkey", "F ANK-BLA, A SMY-ARM")
    h.clock.set(h.game("dip").deadline)
    h.tick()
    orders(h, "Turkey", "A ARM-SEV, F BLA S A ARM-SEV")  # the Russian F SEV is dislodged
    h.clock.set(h.game("dip").deadline)
    h.tick()
    s = h.empire_state()
    assert s.code == "F1901R" and list(s.dislodged) == ["sev"]
    russia, turkey = s.player_of["Russia"], s.player_of["Turkey"]
    report = h.text(h.report(f"{russia}@example.org", "dip")).replace("\r\n", "\n")
    assert "Russia: F SEV (dislodged from ARM), may retreat to RUM" in report
    assert "  F SEV H  (*dislodged*) by the unit from ARM; may retreat to RUM" in report
    assert "  F SEV: disbands; retreats to RUM" in report  # what Russia may order
    h.clock.set(h.game("dip").deadline)
    h.tick()  # nobody orders the retreat
    assert h.empire_state().code != "F1901R"
    report = h.text(h.report(f"{russia}@example.org", "dip")).replace("\r\n", "\n")
    results = report.split("== Results of Fall 1901, retreats (F1901R) ==")[1].split("== Units")[0]
    assert results.split() == ["Russia", f"({russia}),", "no", "orders:", "F", "SEV", "D",
                               "(*disbanded*)"]  # fmt: skip
    with h.app.store.tx(write=False) as conn:
        missed = {p.name: p.missed for p in h.app.store.players(conn, "dip")}
    # two movement phases missed by all but Turkey; the retreat phase only
    # concerned Russia
    assert missed[turkey] == 0 and missed[russia] == 3
    others = [p.name for p in s.players if p.power not in ("Russia", "Turkey")]
    assert len(others) == 5 and all(missed[name] == 2 for name in others)


def test_the_web_pages_name_the_phase_in_words(paged):
    """The game list, the game page and a played phase's page say
    "Spring 1901, movement (S1901M)", not the code alone."""
    h = paged
    assert "Spring 1901, movement (S1901M)" in h.page("/")
    assert "Now: <strong>Spring 1901, movement (S1901M)</strong>" in h.page("/games/dip")
    h.clock.set(h.game("dip").deadline)
    h.tick()
    game = h.page("/games/dip")
    assert "Now: <strong>Fall 1901, movement (F1901M)</strong>" in game
    assert ">Spring 1901, movement (S1901M)</a>" in game  # the history's link
    assert "dip, Spring 1901, movement (S1901M) results" in h.page("/games/dip/turns/1")


def test_a_retreat_phase_tells_those_with_nothing_to_order_so(h):
    """Fall 1901: Venice is dislodged, so only Italy orders in the retreat
    phase. Every other player's report says they have nothing to order,
    not "send your orders"; an order from one of them is answered that
    way, not with how retreats are written."""
    orders(h, "Austria", "F TRI - ALB\nA VIE - TRI")
    orders(h, "Germany", "A MUN - TYR")
    orders(h, "Italy", "A VEN H")
    h.clock.set(h.game("dip").deadline)
    h.tick()
    orders(h, "Germany", "A TYR - VEN")
    orders(h, "Austria", "A TRI S A TYR - VEN")
    h.clock.set(h.game("dip").deadline)
    h.tick()
    s = h.empire_state()
    assert s.code == "F1901R", s.code
    italy, germany = s.player_of["Italy"], s.player_of["Germany"]
    told = h.text(h.report(f"{germany}@example.org", "dip"))
    assert "You have nothing to order in F1901R" in told
    assert "Send your orders" not in told
    asked = h.text(h.report(f"{italy}@example.org", "dip"))
    assert "Send your orders by replying" in asked
    reply, _ = orders(h, "Germany", "A VEN - PIE")
    assert "nothing to order in this retreat phase: none of your units was dislodged" in reply


def test_press_by_power(h):
    """Diplomacy players write to powers and sign as powers: PRESS France,
    PRESS TO France, Italy and BROADCAST reach the players of those
    powers, signed "Germany (name)", and the answer hint names the power."""
    s = h.empire_state()
    germany, france, italy = (s.player_of[p] for p in ("Germany", "France", "Italy"))
    reply, _ = orders(h, "Germany", "PRESS France\nShall we share Belgium?\nENDPRESS")
    assert f"press sent to France ({france})" in reply, reply
    mail = h.outbox("press", f"{france}@example.org")[-1]
    assert mail["Subject"] == f"[dip] press from Germany ({germany})"
    body = h.text(mail)
    assert f"Press in dip from Germany ({germany}) to France ({france}):" in body
    assert "Shall we share Belgium?" in body and "a line PRESS Germany" in body
    reply, _ = orders(h, "Germany", "PRESS TO france, Italy\nA word to two.\nENDPRESS")
    assert f"press sent to France ({france}), Italy ({italy})" in reply, reply
    assert "A word to two." in h.text(h.outbox("press", f"{italy}@example.org")[-1])
    reply, _ = orders(h, "Germany", "BROADCAST\nTo all of Europe.\nENDPRESS")
    assert "press sent to Austria (" in reply and "Turkey (" in reply, reply
    for power in ("Austria", "England", "France", "Italy", "Russia", "Turkey"):
        to = f"{s.player_of[power]}@example.org"
        assert "To all of Europe." in h.text(h.outbox("press", to)[-1]), power
    reply, _ = orders(h, "Germany", "PRESS Prussia\nhello\nENDPRESS")
    assert "press not sent: no player called prussia" in reply
