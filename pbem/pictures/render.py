"""A :class:`~adjudicator.drawing.Scene` written as SVG text and as PNG,
its legend laid out under the map.

The SVG carries each item's role and kind as its class (``mark army``,
``label``, ``order move failed``...), so a test (or a curious reader) can
tell what each shape is. The PNG is drawn by Pillow at twice the size and
scaled down, which smooths lines and text.
"""

from __future__ import annotations

import functools
import io
import zlib
from html import escape
from math import atan2, cos, hypot, sin

from PIL import Image, ImageColor, ImageDraw

from adjudicator.drawing import MARGIN, Box, Circle, Item, Line, Point, Scene, Shape, Text
from pbem.pictures.measure import bounds, font, text_size, text_width

SS = 2  # the PNG is drawn at this many times its size, then scaled down


def laid_out(scene: Scene) -> tuple[list[Item], float]:
    """Every item to draw, the legend placed under the map, and the
    picture's whole height."""
    out = list(scene.items)
    y = scene.height + 8
    out.append(Line(((MARGIN, y), (scene.width - MARGIN, y)), "#bbbbbb", "rule", role="legend"))
    y += 10
    for heading, entries in scene.legend:
        if not entries:
            continue
        out.append(_legend_text(MARGIN, y + 8, heading + ":", left=True))
        x = MARGIN + text_width(heading + ":", 12) + 14
        for entry in entries:
            need = 36 + text_width(entry.text, 12) + 18
            if x + need > scene.width - MARGIN and x > MARGIN + 100:
                x, y = MARGIN + 24, y + 22
            out.extend(shifted(item, x, y) for item in entry.sample)
            out.append(_legend_text(x + 36, y + 8, entry.text, left=True))
            x += need
        y += 24
    return out, y + 4


def _legend_text(x: float, y: float, text: str, left: bool) -> Text:
    w = text_width(text, 12) + 4
    return Text(x + w / 2 if left else x, y, text, 12, "legend-text", halo=None, role="legend")


def shifted(item: Item, dx: float, dy: float) -> Item:
    """A legend sample moved to its place; drawn as legend, not as map."""
    if isinstance(item, Line):
        pts = tuple((x + dx, y + dy) for x, y in item.points)
        return Line(pts, item.stroke, item.kind, item.width, item.dash, item.head, "legend")
    if isinstance(item, Circle):
        return Circle(item.x + dx, item.y + dy, item.r, item.fill, item.kind, item.stroke,
                      item.width, "legend")  # fmt: skip
    if isinstance(item, Box):
        return Box(item.x + dx, item.y + dy, item.w, item.h, item.fill, item.kind, item.stroke,
                   item.width, "legend", diamond=item.diamond)  # fmt: skip
    if isinstance(item, Shape):
        pts = tuple((x + dx, y + dy) for x, y in item.points)
        return Shape(pts, item.fill, item.kind, item.stroke, item.width, "legend")
    return Text(item.x + dx, item.y + dy, item.text, item.size, item.kind, item.fill,
                item.halo, "legend")  # fmt: skip


def head_points(line: Line, scale: float = 1.0) -> list[Point]:
    """The arrow head polygon at a line's end (scaled for the PNG)."""
    (x1, y1), (x2, y2) = line.points[-2], line.points[-1]
    angle = atan2(y2 - y1, x2 - x1)
    size = (7 + 2 * line.width) * scale
    return [
        (x2, y2),
        (x2 - size * cos(angle - 0.42), y2 - size * sin(angle - 0.42)),
        (x2 - size * cos(angle + 0.42), y2 - size * sin(angle + 0.42)),
    ]


def to_svg(scene: Scene) -> str:
    items, height = laid_out(scene)
    w, h = f"{scene.width:.0f}", f"{height:.0f}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" role="img" aria-label="{escape(scene.title)}">',
        f"<title>{escape(scene.title)}</title>",
        f'<rect width="{w}" height="{h}" fill="#ffffff"/>',
    ]
    out.extend(_svg(item) for item in items)
    out.append("</svg>")
    return "\n".join(out)


def _cls(item: Item) -> str:
    return f'class="{item.role} {item.kind}"'


