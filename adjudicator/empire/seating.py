"""Who plays which power: the game master's fixed seats, then the players'
lists of wishes (njudge's SET PREFERENCE, Diplicity's nation preferences),
then the seed.

A power a player ranks k-th costs k; a power they do not rank (or every
power, for a player with no list) costs one more than the last rank. The
assignment has the lowest total cost over every player without a fixed
seat. Ties are settled by the seed: the free powers are dealt in the
seed's shuffled order (the deal of a game without wishes), the possible
assignments are tried in that order, and the first of the lowest cost is
taken. Without wishes that is the deal itself. Pure: no I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from adjudicator.base import GameError, Rng

SHORT = {"eng": "England", "fra": "France", "ger": "Germany", "ita": "Italy",
         "aus": "Austria", "rus": "Russia", "tur": "Turkey"}  # fmt: skip


def read_power(powers: Sequence[str], word: str) -> str | None:
    """The power a player's word names: the name in any case, the classic
    three letters (Eng, Fra, Ger, Ita, Aus, Rus, Tur) or any longer start
    of the name that fits one power; None if it names none."""
    low = word.strip().lower()
    if len(low) < 3:
        return None
    if low in SHORT and SHORT[low] in powers:
        return SHORT[low]
    hits = [p for p in powers if p.lower().startswith(low)]
    return hits[0] if len(hits) == 1 else None


def cost(preferences: Sequence[str], power: str, unranked: int) -> int:
    """A power's cost to a player: its rank on the player's list (1 the
    first), or ``unranked`` if it is not on it."""
    return preferences.index(power) + 1 if power in preferences else unranked


def assign(
    powers: Sequence[str],
    players: Sequence[str],
    fixed: Mapping[str, str],
    preferences: Mapping[str, Sequence[str]],
    seed: int,
) -> dict[str, str]:
    """Each player's power: ``fixed`` seats as given, the others by the
    lowest total cost of their ``preferences``, ties settled by ``seed``."""
    check(powers, players, fixed, preferences)
    taken = set(fixed.values())
    free = [p for p in Rng(seed).shuffled(list(powers)) if p not in taken]
    choosers = [n for n in players if n not in fixed]
    unranked = len(powers) + 1
    table = [[cost(tuple(preferences.get(n, ())), p, unranked) for p in free] for n in choosers]
    best: tuple[int, ...] = tuple(range(len(choosers)))
    lowest = sum(row[j] for row, j in zip(table, best, strict=True))
    for perm in itertools.permutations(range(len(free)), len(choosers)):
        total = sum(row[j] for row, j in zip(table, perm, strict=True))
        if total < lowest:
            best, lowest = perm, total
    out = {n: fixed[n] for n in players if n in fixed}
    out.update({n: free[j] for n, j in zip(choosers, best, strict=True)})
    return {n: out[n] for n in players}


def check(
    powers: Sequence[str],
    players: Sequence[str],
    fixed: Mapping[str, str],
    preferences: Mapping[str, Sequence[str]],
) -> None:
    """GameError for seats and wishes that cannot be: a player not in the
    game, a power the map has not, one power fixed for two players, a
    power twice on one list, more players than powers."""
    if len(players) > len(powers):
        raise GameError(f"{len(players)} players for {len(powers)} powers")
    for who in (*fixed, *preferences):
        if who not in players:
            raise GameError(f"{who} is not a player of the game")
    for who, power in fixed.items():
        if power not in powers:
            raise GameError(f"{who}: there is no power {power!r}")
        others = [n for n, p in fixed.items() if p == power and n != who]
        if others:
            raise GameError(f"{power} is given to both {who} and {others[0]}")
    for who, wished in preferences.items():
        for power in wished:
            if power not in powers:
                raise GameError(f"{who}: there is no power {power!r}")
        if len(set(wished)) != len(wished):
            raise GameError(f"{who}: a power is on the list twice")
