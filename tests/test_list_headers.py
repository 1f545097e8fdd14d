"""The list headers of every kind of mail the server writes, read from the
mails themselves (the outbox's bytes, and the Maildir they were delivered
to): List-Id per game (RFC 2919), List-Help, List-Unsubscribe for observers
with List-Unsubscribe-Post only beside an HTTPS address (RFC 8058),
Auto-Submitted (RFC 3834), Precedence: list on what goes to the whole
game, and References to the game's thread root."""

from __future__ import annotations

import email
import email.policy
import re
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.mail.lists import unsubscribe_token
from pbem.mail.parse import MAX_HEADERS
from tests.mailharness import GAMES_YAML, Harness
from tests.test_territory_mail import PEOPLE, full_lobby
from tests.test_territory_mail import YAML as TERRA_YAML

ALPHA = "alpha@judge.example"
ANN, BOB, GM = "ann@example.org", "bob@example.org", "gm@example.org"
WATCHER = "watcher@example.org"
WEB = "  web: {listen: {host: 127.0.0.1, port: 0}, url: 'https://judge.example/pbem/'}\n"
YAML = GAMES_YAML.replace("  limits:", WEB + "  limits:", 1).replace(
    "    master: {email: gm@example.org, password: gm-secret}\n",
    f"    master: {{email: gm@example.org, password: gm-secret}}\n    observers: [{WATCHER}]\n",
    1,
)
LIST_ID = '"Office Wars game alpha" <alpha.judge.example>'
# RFC 2919: [phrase] "<" list-label "." namespace ">", the whole id under 255
LIST_ID_SYNTAX = re.compile(r'^(?:"[^"\\]*" )?<([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)>$')


@pytest.fixture
def h(tmp_path):
    harness = Harness(tmp_path, YAML)
    yield harness
    harness.close()


def check(
    mail: EmailMessage,
    *,
    game: str | None = "alpha",
    auto: str,
    observer: bool = False,
    precedence: bool = False,
) -> None:
    """Every list and automatic-mail header of ``mail`` is as its kind needs."""
    what = f"{mail['Subject']!r} to {mail['To']}"
    assert mail["Auto-Submitted"] == auto, what
    if game is None:
        assert mail["List-Id"] is None and mail["List-Unsubscribe"] is None, what
        assert mail["Precedence"] is None, what
        return
    list_id = str(mail["List-Id"])
    assert list_id == f'"Office Wars game {game}" <{game}.judge.example>', what
    assert LIST_ID_SYNTAX.match(list_id) and len(list_id) < 255
    assert mail["List-Help"] == "<mailto:judge@judge.example?subject=help&body=HELP>", what
    assert (mail["Precedence"] == "list") is precedence, what
    unsubscribe = mail["List-Unsubscribe"]
    if not observer:
        assert unsubscribe is None and mail["List-Unsubscribe-Post"] is None, what
        return
    mailto, url = re.fullmatch(r"<(mailto:[^>]+)>, <(https://[^>]+)>", str(unsubscribe)).groups()
    token = mailto.removeprefix("mailto:unsubscribe+").removesuffix("@judge.example")
    assert re.fullmatch(r"[a-z0-9_.=-]{1,120}", token), token  # survives lower-casing
    assert url == f"https://judge.example/pbem/unsubscribe/{token}"
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click", what


def mails(h: Harness, kind: str, to: str) -> list[EmailMessage]:
    found = h.outbox(kind, to)
    assert found, f"no {kind} to {to}"
    return found


def test_the_first_mails_of_a_game(h):
    check(mails(h, "password", ANN)[0], auto="auto-generated")
    started = mails(h, "started", BOB)[0]
    check(started, auto="auto-generated")
    assert started["References"] == "<alpha.game@judge.example>"  # the game's thread


def test_receipts_answer_the_mail_and_name_its_game(h):
    sent = h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nSol holds\n")
    receipt = mails(h, "receipt", ANN)[-1]
    check(receipt, auto="auto-replied")
    assert receipt["In-Reply-To"] == sent["Message-ID"]
    assert receipt["References"] == sent["Message-ID"]  # its own thread, not the game's


def test_refusals_name_the_game_mailed_and_server_mail_none(h):
    h.send("stranger@example.org", "judge@judge.example", "HELP\n")
    check(mails(h, "receipt", "stranger@example.org")[-1], game=None, auto="auto-replied")
    filler = "".join(f"X-Filler-{n}: x\r\n" for n in range(MAX_HEADERS + 5))
    raw = (
        f"From: {ANN}\r\nTo: {ALPHA}\r\nSubject: orders\r\nMessage-ID: <many@example.org>\r\n"
        f"{filler}\r\nSol holds\r\n"
    ).encode()
    h.send_raw(raw, ANN)  # refused whole, unread: the game it was sent to still named
    check(mails(h, "refusal", ANN)[-1], auto="auto-replied")
    h.send_raw(raw.replace(b"<many@", b"<many-2@"), ANN, ("judge@judge.example",))
    check(mails(h, "refusal", ANN)[-1], game=None, auto="auto-replied")


def test_turn_reports_to_players_observers_and_the_game_master(h):
    h.clock.set(h.game().deadline)
    h.tick()
    report = h.report(ANN)
    check(report, auto="auto-generated", precedence=True)
    assert report["References"] == "<alpha.game@judge.example>"
    check(h.report(WATCHER), auto="auto-generated", observer=True, precedence=True)
    check(h.report(GM), auto="auto-generated", precedence=True)


