"""Pure rule engines, one package per game, and the list of games.

Nothing under ``adjudicator/`` reads the clock, the environment, global
random state or mail, or imports ``pbem``; shipped maps are read as package
data. The host finds a game only through :data:`GAMES`.

A game's engine is imported the first time it is asked for: a server that
plays one game, and each command line run, loads that game's rules alone.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from adjudicator.base import Game

# Every game, by its name: the module that holds its GAME. The order is the
# order games are listed in (the first is the default where none is named).
PACKAGES: dict[str, str] = {
    "officewars": "adjudicator.officewars",
    "implosion": "adjudicator.implosion",
    "territory": "adjudicator.territory",
    "empire": "adjudicator.empire",
    "strategic": "adjudicator.strategic.game",
}


class Games(Mapping[str, Game]):
    """The games by name, each engine imported when it is first asked for."""

    def __init__(self, packages: Mapping[str, str]) -> None:
        self._packages = dict(packages)
        self._loaded: dict[str, Game] = {}

    def __getitem__(self, name: str) -> Game:
        game = self._loaded.get(name)
        if game is None:
            game = importlib.import_module(self._packages[name]).GAME
            self._loaded[name] = game
        return game

    def __iter__(self) -> Iterator[str]:
        return iter(self._packages)

    def __len__(self) -> int:
        return len(self._packages)


GAMES: Mapping[str, Game] = Games(PACKAGES)


def game(name: str) -> Game:
    """The game called ``name``; KeyError names the games there are."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"no game {name!r}; games: {', '.join(sorted(GAMES))}") from None