def _svg(item: Item) -> str:
    if isinstance(item, Circle):
        title = f"<title>{escape(item.title)}</title>" if item.title else ""
        return (
            f'<circle {_cls(item)} cx="{item.x:.1f}" cy="{item.y:.1f}" r="{item.r:.1f}" '
            f'fill="{item.fill}" stroke="{item.stroke}" stroke-width="{item.width:g}">'
            f"{title}</circle>"
        )
    if isinstance(item, Box) and item.diamond:
        title = f"<title>{escape(item.title)}</title>" if item.title else ""
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in item.corners())
        return (
            f'<polygon {_cls(item)} points="{points}" fill="{item.fill}" '
            f'stroke="{item.stroke}" stroke-width="{item.width:g}">{title}</polygon>'
        )
    if isinstance(item, Box):
        title = f"<title>{escape(item.title)}</title>" if item.title else ""
        return (
            f'<rect {_cls(item)} x="{item.x:.1f}" y="{item.y:.1f}" width="{item.w:.1f}" '
            f'height="{item.h:.1f}" fill="{item.fill}" stroke="{item.stroke}" '
            f'stroke-width="{item.width:g}">{title}</rect>'
        )
    if isinstance(item, Shape):
        title = f"<title>{escape(item.title)}</title>" if item.title else ""
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in item.points)
        return (
            f'<polygon {_cls(item)} points="{points}" fill="{item.fill}" '
            f'stroke="{item.stroke}" stroke-width="{item.width:g}" '
            f'stroke-linejoin="round">{title}</polygon>'
        )
    if isinstance(item, Line):
        return _svg_line(item)
    return _svg_text(item)


def _svg_line(line: Line) -> str:
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in line.points)
    dash = f' stroke-dasharray="{",".join(f"{d:g}" for d in line.dash)}"' if line.dash else ""
    parts = [
        f'<g {_cls(line)}><polyline points="{points}" fill="none" stroke="{line.stroke}" '
        f'stroke-width="{line.width:g}" stroke-linecap="round"{dash}/>'
    ]
    if line.head == "arrow":
        head = " ".join(f"{x:.1f},{y:.1f}" for x, y in head_points(line))
        parts.append(f'<polygon points="{head}" fill="{line.stroke}"/>')
    elif line.head == "open":
        a, tip, b = head_points(line)[1], line.points[-1], head_points(line)[2]
        parts.append(
            f'<polyline points="{a[0]:.1f},{a[1]:.1f} {tip[0]:.1f},{tip[1]:.1f} '
            f'{b[0]:.1f},{b[1]:.1f}" fill="none" stroke="{line.stroke}" '
            f'stroke-width="{line.width:g}"/>'
        )
    elif line.head == "dot":
        x, y = line.points[-1]
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{2 + line.width:.1f}" fill="{line.stroke}"/>'
        )
    parts.append("</g>")
    return "".join(parts)


def _svg_text(t: Text) -> str:
    x0, y0, x1, y1 = bounds(t)
    halo = (
        f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" '
        f'fill="{t.halo}" fill-opacity="0.85" rx="2"/>'
        if t.halo
        else ""
    )
    # textLength: the width Pillow measured, so the text fits its box in any font
    length = text_size(t)[0] - 4
    return (
        f'<g {_cls(t)} data-box="{x0:.1f} {y0:.1f} {x1:.1f} {y1:.1f}">{halo}'
        f'<text x="{t.x:.1f}" y="{t.y + t.size * 0.36:.1f}" font-size="{t.size:g}" '
        f'font-family="sans-serif" text-anchor="middle" fill="{t.fill}" '
        f'textLength="{length:.1f}" lengthAdjust="spacingAndGlyphs">{escape(t.text)}</text></g>'
    )


def to_png(scene: Scene) -> bytes:
    items, height = laid_out(scene)
    size = (round(scene.width), round(height))
    image = Image.new("RGB", (size[0] * SS, size[1] * SS), "#ffffff")
    draw = ImageDraw.Draw(image, "RGBA")
    for item in items:
        _png(image, draw, item)
    # SS x SS pixels averaged into one: the supersampled picture antialiased
    # (a box filter, as supersampling asks; a tenth of a Lanczos filter's cost)
    image = image.reduce(SS)
    buffer = io.BytesIO()
    # a few dozen colours: a palette image is a third of the size; its runs
    # of one colour compress as well by run-length alone, at a third of the time
    palette = image.quantize(128, method=Image.Quantize.FASTOCTREE)
    palette.save(buffer, "PNG", compress_level=6, compress_type=zlib.Z_RLE)
    return buffer.getvalue()


