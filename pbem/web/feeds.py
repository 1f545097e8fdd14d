"""A game's feeds: ``/games/<name>/feed.atom``, an Atom entry per played
phase (the newest ``ENTRIES``) with what happened and the orders' results
as the observers' report showed them, and ``/games/<name>/calendar.ics``,
the deadline of the turn being played as an iCalendar event (the same
event, UID and revision as the calendars mailed with the reports, so a
calendar that has both keeps one). A private game's feeds answer 404 to
anyone not in it, as its pages do."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from xml.etree import ElementTree as ET

from aiohttp import web

from pbem.app import App
from pbem.mail.calendar import MIME, Deadlines, calendar
from pbem.reports import OBSERVER
from pbem.web import history, pages, render, views
from pbem.web.cache import Rendered

ATOM = "http://www.w3.org/2005/Atom"
ENTRIES = 20  # phases in the feed, the newest
FEED_TYPE = "application/atom+xml; charset=utf-8"


def add_routes(web_app: web.Application) -> None:
    web_app.router.add_get(f"/games/{{name:{pages.NAME}}}/feed.atom", feed)
    web_app.router.add_get(f"/games/{{name:{pages.NAME}}}/calendar.ics", ics)


def base_url(request: web.Request, app: App) -> str:
    """Where readers reach the pages: games.yaml's ``web: url``, else the
    address the request came to."""
    configured = app.config.server.web.url if app.config.server.web else None
    if configured:
        return configured if configured.endswith("/") else configured + "/"
    return f"{request.scheme}://{request.host}/"


async def feed(request: web.Request) -> web.Response:
    app, name, viewer, version = await pages.opened(request, "../../")
    base = base_url(request, app)

    def make() -> Rendered:
        with app.store.tx(write=False) as conn:
            seen = views.seen_game(app, conn, name, viewer)
            if seen is None:
                return pages.not_found("../../", app)
            entries = _entries(app, conn, seen)
        body = _atom(app, seen, entries, base)
        policy = pages.CURRENT if viewer == OBSERVER else pages.OWN
        return Rendered(body, FEED_TYPE, policy)

    key = ("feed", name, viewer, version[1], version[2], version[5], base)
    return await pages.kept(request, key, make)


def _entries(app: App, conn: Any, seen: views.Seen) -> list[dict[str, Any]]:
    """The newest played phases, newest first, as the viewer's report
    showed them: (turn, phase, when, HTML of what happened)."""
    phases = history.phases_of(app, conn, seen.row)
    out = []
    for turn in sorted(phases, reverse=True)[:ENTRIES]:
        found = history.phase(app, conn, seen, turn)
        if not isinstance(found, history.Phase):
            continue
        data = history.report_data(app, found)
        text = render.environment().get_template("web/entry.html.j2").render(**data)
        out.append(
            {"turn": turn, "phase": phases[turn], "at": found.info["resolved_at"], "html": text}
        )
    return out


def _atom(app: App, seen: views.Seen, entries: list[dict[str, Any]], base: str) -> bytes:
    name = seen.row.name
    page = f"{base}games/{name}"
    made = seen.row.created_at or datetime(2000, 1, 1)
    tag = f"tag:{app.domain},{made:%Y-%m-%d}:{name}"
    root = ET.Element("feed", xmlns=ATOM)
    ET.SubElement(root, "id").text = tag
    ET.SubElement(root, "title").text = f"{name} ({seen.engine.title}): results of each phase"
    ET.SubElement(root, "link", rel="alternate", type="text/html", href=page)
    ET.SubElement(root, "link", rel="self", type="application/atom+xml", href=page + "/feed.atom")
    ET.SubElement(ET.SubElement(root, "author"), "name").text = app.domain
    newest = entries[0]["at"] if entries else made
    ET.SubElement(root, "updated").text = newest.isoformat()
    for e in entries:
        entry = ET.SubElement(root, "entry")
        ET.SubElement(entry, "id").text = f"{tag}:turn:{e['turn']}"
        ET.SubElement(entry, "title").text = f"{name}: {e['phase']} results"
        ET.SubElement(entry, "link", rel="alternate", type="text/html",
                      href=f"{page}/turns/{e['turn']}")  # fmt: skip
        ET.SubElement(entry, "updated").text = e["at"].isoformat()
        ET.SubElement(entry, "content", type="html").text = e["html"]
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


async def ics(request: web.Request) -> web.Response:
    app, name, viewer, version = await pages.opened(request, "../../")

    def make() -> Rendered:
        with app.store.tx(write=False) as conn:
            seen = views.seen_game(app, conn, name, viewer)
            if seen is None:
                return pages.not_found("../../", app)
            deadlines = Deadlines(app, conn)
            game = deadlines.named(name)
            events = [deadlines.deadline(game)] if game is not None else []
        body = calendar(events, domain=app.domain, now=app.clock.now())
        return Rendered(
            body,
            f"{MIME}; charset=utf-8",
            pages.CURRENT,
            headers=(("Content-Disposition", f'inline; filename="{name}.ics"'),),
        )

    # the event changes with the turn, the deadline and its revision
    key = ("ics", name, viewer, version[1], version[2], version[3], version[4])
    return await pages.kept(request, key, make)
