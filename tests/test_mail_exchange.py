"""A whole exchange by real SMTP: passwords, orders, receipts, replacement
orders, status, reply addresses, forgery, duplicates."""

from __future__ import annotations

import email
import email.policy
import smtplib

import pytest

ALPHA = "alpha@judge.example"


def test_players_get_their_passwords(judge):
    for who in ("ann", "bob", "cid"):
        body = judge.last(f"{who}@example.org", "password")
        assert "You play as " + who in body and "PASSWORD " in body
    assert judge.password("ann@example.org", "beta") != judge.password("ann@example.org")


def test_orders_with_password_are_applied_and_acknowledged(judge):
    pw = judge.password("ann@example.org")
    judge.send(
        "Ann <ann@example.org>",
        ALPHA,
        f"PASSWORD {pw}\nSol attacks Alnitak\nSool holds\nVega holds\n",
    )
    body = judge.last("ann@example.org")
    assert "== alpha (Office Wars, tick 1) ==" in body
    assert "line 2: Sol attacks Alnitak" in body
    assert "line 3: \"Sool holds\": there is no system called 'Sool' (did you mean: Sol" in body
    assert 'line 4: "Vega holds": the unit at Vega belongs to bob' in body
    assert "These are now your orders for tick 1" in body
    assert "+ Sol attacks Alnitak" in body
    # the deadline in the game's zone (the clock reads 2026-11-21 12:00 UTC)
    assert "Deadline: Sun 22 Nov 2026 00:50 CET (Europe/Oslo)" in body
    assert "received as #" in body
    assert judge.states() == {"applied": 1}


def test_replacement_orders_show_the_change(judge):
    pw = judge.password("ann@example.org")
    judge.send("ann@example.org", ALPHA, f"PASSWORD {pw}\nSol x Alnitak\n")
    judge.send("ann@example.org", ALPHA, f"PASSWORD {pw}\nSol holds\n")
    body = judge.last("ann@example.org")
    assert "+ Sol holds" in body and "- Sol attacks Alnitak" in body
    judge.send("ann@example.org", ALPHA, f"PASSWORD {pw}\nnonsense\n")
    body = judge.last("ann@example.org")
    assert "your previous orders stand" in body and "Sol holds" in body


def test_units_without_orders_and_player_time_zone(judge):
    pw = judge.password("bob@example.org")
    judge.send("bob@example.org", ALPHA, f"PASSWORD {pw}\nSTATUS\n")
    body = judge.last("bob@example.org")
    assert "Holding for lack of an order: Vega holds" in body
    assert "Deadline: Sat 21 Nov 2026 18:50 EST (America/New_York)" in body
    assert "Your units: Vega" in body


def test_reply_address_needs_no_password(judge):
    pw = judge.password("ann@example.org")
    judge.send("ann@example.org", ALPHA, f"PASSWORD {pw}\nSTATUS\n")
    reply_to = judge.reply_to("ann@example.org")
    assert reply_to.startswith("alpha+ann.") and reply_to.endswith("@judge.example")
    judge.send("ann@example.org", reply_to, "Sol x Alnitak\n")
    assert "line 1: Sol attacks Alnitak" in judge.last("ann@example.org")


def test_new_token_revokes_the_old_reply_address(judge):
    pw = judge.password("ann@example.org")
    judge.send("ann@example.org", ALPHA, f"PASSWORD {pw}\nSTATUS\n")
    old = judge.reply_to("ann@example.org")
    judge.send("ann@example.org", old, "NEW TOKEN\n")
    new = judge.reply_to("ann@example.org")
    assert new != old
    judge.send("ann@example.org", old, "Sol x Alnitak\n")
    assert "password is missing or wrong" in judge.last("ann@example.org")


def test_forged_from_without_password_is_refused(judge):
    judge.send("ann@example.org", ALPHA, "Sol x Alnitak\n")
    body = judge.last("ann@example.org")
    assert "nothing was applied: the password is missing or wrong" in body
    assert "Sol attacks" not in body and "Alnitak" not in body.split("Refused")[0]
    assert judge.states() == {"refused": 1}


def test_right_password_from_another_address_tells_the_owner(judge):
    pw = judge.password("ann@example.org")
    judge.send("mallory@evil.example", ALPHA, f"PASSWORD {pw}\nSol x Alnitak\n")
    body = judge.last("ann@example.org", "alert")
    assert "A mail from mallory@evil.example used your credentials for alpha" in body
    assert not judge.outbox(to="mallory@evil.example")


