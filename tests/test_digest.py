"""The digest of held replies reads as one mail: each held reply's
substance, one closing line that is true, and a Reply-To only where
replying to it works. Played by mail through the real server: a player
runs into the daily cap, waits for midnight, reads the digest and answers
it."""

from __future__ import annotations

import re

import pytest

from pbem.mail.replycap import SEVERAL_GAMES
from tests.mailharness import GAMES_YAML, Harness

ANN = "ann@example.org"
ALPHA, BETA = "alpha@judge.example", "beta@judge.example"
CAP = 10  # limits.replies_per_day by default, and proven_replies_per_day here


@pytest.fixture
def judge(tmp_path):
    """A server whose replies to proven mail are capped at 10 a day too."""
    small = GAMES_YAML.replace("idle_timeout: 5}", "idle_timeout: 5, proven_replies_per_day: 10}")
    harness = Harness(tmp_path, small)
    try:
        yield harness
    finally:
        harness.close()


def _fill_the_cap(judge: Harness, then: list[tuple[str, str]], proven: bool = True) -> None:
    """Ann mails alpha until the cap of a pool is reached (with her
    password, or ``proven`` False: without), then the mails ``then``
    (address, body), whose replies are held."""
    pw = judge.password(ANN)
    for i in range(CAP):
        body = f"PASSWORD {pw}\nSol holds\n" if proven else "Sol holds\n"
        judge.send(ANN, ALPHA, body, subject=f"orders {i}")
    assert "further replies today are held" in judge.last(ANN)
    for n, (to, body) in enumerate(then):
        judge.send(ANN, to, body, subject=f"held {n}")
    held = [r for r in judge.app.store.outbox_rows(to_addr=ANN) if r.status == "held"]
    assert len(held) == len(then)


def _digest(judge: Harness):
    judge.advance(hours=24)  # past midnight (UTC): the cap resets
    digests = judge.outbox("digest", ANN)
    assert len(digests) == 1
    return digests[0]


def test_a_digest_has_one_closing_line_and_its_reply_to_works(judge):
    pw = judge.password(ANN)
    _fill_the_cap(
        judge,
        [(ALPHA, f"PASSWORD {pw}\nSol attacks Alnitak\n"), (ALPHA, f"PASSWORD {pw}\nSol hodls\n")],
    )
    digest = _digest(judge)
    text = judge.text(digest).replace("\r\n", "\n")
    assert text.startswith("2 replies held from ")
    assert "The daily cap on replies held 2 replies to you" in " ".join(text.split())
    intro = text.split("\n\n")[1]  # after the subject line: wrapped for a mail window
    assert intro.startswith("The daily cap") and max(map(len, intro.splitlines())) <= 72
    assert "mail(s)" not in text
    # each held receipt's substance, in order
    first, second = text.index("=== 1. Re: held 0"), text.index("=== 2. Re: held 1")
    assert first < second
    assert "Sol attacks Alnitak" in text[first:second]
    assert '"Sol hodls"' in text[second:]
    # one closing line, at the end, and none of the held receipts' own
    assert len(re.findall(r"reply to this mail", text, re.I)) == 1
    assert re.search(r"reply to this mail[^=]*\Z", text, re.I | re.S)
    assert "This is the last reply" not in text
    # the Reply-To it promises works: orders sent to it, without a password, count
    reply_to = str(digest["Reply-To"])
    assert reply_to.startswith("alpha+")
    judge.send(ANN, reply_to, "Sol holds\n", subject="Re: " + digest["Subject"])
    mine = judge.app.store.mails()[-1]
    assert mine.state == "applied"
    assert "Understood:" in judge.last(ANN)


def test_a_digest_for_two_games_promises_no_reply_address(judge):
    pw_alpha, pw_beta = judge.password(ANN), judge.password(ANN, "beta")
    _fill_the_cap(
        judge,
        [(ALPHA, f"PASSWORD {pw_alpha}\nSol holds\n"), (BETA, f"PASSWORD {pw_beta}\nSol holds\n")],
    )
    digest = _digest(judge)
    text = judge.text(digest).replace("\r\n", "\n")
    assert digest["Reply-To"] is None
    assert not re.search(r"reply to this mail", text, re.I)
    assert " ".join(SEVERAL_GAMES.split()) in " ".join(text.split())
    assert "== alpha" in text and "== beta" in text


def test_a_digest_of_refusals_only_makes_no_promise(judge):
    """Held refusals of mails with no credentials carry no reply address:
    neither does their digest, and it says nothing about replying."""
    _fill_the_cap(
        judge, [(ALPHA, "Sol holds\n"), (ALPHA, "PASSWORD wrong\nSol holds\n")], proven=False
    )
    digest = _digest(judge)
    text = judge.text(digest).replace("\r\n", "\n")
    assert digest["Reply-To"] is None
    assert "the password is missing or wrong" in text
    assert not re.search(r"reply to this mail", text, re.I)


def test_one_digest_holds_the_replies_of_both_pools(judge):
    """Both pools full: a held receipt of each comes in the one digest."""
    pw = judge.password(ANN)
    _fill_the_cap(judge, [(ALPHA, f"PASSWORD {pw}\nSol attacks Alnitak\n")])
    for i in range(CAP):  # the replies to mail that proves nothing: a pool of their own
        judge.send(ANN, ALPHA, "Sol holds\n", subject=f"unproven {i}")
    unproven = judge.app.store.outbox_rows("receipt", ANN)[-CAP:]
    assert [r.status for r in unproven].count("held") == 0
    judge.send(ANN, ALPHA, "PASSWORD wrong\nSol holds\n", subject="held too")
    held = [r for r in judge.app.store.outbox_rows(to_addr=ANN) if r.status == "held"]
    assert len(held) == 2
    text = " ".join(judge.text(_digest(judge)).split())
    assert "held 2 replies to you" in text
    assert "Sol attacks Alnitak" in text and "the password is missing or wrong" in text