def _png(image: Image.Image, draw: ImageDraw.ImageDraw, item: Item) -> None:
    if isinstance(item, Circle):
        x, y, r = item.x * SS, item.y * SS, item.r * SS
        draw.ellipse([x - r, y - r, x + r, y + r], fill=None if item.fill == "none" else item.fill,
                     outline=item.stroke if item.width else None,
                     width=max(1, round(item.width * SS)))  # fmt: skip
    elif isinstance(item, Box) and item.diamond:
        draw.polygon([(x * SS, y * SS) for x, y in item.corners()], fill=item.fill,
                     outline=item.stroke if item.width else None,
                     width=max(1, round(item.width * SS)))  # fmt: skip
    elif isinstance(item, Box):
        x0, y0, x1, y1 = (v * SS for v in item.box())
        draw.rectangle([x0, y0, x1, y1], fill=item.fill,
                       outline=item.stroke if item.width else None,
                       width=max(1, round(item.width * SS)))  # fmt: skip
    elif isinstance(item, Shape):
        draw.polygon([(x * SS, y * SS) for x, y in item.points], fill=item.fill,
                     outline=item.stroke if item.width else None,
                     width=max(1, round(item.width * SS)))  # fmt: skip
    elif isinstance(item, Line):
        _png_line(draw, item)
    else:
        if item.halo:
            x0, y0, x1, y1 = (v * SS for v in bounds(item))
            draw.rounded_rectangle([x0, y0, x1, y1], 2 * SS, fill=_rgba(item.halo, 217))
        _text(image, item)


def _text(image: Image.Image, t: Text) -> None:
    """A text, centred on its point (to the nearest pixel of the picture
    drawn at SS times its size): its colour through the text's mask."""
    mask, (left, top) = _text_mask(t.text, t.size * SS)
    x, y = round(t.x * SS) + left, round(t.y * SS) + top
    image.paste(ImageColor.getrgb(t.fill), (x, y, x + mask.width, y + mask.height), mask)


@functools.lru_cache(maxsize=4096)
def _text_mask(text: str, size: float) -> tuple[Image.Image, tuple[int, int]]:
    """How much of each pixel a text covers, drawn centred on (0, 0), and
    where its top left corner is from there. The same names come back in
    every picture of a map: each is drawn by the font once."""
    typeface = font(size)
    left, top, right, bottom = typeface.getbbox(text, anchor="mm")
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=typeface, anchor="mm")
    return mask, (left, top)


def _png_line(draw: ImageDraw.ImageDraw, line: Line) -> None:
    pts = [(x * SS, y * SS) for x, y in line.points]
    width = max(1, round(line.width * SS))
    if line.dash:
        for a, b in _dashes(pts, [d * SS for d in line.dash]):
            draw.line([a, b], fill=line.stroke, width=width)
    else:
        draw.line(pts, fill=line.stroke, width=width, joint="curve")
    if line.head == "arrow":
        draw.polygon(head_points(Line(tuple(pts), "", "", line.width), SS), fill=line.stroke)
    elif line.head == "open":
        h = head_points(Line(tuple(pts), "", "", line.width), SS)
        draw.line([h[1], h[0], h[2]], fill=line.stroke, width=width)
    elif line.head == "dot":
        x, y = pts[-1]
        r = (2 + line.width) * SS
        draw.ellipse([x - r, y - r, x + r, y + r], fill=line.stroke)


def _dashes(pts: list[tuple[float, float]], pattern: list[float]):  # noqa: ANN202
    """The drawn pieces of a dashed polyline."""
    on, i, left = True, 0, pattern[0]
    for a, b in zip(pts, pts[1:], strict=False):
        length = hypot(b[0] - a[0], b[1] - a[1])
        t = 0.0
        while t < length:
            step = min(left, length - t)
            if on:
                p = (a[0] + (b[0] - a[0]) * t / length, a[1] + (b[1] - a[1]) * t / length)
                q = (
                    a[0] + (b[0] - a[0]) * (t + step) / length,
                    a[1] + (b[1] - a[1]) * (t + step) / length,
                )
                yield p, q
            t += step
            left -= step
            if left <= 1e-9:
                on, i = not on, (i + 1) % len(pattern)
                left = pattern[i]


def _rgba(colour: str, alpha: int) -> tuple[int, int, int, int]:
    return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16), alpha)