def test_same_message_twice_is_processed_once(judge):
    pw = judge.password("ann@example.org")
    m = judge.message("ann@example.org", ALPHA, f"PASSWORD {pw}\nSol x Alnitak\n")
    with judge.smtp() as s:
        s.send_message(m)
        s.send_message(m)  # the same bytes: stored once
    del m["X-Resent"]
    m["X-Resent"] = "yes"  # other bytes, same Message-ID
    with judge.smtp() as s:
        s.send_message(m)
    judge.settle()
    assert len(judge.outbox("receipt", "ann@example.org")) == 1
    assert judge.states() == {"applied": 1, "duplicate": 1}


def test_unknown_recipient_is_refused_at_rcpt(judge):
    with judge.smtp() as s:
        s.ehlo()
        s.mail("ann@example.org")
        code, msg = s.rcpt("nosuchgame@judge.example")
        assert code == 550 and b"no such game" in msg
        code, _ = s.rcpt("alpha@elsewhere.example")
        assert code == 550


def test_too_many_recipients(judge):
    with judge.smtp() as s:
        s.ehlo()
        s.mail("ann@example.org")
        codes = [s.rcpt("alpha@judge.example")[0] for _ in range(6)]
    assert codes == [250] * 5 + [452]


def test_message_over_the_size_limit_is_refused_with_552(judge):
    big = b"Subject: big\r\n\r\n" + (b"x" * 998 + b"\r\n") * 1100
    with judge.smtp() as s:  # a client that declares the size is refused at MAIL
        with pytest.raises(smtplib.SMTPSenderRefused) as caught:
            s.sendmail("ann@example.org", [ALPHA], big)
        assert caught.value.smtp_code == 552
    with judge.smtp() as s:  # one that does not, after DATA
        s.ehlo()
        s.mail("ann@example.org")
        s.rcpt(ALPHA)
        code, _ = s.data(big)
        assert code == 552
    assert judge.states() == {}


def test_several_games_in_one_mail(judge):
    a = judge.password("ann@example.org")
    b = judge.password("ann@example.org", "beta")
    judge.send(
        "ann@example.org",
        "judge@judge.example",
        f"GAME alpha\nPASSWORD {a}\nSol x Alnitak\nGAME beta\nPASSWORD {b}\nVega holds\n",
    )
    body = judge.last("ann@example.org")
    assert (
        "== alpha (Office Wars, tick 1) ==" in body and "== beta (Office Wars, tick 1) ==" in body
    )
    assert "line 3: Sol attacks Alnitak" in body


def test_help_and_list_need_no_game(judge):
    judge.send("stranger@example.net", "judge@judge.example", "HELP\nLIST\n")
    body = judge.last("stranger@example.net")
    assert "PASSWORD secret" in body and "WATCH game" in body
    assert "alpha            Office Wars, tick 1, 3 players, running: alpha@judge.example" in body
    assert judge.states() == {"answered": 1}  # all it asked was answered


def test_watch_and_unwatch(judge):
    judge.send_confirmed("fan@example.net", "judge@judge.example", "WATCH alpha\n")
    assert "fan@example.net is now watching alpha" in judge.last("fan@example.net")
    judge.send("fan@example.net", "judge@judge.example", "UNWATCH alpha\nWATCH gamma\n")
    body = judge.last("fan@example.net")
    assert "line 1: UNWATCH alpha: waits for your confirmation" in body
    assert "line 2: WATCH: there is no game called 'gamma'" in body
    judge.confirm("fan@example.net")
    assert "fan@example.net is no longer watching alpha" in judge.last("fan@example.net")


def test_press_to_all(judge):
    pw = judge.password("ann@example.org")
    judge.send(
        "ann@example.org",
        ALPHA,
        f"PASSWORD {pw}\nPRESS ALL\nPeace in our time?\nENDPRESS\nSol holds\n",
    )
    assert "press sent to bob, cid" in judge.last("ann@example.org")
    press = judge.last("bob@example.org", "press")
    assert "Press in alpha from ann" in press and "Peace in our time?" in press


