"""The game master: by mail (the master address and password of
games.yaml) and by `pbem master`."""

from __future__ import annotations

from datetime import timedelta

from pbem.cli.main import main
from tests.mailharness import ALPHA, ANN, BOB, CID, GM, Harness, served, wait_for

h = served()


def test_the_master_password_is_needed(h):
    h.send(GM, ALPHA, "PASSWORD wrong\nPAUSE\n")
    assert "the game master's password is missing or wrong" in h.last(GM)
    assert h.game().status == "running"


def test_pause_stops_the_clock_and_resume_sets_a_fresh_deadline(h):
    deadline = h.game().deadline
    assert "alpha is paused" in h.as_master("PAUSE")
    h.clock.set(deadline + timedelta(hours=1))
    h.tick()
    assert h.game().turn == 1 and h.game().status == "paused"
    assert "deadline" in h.as_master("RESUME")
    g = h.game()
    assert g.status == "running" and g.deadline - h.clock.now() >= timedelta(hours=6)
    h.clock.set(g.deadline)
    h.tick()
    assert h.game().turn == 2


def test_extend_moves_the_deadline(h):
    deadline = h.game().deadline
    assert "the deadline of alpha is now" in h.as_master("EXTEND 12h")
    assert h.game().deadline == deadline + timedelta(hours=12)
    h.clock.set(deadline)
    h.tick()
    assert h.game().turn == 1
    assert "EXTEND needs a duration" in h.as_master("EXTEND soon")


def test_adjudicate_resolves_the_turn_now(h):
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nSol attacks Alnitak\n")
    assert "resolved now" in h.as_master("ADJUDICATE")
    wait_for(lambda: h.game().turn == 2, 10, "the forced turn")
    h.settle()
    text = h.text(h.report(ANN))
    assert "by the game master" in text and "conquered Alnitak" in text


def test_replace_gives_the_seat_to_someone_new(h):
    old_password = h.password(CID)
    assert "new@example.org now plays cid" in h.as_master("REPLACE cid WITH new@example.org")
    assert "You have been replaced in alpha" in h.last(CID, "alert")
    h.send(CID, ALPHA, f"PASSWORD {old_password}\nAltair holds\n")
    assert "not a player of alpha" in h.last(CID)
    h.send("new@example.org", ALPHA, f"PASSWORD {h.password('new@example.org')}\nREADY\n")
    assert "READY noted" in h.last("new@example.org")


def test_remove_and_end_game(h):
    assert "cid is out of alpha" in h.as_master("REMOVE cid")
    with h.app.store.tx(write=False) as conn:
        assert {p.name: p.status for p in h.app.store.players(conn, "alpha")}["cid"] == "removed"
    assert "no active player called 'zed'" in h.as_master("REMOVE zed")
    assert "waits for your confirmation" in h.as_master("END GAME")
    assert h.game().status == "running"
    h.confirm(GM)
    assert "alpha is over" in h.last(GM)
    assert h.game().status == "finished"
    over = [m for m in h.outbox("report", ANN) if m["Subject"] == "[alpha] game over"]
    assert over and "Final standings:" in h.text(over[0])
    # the board as the game ended, attached, for each reader (the master too)
    maps = [p for p in over[0].walk() if p.get_filename() == "map-final.png"]
    assert maps and maps[0].get_content().startswith(b"\x89PNG"), over[0]
    assert "map-final.png, attached, is the board as the game ended." in h.text(over[0])
    master = [m for m in h.outbox("report", GM) if m["Subject"] == "[alpha] game over"]
    assert len(master) == 1 and any(p.get_filename() == "map-final.png" for p in master[0].walk())
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nSol holds\n")
    assert "the game is over" in h.last(ANN)


def test_the_masters_words_from_a_player_are_only_order_lines(h):
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nPAUSE\nREMOVE bob\n")
    reply = h.last(ANN)
    assert 'line 2: "PAUSE": this is not an order' in reply
    assert 'line 3: "REMOVE bob"' in reply
    assert h.game().status == "running"


