"""Map pictures: every game's view drawn as SVG and as PNG.

Each game draws its own picture as neutral primitives
(:meth:`adjudicator.base.Game.picture`, :mod:`adjudicator.drawing`); here
the names it wants are placed where they cover nothing
(:mod:`pbem.pictures.labels`, with the font's measures from
:mod:`pbem.pictures.measure`) and the scene is written as SVG and PNG
(:mod:`pbem.pictures.render`).
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence

from adjudicator import GAMES
from adjudicator.base import OrderResult, View
from adjudicator.drawing import Scene
from pbem.pictures.labels import place_names
from pbem.pictures.render import to_png, to_svg


def picture(kind: str, view: View, results: Sequence[OrderResult]) -> Scene:
    """The map of ``view`` in the game ``kind`` with the orders of
    ``results`` drawn on it, its names placed."""
    scene = GAMES[kind].picture(view, results)
    place_names(scene)
    return scene


def rendered(
    kind: str, view: View, results: Sequence[OrderResult], done: dict[bytes, tuple[str, bytes]]
) -> tuple[str, bytes]:
    """The map of ``view`` with ``results``, as SVG and PNG, drawn once
    for all the readers who see the same map (``done``: one turn's
    pictures so far, by the map before its names are placed, which is
    what costs most)."""
    scene = GAMES[kind].picture(view, results)
    key = pickle.dumps(scene)  # the whole scene, as a key (faster written than repr)
    if key not in done:
        place_names(scene)
        done[key] = (to_svg(scene), to_png(scene))
    return done[key]


__all__ = ["Scene", "picture", "rendered", "to_png", "to_svg"]