def test_at_most_ten_replies_a_day_to_one_address(judge):
    with judge.smtp() as s:
        for i in range(50):  # a robot that keeps writing
            s.sendmail(
                "robot@example.net",
                ["judge@judge.example"],
                f"From: robot@example.net\r\nSubject: {i}\r\nMessage-ID: <r{i}@x>\r\n\r\n"
                "LIST\r\n".encode(),
            )
    judge.settle(60)
    rows = judge.app.store.outbox_rows(to_addr="robot@example.net")
    assert [r.status for r in rows] == ["sent"] * 10 + ["held"] * 40
    last = email.message_from_bytes(rows[9].message, policy=email.policy.default)
    assert "further replies today are held; your orders are still being recorded" in " ".join(
        last.get_body(("plain",)).get_content().split()
    )
    assert sum(judge.states().values()) == 50
    judge.clock.advance(days=1, seconds=1)
    judge.send("robot@example.net", "judge@judge.example", "LIST\n")
    rows = judge.app.store.outbox_rows(to_addr="robot@example.net")
    sent = [r.kind for r in rows if r.status in ("sent", "pending")]
    assert sorted(sent) == ["digest"] + ["receipt"] * 11  # the 40 held came as one digest


def test_repeated_failures_alert_the_game_master(judge):
    for i in range(5):
        judge.send("ann@example.org", ALPHA, f"PASSWORD wrong{i}\nSol holds\n")
    alerts = judge.outbox("alert", "gm@example.org")
    assert len(alerts) == 1
    assert (
        "5 mails in the last hour claimed to come from ann@example.org"
        in alerts[0].get_body(("plain",)).get_content()
    )


def test_receipts_are_marked_and_threaded(judge):
    pw = judge.password("ann@example.org")
    m = judge.send("ann@example.org", ALPHA, f"PASSWORD {pw}\nSol holds\n")
    (receipt,) = judge.outbox("receipt", "ann@example.org")
    assert receipt["Auto-Submitted"] == "auto-replied"
    assert receipt["In-Reply-To"] == m["Message-ID"]
    assert m["Message-ID"] in receipt["References"]
    assert receipt["Message-ID"] and receipt["Date"]
    assert receipt["To"] == "ann@example.org"
    # the server's own mail, looped back, is dropped without a reply
    with judge.smtp() as s:
        s.sendmail("judge@judge.example", [ALPHA], receipt.as_bytes())
    judge.settle()
    assert len(judge.outbox("receipt", "ann@example.org")) == 1


def test_help_to_a_game_address_is_just_help(judge):
    judge.send("stranger@example.net", ALPHA, "HELP\n")
    body = judge.last("stranger@example.net")
    assert "PASSWORD secret" in body
    assert "not a player" not in body and "password is missing" not in body
    assert judge.states() == {"answered": 1}


def test_anonymous_press(judge):
    pw = judge.password("ann@example.org")
    judge.send(
        "ann@example.org", ALPHA, f"PASSWORD {pw}\nPRESS bob ANON\nWatch your back.\nENDPRESS\n"
    )
    assert "anonymous press sent to bob" in judge.last("ann@example.org")
    (press,) = judge.outbox("press", "bob@example.org")
    body = press.get_body(("plain",)).get_content()
    assert "Anonymous press in alpha to bob" in body and "Watch your back." in body
    assert "ann" not in body.lower() and "ann" not in str(press["Subject"]).lower()
    assert not judge.outbox("press", "cid@example.org")


def test_a_20_mb_body_is_refused_and_not_stored(judge):
    big = b"Subject: huge\r\n\r\n" + (b"y" * 998 + b"\r\n") * 21_000
    assert len(big) > 20_000_000
    with judge.smtp() as s:
        s.ehlo()
        s.mail("ann@example.org")
        s.rcpt(ALPHA)
        code, _ = s.data(big)
    assert code == 552
    judge.settle()
    assert judge.states() == {}


def test_the_servers_tagged_addresses(judge):
    """bounces+, confirm+ and unsubscribe+ carry a token; bare, they are no one."""
    recipient = judge.app.recipient
    assert recipient("bounces+k3x.9@judge.example").kind == "bounces"
    assert recipient("<Confirm+ABC@judge.example>").token == "abc"
    assert recipient("unsubscribe+t0k@judge.example").kind == "unsubscribe"
    assert recipient("bounces@judge.example") is None
    assert recipient("confirm+a b@judge.example") is None
    assert recipient("bounces+tok@elsewhere.example") is None