def test_status_shows_orders_ready_and_missed_turns(h):
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nSol holds\nREADY\n")
    reply = h.as_master("STATUS")
    assert "ann" in reply and "(orders in, READY)" in reply and "missed 0" in reply


def test_the_command_line_does_the_same(h, capsys):
    config = str(h.root / "games.yaml")
    assert main(["master", "alpha", "pause", "--config", config]) == 0
    assert h.game().status == "paused"
    assert main(["master", "alpha", "adjudicate", "--config", config]) == 2
    assert "RESUME it first" in capsys.readouterr().err
    assert main(["master", "alpha", "resume", "--config", config]) == 0
    assert main(["master", "alpha", "adjudicate", "--config", config]) == 0
    assert "tick 1 resolved" in capsys.readouterr().out
    assert h.game().turn == 2
    assert main(["master", "alpha", "status", "--config", config]) == 0
    # no one is charged a missed turn: the master ran the turn before its
    # deadline, when every player still had time to send orders
    out = capsys.readouterr().out
    assert "missed 0" in out and "missed 1" not in out
    assert main(["master", "alpha", "extend", "--config", config]) == 2


def test_guessing_the_master_password_never_locks_the_master_out(h):
    for i in range(20):
        h.send(GM, ALPHA, f"PASSWORD guess{i}\nPAUSE\n")
    h.send(GM, ALPHA, "PASSWORD gëss-ünïcode\nPAUSE\n")  # any text compares, none raises
    assert h.game().status == "running"
    assert {m.state for m in h.app.store.mails()} == {"refused"}
    # the right password is checked at once, however many wrong ones came
    h.send(GM, ALPHA, "PASSWORD gm-secret\nPAUSE\n")
    assert h.app.store.mails()[-1].state == "applied"
    assert h.game().status == "paused"


def _missed(h: Harness) -> dict[str, int]:
    with h.app.store.tx(write=False) as conn:
        return {p.name: p.missed for p in h.app.store.players(conn, "alpha")}


def test_a_turn_cut_short_charges_no_missed_turn_to_those_with_time_left(h):
    """The master's ADJUDICATE before the deadline: bob and cid, who sent
    nothing, had time left, so no missed turn is charged (their units hold);
    at the next real deadline, silence is charged as always."""
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nSol attacks Alnitak\n")
    assert "resolved now" in h.as_master("ADJUDICATE")
    wait_for(lambda: h.game().turn == 2, 10, "the forced turn")
    h.settle()
    assert _missed(h) == {"ann": 0, "bob": 0, "cid": 0}
    report = h.text(h.report(BOB))
    assert "bob (" in report and "turns missed" not in report
    status = h.as_master("STATUS")
    assert "missed 1" not in status and "missed 0" in status
    # turn 2 runs out with no orders from anyone: now everyone is charged
    h.clock.set(h.game().deadline)
    h.tick()
    h.settle()
    assert h.game().turn == 3
    assert _missed(h) == {"ann": 1, "bob": 1, "cid": 1}
    assert "turns missed: 1" in h.text(h.report(BOB))


def _owing(status: str) -> str:
    return next(line for line in status.splitlines() if "still to send orders" in line)


def test_status_names_who_still_owes_orders(h):
    owe = _owing(h.as_master("STATUS"))
    assert "ann" in owe and "bob" in owe and "cid" in owe
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nSol holds\n")
    h.send(BOB, ALPHA, f"PASSWORD {h.password(BOB)}\nREADY\n")
    owe = _owing(h.as_master("STATUS"))
    assert "cid" in owe and "ann" not in owe and "bob" not in owe
    h.send(CID, ALPHA, f"PASSWORD {h.password(CID)}\nRigel holds\n")
    assert "every player who owes orders this phase has sent them" in h.as_master("STATUS")
