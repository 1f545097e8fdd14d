"""The games a command uses where it names none: the first game listed, the
first with positions as text, the first that makes random maps. Reading
them imports every game's rules; the commands that need them import this."""

from __future__ import annotations

from adjudicator import GAMES

FIRST = next(iter(GAMES.values()))
POSITIONS = next((g for g in GAMES.values() if g.positions), FIRST)
MAPMAKER = next((g for g in GAMES.values() if g.generates_maps), FIRST)
