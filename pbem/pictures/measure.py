"""How big text comes out on the page: Pillow's measure of the font the
PNG is drawn in, which the SVG's text is fitted to as well."""

from __future__ import annotations

from functools import cache
from typing import Any

from PIL import ImageFont

from adjudicator.drawing import Item, Text


@cache
def font(size: float) -> Any:
    return ImageFont.load_default(size=size)


@cache
def text_width(text: str, size: float) -> float:
    return float(font(size).getlength(text))


def text_size(t: Text) -> tuple[float, float]:
    """The box a text is drawn in: its measured width and a little room."""
    return text_width(t.text, t.size) + 4, t.size + 3


def bounds(item: Item) -> tuple[float, float, float, float]:
    """The box an item covers: (left, top, right, bottom)."""
    if isinstance(item, Text):
        w, h = text_size(item)
        return (item.x - w / 2, item.y - h / 2, item.x + w / 2, item.y + h / 2)
    return item.box()  # type: ignore[union-attr]
