"""A whole game played by mail: `pbem demo` on a real server, six scripted
players sending real mail over SMTP, deadlines on an accelerated clock,
until someone wins."""

from __future__ import annotations

import email
import email.policy
import io
from datetime import timedelta

from pbem.cli import demo
from pbem.cli.local import LocalServer


def test_six_players_play_a_whole_game_by_mail(tmp_path):
    out = io.StringIO()
    result = demo.play(tmp_path, out, seed=7)
    printed = out.getvalue()
    assert result["finished"], printed
    (winner,) = result["winners"]
    assert f"{winner} won" in printed and "final report:" in printed
    assert result["final"].read_text().startswith("Office Wars: demo, tick")
    ticks = result["ticks"]
    assert 5 <= ticks < 120

    # every player got the final report, from the Maildir the server wrote
    mails = [
        email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
        for p in (tmp_path / "mail" / "new").iterdir()
    ]
    finals = {str(m["To"]) for m in mails if "(game over)" in str(m["Subject"])}
    assert finals == {f"{n}@players.example" for n in demo.PLAYERS} | {"gm@demo.example"}
    assert len(mails) == result["mails_out"]

    # the same files again: every mail answered 250 reached a final state,
    # every turn is kept, and the game stays readable for a week
    local = LocalServer(tmp_path / "games.yaml", start=_finished_at(tmp_path))
    try:
        states = local.app.store.mail_states()
        assert sum(states.values()) == result["mails_in"]
        assert set(states) <= {"applied", "answered", "refused"}, states
        with local.app.store.tx(write=False) as conn:
            assert local.app.store.report_turns(conn, "demo") == list(range(1, ticks + 1))
        _send(local, "gm@demo.example", "GAME demo\nPASSWORD demo\nHISTORY 1\n")
        assert "the report of tick 1 is on its way" in _last(local, "gm@demo.example")
        assert local.app.store.outbox_rows("history", "gm@demo.example")
        _send(local, "x@players.example", "LIST\n")
        assert "demo" in _last(local, "x@players.example")
        local.clock.advance(days=8)
        _send(local, "x@players.example", "LIST\n")
        assert "demo" not in _last(local, "x@players.example").split("Games on this server:")[1]
    finally:
        local.close()


def _finished_at(folder):
    from pbem.store import Store

    store = Store.at(folder / "pbem.sqlite")
    with store.tx(write=False) as conn:
        row = store.game(conn, "demo")
    store.close()
    return row.finished_at + timedelta(minutes=1)


def _send(local: LocalServer, sender: str, body: str) -> None:
    demo._send(local.port, sender, "judge@demo.example", body, "hello")
    local.settle()


def _last(local: LocalServer, to: str) -> str:
    row = local.app.store.outbox_rows("receipt", to)[-1]
    mail = email.message_from_bytes(row.message, policy=email.policy.default)
    return mail.get_body(("plain",)).get_content()
