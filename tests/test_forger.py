"""A forger who mails wrong passwords with a player's (or the game
master's) From: address cannot lock the owner out: however many wrong ones
came, the owner's right password is checked and accepted, and answered. What
the forger's guesses cost is bounded instead: a guess already known wrong
costs no slow check again, and the game master is told after a few.
Played through the real server by mail."""

from __future__ import annotations

from tests.mailharness import GAMES_YAML, Harness

BOB = "bob@example.org"  # plays alpha in America/New_York
GM = "gm@example.org"  # alpha's master, password gm-secret
ALPHA = "alpha@judge.example"
# every reply counted: the cap on replies a day is not what these tests are about
ROOMY = GAMES_YAML.replace("idle_timeout: 5}", "idle_timeout: 5, replies_per_day: 1000}")
FORGED = 25


class SlowChecks:
    """The App's own verifier, its slow check counted (installed in place
    of the bound method; everything else is the verifier's)."""

    def __init__(self, judge: Harness) -> None:
        self.calls: list[str] = []
        verifier = judge.app.verifier
        check = verifier.check

        def counted(password: str, stored: str) -> bool:
            self.calls.append(password)
            return check(password, stored)

        verifier.check = counted  # type: ignore[method-assign]


def _forge(judge: Harness, sender: str, body: str, n: int = FORGED) -> None:
    with judge.smtp() as s:
        for i in range(n):
            s.send_message(judge.message(sender, ALPHA, body.format(i=i)))
    judge.settle(120)


def test_forged_mails_cannot_lock_the_real_player_out(tmp_path):
    judge = Harness(tmp_path, ROOMY)
    try:
        _forge(judge, BOB, "PASSWORD guess{i}\nVega attacks Rigel\n")
        forged = judge.app.store.mails()
        assert [m.state for m in forged] == ["refused"] * FORGED
        # each refusal said so, to bob's registered address, and the
        # game master was told they keep coming
        assert "password is missing or wrong" in judge.text(judge.outbox("receipt", BOB)[0])
        assert any("repeated failed credentials" in str(m["Subject"]) for m in judge.outbox(to=GM))
        # bob's own mail, with his password: applied and answered
        judge.send(BOB, ALPHA, f"PASSWORD {judge.password(BOB)}\nVega holds\n")
        assert judge.app.store.mails()[-1].state == "applied"
        receipt = judge.last(BOB)
        assert "Understood" in receipt and "Vega holds" in receipt
        assert "paused" not in receipt
    finally:
        judge.close()


def test_the_game_master_is_not_locked_out_either(tmp_path):
    judge = Harness(tmp_path, ROOMY)
    try:
        deadline = judge.game().deadline
        _forge(judge, GM, "PASSWORD guess{i}\nPAUSE\n")
        assert judge.game().status == "running"
        refusal = judge.text(judge.outbox("receipt", GM)[0])
        assert "the game master's password is missing or wrong" in refusal
        judge.send(GM, ALPHA, "PASSWORD gm-secret\nEXTEND 12h\n")
        assert judge.app.store.mails()[-1].state == "applied"
        assert "the deadline of alpha is now" in judge.last(GM)
        assert judge.game().deadline > deadline
    finally:
        judge.close()


def test_a_wrong_guess_sent_again_costs_no_slow_check(tmp_path):
    judge = Harness(tmp_path, ROOMY)
    try:
        checks = SlowChecks(judge)
        judge.send(BOB, ALPHA, "PASSWORD same-guess\nVega holds\n")
        assert checks.calls == ["same-guess"]
        for _ in range(3):
            judge.send(BOB, ALPHA, "PASSWORD same-guess\nVega holds\n")
        assert checks.calls == ["same-guess"]
        assert [m.state for m in judge.app.store.mails()] == ["refused"] * 4
        # the right one is still checked (once), and accepted
        judge.send(BOB, ALPHA, f"PASSWORD same-guess\nPASSWORD {judge.password(BOB)}\nVega holds\n")
        assert judge.app.store.mails()[-1].state == "applied"
        assert len(checks.calls) == 2
    finally:
        judge.close()
