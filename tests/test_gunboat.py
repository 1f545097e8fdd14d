"""Gunboat (games.yaml ``anonymous: true``): an Empire game played by mail
in which no mail to a player or observer and no web page names another
player or their address; the game master sees everything; the end
reveals the names."""

from __future__ import annotations

import email
import email.policy

import pytest

from pbem.config import load_config
from tests.mailharness import EVENINGS, GM, empire_yaml, served

NAMES = ["aurelio", "bertrand", "cosima", "dorotea", "evander", "fiorella", "gwendal"]
FAN = "fan@example.org"
YAML = empire_yaml(
    *EVENINGS,
    "options: {last_year: 1902}",
    "seed: 3",
    "anonymous: true",
    "master: {email: gm@example.org, password: gm}",
    "observers: [fan@example.org]",
    players=NAMES,
    web=True,
)
h = served(YAML, fresh_pages=True)


def whole(raw: bytes) -> str:
    """Every header and every text part of a mail (SVG and calendar
    attachments included), decoded."""
    m = email.message_from_bytes(raw, policy=email.policy.default)
    out = [f"{k}: {v}" for k, v in m.items()]
    for part in m.walk():
        if (
            part.is_multipart()
            or part.get_content_maintype() == "image"
            and "png" in (part.get_content_subtype())
        ):
            continue
        out.append((part.get_payload(decode=True) or b"").decode("utf-8", "replace"))
    return "\n".join(out)


def test_a_gunboat_phase_by_mail_names_nobody(h):
    powers = h.powers()
    player = {power: name for name, power in powers.items()}
    germany, france = player["Germany"], player["France"]
    # orders, press (signed with the power; to a power; by a name: refused)
    assert "A MUN - RUH" in h.play(germany, "A MUN - RUH\nF KIE - HOL")
    said = h.play(germany, "PRESS TO France\nHello from the east.\nENDPRESS")
    assert "press sent to France" in said
    assert "no player called" in h.play(germany, f"PRESS TO {france}\nhi\nENDPRESS")
    echoed = h.app.store.outbox_rows()[-1].id  # the name germany wrote, quoted back to her
    h.play(france, "BROADCAST\nPeace to all.\nENDPRESS\nA PAR - BUR\nSTATUS")
    status = h.play(player["Italy"], "STATUS")
    assert "Germany" in status and germany not in status
    h.clock.set(h.game("dip").deadline)
    h.tick()
    h.settle()
    h.send(GM, "dip@judge.example", f"PASSWORD gm\nREMOVE {player['Turkey']}\n")
    h.play(france, "HISTORY")
    # every mail to a player names no one else; the observer's, no one at all
    addresses = {n: f"{n}@example.org" for n in NAMES}
    rows = [r for r in h.app.store.outbox_rows() if r.to_addr != GM and r.id != echoed]
    assert {"started", "report", "press", "notice", "receipt", "history"} <= {r.kind for r in rows}
    for r in rows:
        text = whole(r.message).lower()
        for n in NAMES:
            if r.to_addr == addresses[n]:
                continue
            assert n not in text, (r.kind, r.to_addr, n)
    # the game master sees the names
    master = "\n".join(whole(r.message) for r in h.app.store.outbox_rows(None, GM))
    assert germany in master
    # and the web pages name nobody
    with h.app.store.tx(write=False) as conn:
        played = min(h.app.store.turn_phases(conn, "dip"))
    for path in (
        "/",
        "/games/dip",
        "/games/dip/map.svg",
        f"/games/dip/turns/{played}",
        f"/games/dip/turns/{played}/map.svg",
        "/games/dip/feed.atom",
        "/games/dip/calendar.ics",
    ):
        text = h.page(path).lower()
        for n in NAMES:
            assert n not in text, (path, n, text[max(0, text.find(n) - 200) : text.find(n) + 100])
    assert "Germany" in h.page("/games/dip")


def test_the_end_reveals_the_names(h):
    powers = h.powers()
    h.send(GM, "dip@judge.example", "PASSWORD gm\nEND GAME\n")
    h.confirm(GM)  # END GAME waits for the master to confirm it
    over = [r for r in h.app.store.outbox_rows("report", f"{NAMES[0]}@example.org")]
    text = whole(over[-1].message)
    assert all(f"{n} ({powers[n]})" in " ".join(text.split()) for n in NAMES[1:3])


def test_only_a_game_that_names_by_seat_plays_anonymously(tmp_path):
    yaml = YAML.replace("game: empire", "game: officewars").replace("map: standard", "map: six")
    (tmp_path / "games.yaml").write_text(yaml)
    with pytest.raises(Exception, match="cannot be played anonymously"):
        load_config(tmp_path / "games.yaml")
