"""Pure rule engines, one package per game, and the list of games.

Nothing under ``adjudicator/`` reads the clock, the environment, global
random state or mail, or imports ``pbem``; shipped maps are read as package
data. The host finds a game only through :data:`GAMES`.
"""

from __future__ import annotations

from adjudicator.base import Game
from adjudicator.empire import GAME as EMPIRE
from adjudicator.implosion import GAME as IMPLOSION
from adjudicator.officewars import GAME as OFFICEWARS
from adjudicator.strategic.game import GAME as STRATEGIC
from adjudicator.territory import GAME as TERRITORY

GAMES: dict[str, Game] = {
    OFFICEWARS.name: OFFICEWARS,
    IMPLOSION.name: IMPLOSION,
    TERRITORY.name: TERRITORY,
    EMPIRE.name: EMPIRE,
    STRATEGIC.name: STRATEGIC,
}


def game(name: str) -> Game:
    """The game called ``name``; KeyError names the games there are."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"no game {name!r}; games: {', '.join(sorted(GAMES))}") from None
