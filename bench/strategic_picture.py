"""Strategic Initiative's map pictures: prints their figures.

Two boards, each picture drawn as the reports draw it (the game's scene,
its names placed, then SVG and PNG), for every nation and the game master:

1. the default board of 6 players (64 x 64) at the start, with 60 more
   units on it so that some squares hold several;
2. 24 players on 256 x 256 with 5,000 units (a third at sea), the board of
   the big tick.

For each: the scene (adjudicator/strategic/picture.py), the names placed,
the SVG and the PNG, in CPU milliseconds of this process (time.process_time),
the mean over the viewers and the slowest; the SVG's and PNG's sizes.

Target: a picture per reader per tick; the scene itself well under the
PNG's time (the host's drawing), which is most of a picture's cost.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.base import Rng  # noqa: E402
from adjudicator.strategic import board as boards  # noqa: E402
from adjudicator.strategic.game import GAME  # noqa: E402
from adjudicator.strategic.picture import draw  # noqa: E402
from adjudicator.strategic.state import State  # noqa: E402
from pbem.pictures.labels import place_names  # noqa: E402
from pbem.pictures.render import to_png, to_svg  # noqa: E402


def game(players: int, units: int, side: int | None, seed: int) -> State:
    """A started game with ``units`` more units put about at random: land
    units on land, ships at sea."""
    names = [f"p{i:02d}" for i in range(players)]
    grid, cities = boards.generate(players, seed, side, side)
    state = boards.start(grid, cities, names, seed, {})
    rng = Rng(seed)
    land = sorted(state.board.land)
    water = [sq for sq in range(state.grid.size) if sq not in state.board.land]
    for i in range(units):
        owner = names[i % players]
        if i % 3:
            boards.new_unit(state, owner, "infantry", land[rng.below(len(land))])
        else:
            boards.new_unit(state, owner, "destroyer", water[rng.below(len(water))])
    return state


def measure(state: State) -> dict[str, list[float]]:
    """Each step's CPU milliseconds for every viewer, and the sizes."""
    out: dict[str, list[float]] = {k: [] for k in ("scene", "names", "svg", "png", "kb", "pkb")}
    for viewer in [*sorted(state.nations), None]:
        view = GAME.view(state, viewer)
        t0 = time.process_time()
        scene = draw(view, ())
        t1 = time.process_time()
        place_names(scene)
        t2 = time.process_time()
        svg = to_svg(scene)
        t3 = time.process_time()
        png = to_png(scene)
        t4 = time.process_time()
        for key, value in (("scene", t1 - t0), ("names", t2 - t1), ("svg", t3 - t2),
                           ("png", t4 - t3)):  # fmt: skip
            out[key].append(value * 1000)
        out["kb"].append(len(svg) / 1000)
        out["pkb"].append(len(png) / 1000)
    return out


def report(title: str, figures: dict[str, list[float]]) -> None:
    print(f"{title}: {len(figures['scene'])} pictures (every nation and the game master)")
    for key, words in (("scene", "scene"), ("names", "names placed"), ("svg", "SVG"),
                       ("png", "PNG")):  # fmt: skip
        mean, most = sum(figures[key]) / len(figures[key]), max(figures[key])
        print(f"  {words:13} mean {mean:7.1f} ms, slowest {most:7.1f} ms")
    for key, words in (("kb", "SVG size"), ("pkb", "PNG size")):
        mean, most = sum(figures[key]) / len(figures[key]), max(figures[key])
        print(f"  {words:13} mean {mean:7.0f} kB, largest {most:7.0f} kB")


def main() -> None:
    report("64 x 64, 6 players", measure(game(6, 60, None, 3)))
    report("256 x 256, 24 players, 5,000 units", measure(game(24, 5000, 256, 5)))


if __name__ == "__main__":
    main()
