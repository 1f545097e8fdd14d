"""Who plays which power, as the players are told it: the seats the game
master gave in games.yaml (``power:``), and one line for a player who
ranked the seats (PREFERENCE, ``preferences:``) on how the choice went.
The choosing itself is the game's (Game.start_seated)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pbem.config import GameConfig

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")


def fixed_seats(cfg: GameConfig, names: Iterable[str]) -> dict[str, str]:
    """The seats games.yaml gives to players seated in the game."""
    seated = set(names)
    return {p.name: p.power for p in cfg.players if p.power and p.name in seated}


def ordinal(n: int) -> str:
    return ORDINALS[n - 1] if 1 <= n <= len(ORDINALS) else f"{n}th"


def explain(
    me: str,
    wishes: Mapping[str, Sequence[str]],
    fixed: Mapping[str, str],
    seats: Mapping[str, str],
) -> str | None:
    """The start mail's line for a player who ranked the seats: which of
    their choices they got and, if not their first, who has that one and
    why (None for a player who ranked none, or whose seat was given)."""
    mine = tuple(wishes.get(me, ()))
    if not mine or me in fixed:
        return None
    got, first = seats.get(me, ""), mine[0]
    if got == first:
        return f"You asked for {first} first, and you play it."
    holder = next((n for n, s in seats.items() if s == first), None)
    if holder is None:
        went = f"nobody plays {first}"
    elif holder in fixed:
        went = f"{first} went to {holder}, whose power the game master gave"
    elif first in wishes.get(holder, ()):
        rank = list(wishes[holder]).index(first) + 1
        went = f"{first} went to {holder}, who " + (
            "also ranked it first" if rank == 1 else f"ranked it {ordinal(rank)}"
        )
    else:
        went = f"{first} went to {holder}, who did not rank it"
    you = (
        f"you play {got}, your {ordinal(mine.index(got) + 1)} choice"
        if got in mine
        else f"you play {got}, which was not on your list"
    )
    return (
        f"You asked for {first} first; {went}, and {you}. The powers go where they "
        "place the players highest on their lists, all lists taken together (the "
        "lowest sum of ranks), ties settled by the game's seed."
    )