def test_the_unsubscribe_token_is_the_observers_own(h):
    h.clock.set(h.game().deadline)
    h.tick()
    header = str(h.report(WATCHER)["List-Unsubscribe"])
    token = unsubscribe_token(h.app.secret, "alpha", WATCHER)
    assert f"<mailto:unsubscribe+{token}@judge.example>" in header
    assert token != unsubscribe_token(h.app.secret, "alpha", ANN)
    assert token != unsubscribe_token(h.app.secret, "beta", WATCHER)
    assert token != unsubscribe_token("00" * 32, "alpha", WATCHER)  # another server's secret
    # the report itself says how to stop it, to the observer only
    said = " ".join(h.text(h.report(WATCHER)).split())
    assert f"send any mail to unsubscribe+{token}@judge.example" in said
    assert "unsubscribe+" not in h.text(h.report(ANN)) + h.text(h.report(GM))


def test_delivered_mail_keeps_its_headers(h):
    h.clock.set(h.game().deadline)
    h.tick()
    folder = Path(h.root) / "var" / "mail" / "new"
    delivered = [
        email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
        for p in folder.iterdir()
    ]
    to_watcher = [m for m in delivered if m["To"] == WATCHER and "results" in m["Subject"]]
    assert to_watcher
    check(to_watcher[-1], auto="auto-generated", observer=True, precedence=True)


def test_reminders_notices_press_and_alerts(h):
    h.clock.set(h.game().deadline - timedelta(hours=1, minutes=59))
    h.tick()
    check(mails(h, "reminder", BOB)[-1], auto="auto-generated")
    h.send(GM, ALPHA, "PASSWORD gm-secret\nEXTEND 12h\n")
    check(mails(h, "notice", ANN)[-1], auto="auto-generated", precedence=True)
    check(mails(h, "receipt", GM)[-1], auto="auto-replied")
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nPRESS ALL\nPeace?\nENDPRESS\n")
    check(mails(h, "press", BOB)[-1], auto="auto-generated", precedence=True)
    h.send("thief@example.org", ALPHA, f"PASSWORD {h.password(BOB)}\nSol holds\n")
    check(mails(h, "alert", BOB)[-1], auto="auto-generated")  # told their password was used


def test_an_observer_asks_for_a_report_again(h):
    h.clock.set(h.game().deadline)
    h.tick()
    h.send(WATCHER, ALPHA, "HISTORY\n")
    again = mails(h, "history", WATCHER)[-1]
    check(again, auto="auto-replied", observer=True)  # an answer: not a post to the game
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nHISTORY\n")
    check(mails(h, "history", ANN)[-1], auto="auto-replied")


def test_the_end_of_the_game(h):
    h.send(GM, ALPHA, "PASSWORD gm-secret\nEND GAME\n")
    h.confirm(GM)  # END GAME waits for the master to confirm it
    over = [m for m in mails(h, "report", WATCHER) if m["Subject"] == "[alpha] game over"]
    check(over[-1], auto="auto-generated", observer=True, precedence=True)
    over = [m for m in mails(h, "report", ANN) if m["Subject"] == "[alpha] game over"]
    check(over[-1], auto="auto-generated", precedence=True)


def test_a_player_who_also_watches_gets_no_unsubscribe(h):
    h.send_confirmed(ANN, "judge@judge.example", "WATCH alpha\n")
    h.clock.set(h.game().deadline)
    h.tick()
    check(h.report(ANN), auto="auto-generated", precedence=True)
    assert len([m for m in h.outbox("report", ANN) if "[alpha]" in m["Subject"]]) == 1


@pytest.mark.parametrize(
    ("web", "links", "post"),
    [
        ("", 1, False),  # no web section: the mailto alone
        ("  web: {listen: {port: 0}}\n", 1, False),  # a server but no public address
        ("  web: {listen: {port: 0}, url: 'http://127.0.0.1:8025'}\n", 2, False),  # not HTTPS
        ("  web: {listen: {port: 0}, url: 'https://judge.example'}\n", 2, True),
    ],
)
def test_one_click_only_with_an_https_address(tmp_path, web, links, post):
    yaml = YAML.replace(WEB, web)
    h = Harness(tmp_path, yaml)
    try:
        h.clock.set(h.game().deadline)
        h.tick()
        report = h.report(WATCHER)
        targets = str(report["List-Unsubscribe"]).split(", ")
        assert len(targets) == links and targets[0].startswith("<mailto:unsubscribe+")
        if links == 2:
            assert re.fullmatch(r"<https?://[^/]+/unsubscribe/alpha\.[a-z2-7]{32}>", targets[1])
        assert (report["List-Unsubscribe-Post"] is not None) is post
    finally:
        h.close()


def test_a_spectators_reaction(tmp_path):
    yaml = TERRA_YAML.replace(
        "    seed: 4\n", "    seed: 4\n    observers: [fan@example.org, fan2@example.org]\n"
    )
    h = Harness(tmp_path, yaml)
    try:
        full_lobby(h)
        h.send("fan@example.org", "judge@judge.example", "REACT terra-1 What a move!\n")
        title = h.app.engine("territory").title
        for to, observer in ((PEOPLE[0], False), ("fan2@example.org", True)):
            [reaction] = mails(h, "reaction", to)
            assert str(reaction["List-Id"]) == f'"{title} game terra-1" <terra-1.judge.example>'
            assert reaction["Precedence"] == "list"
            assert reaction["Auto-Submitted"] == "auto-generated"
            assert (reaction["List-Unsubscribe"] is not None) is observer
        assert h.outbox("reaction", "fan@example.org") == []
    finally:
        h.close()
