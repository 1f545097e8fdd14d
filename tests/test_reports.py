"""Turn reports as mailed: a text part for 72 columns, valid HTML with the
map inline as PNG, the map as SVG and the reader's deadlines as .ics; each reader's
own time zone; sealed-order hashes; kept for HISTORY and `pbem report`."""

from __future__ import annotations

import hashlib
import io
import re
import xml.etree.ElementTree as ET
from datetime import timedelta
from html.parser import HTMLParser

import icalendar
import pytest
from PIL import Image

from pbem.cli.main import main
from tests.mailharness import Harness

ALPHA = "alpha@judge.example"
ANN, BOB, CID = "ann@example.org", "bob@example.org", "cid@example.org"
VOID = {"meta", "img", "br", "hr", "link", "input", "col", "area", "base", "wbr", "source"}


class StrictHTML(HTMLParser):
    """Every element closed, in order; a doctype; nothing left open."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.doctype = False
        self.images: list[str] = []

    def handle_decl(self, decl: str) -> None:
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs).get("src", ""))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


@pytest.fixture
def played(tmp_path):
    """alpha after one turn: ann attacked, bob held, cid sent nothing."""
    h = Harness(tmp_path)
    h.send_confirmed("obs@example.org", "judge@judge.example", "WATCH alpha\n")
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nSol attacks Alnitak\n")
    h.send(BOB, ALPHA, f"PASSWORD {h.password(BOB)}\nVega holds\n")
    h.clock.set(h.game().deadline)
    h.tick()
    assert h.game().turn == 2
    yield h
    h.close()


def test_every_player_observer_and_the_master_get_a_complete_report(played):
    h = played
    readers = sorted(m["To"] for m in h.outbox("report") if "[alpha]" in m["Subject"])
    assert readers == sorted([ANN, BOB, CID, "gm@example.org", "obs@example.org"])
    for to in readers:
        mail = h.report(to)
        assert mail.get_content_type() == "multipart/mixed"
        assert mail["Subject"] == "[alpha] tick 1 results"
        text = h.text(mail)
        assert all(len(line) <= 72 for line in text.splitlines()), text
        for needed in ("== Orders and results ==", "== Standings after tick 1 ==", "Deadline:"):
            assert needed in text
        html_part = mail.get_body(("html",))
        checker = StrictHTML()
        checker.feed(html_part.get_content())
        checker.close()
        assert checker.doctype and not checker.errors and not checker.stack, checker.errors
        # the picture the HTML shows is the PNG part, by Content-ID
        (src,) = checker.images
        pngs = [p for p in mail.walk() if p.get_content_type() == "image/png"]
        assert len(pngs) == 1 and src == "cid:" + pngs[0]["Content-ID"].strip("<>")
        image = Image.open(io.BytesIO(pngs[0].get_content()))
        image.verify()
        assert image.format == "PNG" and image.size[0] == 800
        (svg,) = [p for p in mail.walk() if p.get_content_type() == "image/svg+xml"]
        root = ET.fromstring(svg.get_content())
        assert root.tag.endswith("svg")
        assert len(root.findall("{http://www.w3.org/2000/svg}circle")) >= 36
        (cal,) = [p for p in mail.walk() if p.get_content_type() == "text/calendar"]
        events = icalendar.Calendar.from_ical(cal.get_content()).walk("VEVENT")
        (event,) = [e for e in events if str(e["summary"]).startswith("alpha:")]
        assert event.decoded("dtstart") == h.game().deadline  # the same moment, in any zone


def test_results_orders_and_the_sealed_hashes(played):
    h = played
    text = h.text(h.report(CID))
    results = text.split("== What happened ==")[0]
    assert "ann" in results and "Sol attacks Alnitak: conquered Alnitak" in results
    assert "Vega holds: held" in results
    assert "cid (green): no orders (turns missed: 1)" in results
    assert "ann conquered Alnitak" in text
    with h.app.store.tx(write=False) as conn:
        subs = h.app.store.submissions_for(conn, "alpha", 1, None)
    digest = hashlib.sha256(subs["ann"][1].encode()).hexdigest()
    flat = re.sub(r"\s+", "", text.split("== Sealed orders ==")[1])
    assert "ann" + digest in flat and "cidnoorders" in flat


def test_each_reader_sees_the_deadline_in_their_own_time_zone(played):
    h = played
    assert "12:50 CET (Europe/Oslo)" in h.text(h.report(ANN))
    assert "06:50 EST (America/New_York)" in h.text(h.report(BOB))  # bob's timezone
    # players set theirs by mail
    h.send(CID, ALPHA, f"PASSWORD {h.password(CID)}\nSET TIMEZONE Asia/Tokyo\n")
    assert "deadlines are shown in Asia/Tokyo now" in h.last(CID)
    assert "JST (Asia/Tokyo)" in h.last(CID)
    h.send(CID, ALPHA, f"PASSWORD {h.password(CID)}\nSET TIMEZONE Mars/Olympus\n")
    assert "'Mars/Olympus' is not a time zone" in h.last(CID)
    h.clock.set(h.game().deadline)
    h.tick()
    assert "JST (Asia/Tokyo)" in h.text(h.report(CID))


def test_a_players_units_and_their_legal_orders_are_listed(played):
    text = played.text(played.report(ANN))
    options = text.split("Your units and the orders they may give:")[1]
    assert re.search(r"Sol: holds; moves to Alnitak; attacks [A-Z]", options)
    assert "Your units" not in played.text(played.report("obs@example.org"))


def test_the_master_sees_missed_turns(played):
    text = played.text(played.report("gm@example.org"))
    table = text.split("== Standings after tick 1 ==")[1].split("==")[0]
    assert "missed" in table
    assert re.search(r"cid \(green\)\s+\d+\s+\d+\s+1", table)


def test_history_mails_back_a_kept_report(played):
    h = played
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nHISTORY 1\n")
    assert "the report of tick 1 is on its way" in h.last(ANN)
    (again,) = h.outbox("history", ANN)
    assert again["Subject"] == "[alpha] tick 1 results (again)"
    assert h.text(again) == h.text(h.report(ANN))
    assert again["Reply-To"] == h.report(ANN)["Reply-To"]  # "reply to this mail" works
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nHISTORY 7\n")
    assert "alpha has no report of a phase called '7' (reports kept: tick 1)" in h.last(ANN)
    # the game's own phase names, sent to the game's address
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nHISTORY Tick 1\n")
    assert "the report of tick 1 is on its way" in h.last(ANN)
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nHISTORY tick 4\n")
    assert "no report of a phase called 'tick 4'" in h.last(ANN)
    assert len(h.outbox("history", ANN)) == 2
    # an observer asks the server's address, naming the game
    h.send("obs@example.org", "judge@judge.example", "HISTORY alpha\n")
    assert len(h.outbox("history", "obs@example.org")) == 1


def test_pbem_report_prints_a_report_and_writes_the_map(played, tmp_path, capsys):
    h = played
    out = tmp_path / "pictures"
    assert main(["report", "alpha", "--config", str(h.root / "games.yaml"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed == h.text(h.report("gm@example.org")).replace("\r\n", "\n")
    assert (out / "map-alpha-1.png").read_bytes().startswith(b"\x89PNG")
    assert main(["report", "alpha", "--config", str(h.root / "games.yaml"), "--turn", "9"]) == 2


def test_press_to_everyone_is_in_the_next_report(played):
    h = played
    h.send(ANN, ALPHA, f"PASSWORD {h.password(ANN)}\nPRESS ALL\nPeace in our time.\nENDPRESS\n")
    h.clock.set(h.game().deadline + timedelta(seconds=5))
    h.tick()
    text = h.text(h.report(CID))
    assert "== Press to everyone ==" in text and "From ann:" in text
    assert "Peace in our time." in text
