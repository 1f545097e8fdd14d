"""Rendering the pages: the web's Jinja2 templates (templates/web/,
escaped), and the map of a view as SVG with the words that stand for it.

A past phase's page is the turn report of that phase as the reader's mail
showed it: the game's own report template (templates/<game>/report.html.j2)
rendered with the web's layout (templates/web/report.html.j2) in place of
the mail's, so the orders, results, events and standings read exactly as
in the report, around the web's header, links and map.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import jinja2

from adjudicator.base import OrderResult, View
from adjudicator.drawing import Scene
from pbem.pictures import picture, to_svg
from pbem.web.cache import Rendered
from pbem.words import templates

HTML = "text/html; charset=utf-8"
MAIL_LAYOUT = "report/layout.html.j2"
WEB_LAYOUT = "web/report.html.j2"


class _WebLoader(jinja2.BaseLoader):
    """The templates as the mail has them, but for the layout of a report,
    which is the web's."""

    def __init__(self, base: jinja2.BaseLoader) -> None:
        self.base = base

    def get_source(self, environment: jinja2.Environment, template: str) -> Any:
        return self.base.get_source(
            environment, WEB_LAYOUT if template == MAIL_LAYOUT else template
        )


@cache
def environment() -> jinja2.Environment:
    """The mail's environment (its filters, escaping of .html.j2, strict
    undefined), with the web's layout for reports."""
    mail = templates()
    assert mail.loader is not None
    return mail.overlay(loader=_WebLoader(mail.loader))


def html(template: str, data: dict[str, Any], cache_control: str, status: int = 200) -> Rendered:
    """A page of templates/web/ (or a game's report in the web layout)."""
    text = environment().get_template(template).render(**data)
    return Rendered(text.encode("utf-8"), HTML, cache_control, status)


def map_scene(kind: str, view: View, results: Sequence[OrderResult]) -> Scene:
    """The map the reports draw for ``view``, its names placed."""
    return picture(kind, view, results)


def svg_of(scene: Scene) -> str:
    return to_svg(scene)


def map_width(svg: str) -> int:
    """A map's width in pixels, as its SVG says (800, or more for a big
    board's map)."""
    found = re.search(r'<svg[^>]* width="(\d+)"', svg)
    return int(found[1]) if found else 800


def described(scene: Scene) -> str:
    """The map in words, for its alt text: the picture's title, then what
    each place holds (the titles the picture gives its marks: a place, its
    owner, the unit on it), each once, in the picture's order."""
    seen: dict[str, None] = {}
    for item in scene.items:
        title = getattr(item, "title", "")
        if getattr(item, "role", "") == "mark" and title:
            seen.setdefault(title, None)
    parts = list(seen)
    return f"{scene.title}." + (" " + "; ".join(parts) + "." if parts else "")
