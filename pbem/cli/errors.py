"""What the command line's commands share: bad input, and the games a
command uses where it names none."""

from __future__ import annotations

from adjudicator import GAMES

# the defaults where a command names no game: the first game listed, the
# first with positions as text, the first that makes random maps
FIRST = next(iter(GAMES.values()))
POSITIONS = next((g for g in GAMES.values() if g.positions), FIRST)
MAPMAKER = next((g for g in GAMES.values() if g.generates_maps), FIRST)


class InputError(Exception):
    """Bad input from the user: printed, exit status 2."""
