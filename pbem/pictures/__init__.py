"""Map pictures: every game's view drawn as SVG and as PNG.

:mod:`pbem.pictures.scene` holds the drawing primitives (nothing in it
knows a game), :mod:`pbem.pictures.render` writes a scene as SVG and PNG,
:mod:`pbem.pictures.labels` places the names. Each game has a module that
turns its view and its turn's results into a scene.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from adjudicator.base import OrderResult, View
from pbem.pictures.empire import empire_picture
from pbem.pictures.implosion import implosion_picture
from pbem.pictures.officewars import officewars_picture
from pbem.pictures.render import to_png, to_svg
from pbem.pictures.scene import Scene
from pbem.pictures.territory import territory_picture

PICTURES: dict[str, Callable[[View, Sequence[OrderResult]], Scene]] = {
    "officewars": officewars_picture,
    "implosion": implosion_picture,
    "territory": territory_picture,
    "empire": empire_picture,
}


def picture(kind: str, view: View, results: Sequence[OrderResult]) -> Scene:
    """The map of ``view`` with the orders of ``results`` drawn on it."""
    return PICTURES[kind](view, results)


__all__ = ["PICTURES", "Scene", "picture", "to_png", "to_svg"]
