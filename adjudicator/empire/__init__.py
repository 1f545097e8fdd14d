"""Empire: standard Diplomacy, adjudicated to the DATC, with the Empire
endgame and a scoreboard (../shared/rules/empire-endgame.txt; see
docs/rules/empire.md).

The game object the host uses is :data:`GAME` (game.py). board.py holds
the map, orders.py the notation, resolve.py the movement phase, phases.py
retreats and adjustments.
"""

from adjudicator.empire.game import GAME, Empire

__all__ = ["GAME", "Empire"]
