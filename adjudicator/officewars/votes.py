"""The surrender vote (officewars.html, Winning; RULINGS.md, Office Wars,
Winning).

Open once the leader owns strictly more than 1.2 times as many systems as
the second; every other active player may then vote to surrender, weighted
by their systems; it carries when the yes weight is more than half the
total weight of all players other than the leader. Counted at the tick, on
the position the voters saw (the start of the tick); if it carries, the
game ends before the tick's orders are carried out and the leader wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from adjudicator.officewars.state import State


@dataclass(frozen=True)
class SurrenderVote:
    open: bool
    leader: str | None
    leader_systems: int
    second_systems: int
    weights: dict[str, int]  # every voter (active, not the leader) and their weight
    yes: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return sum(self.weights.values())

    @property
    def yes_weight(self) -> int:
        return sum(self.weights[p] for p in self.yes)

    @property
    def carried(self) -> bool:
        return self.open and 2 * self.yes_weight > self.total


def surrender_vote(state: State, yes: Iterable[str] = ()) -> SurrenderVote:
    """The vote as it stands in ``state`` with ``yes`` the players voting to
    surrender (votes of players who may not vote are left out)."""
    counts = state.system_count
    ranked = sorted(state.active, key=lambda p: (-counts[p], p))
    if len(ranked) < 2:
        return SurrenderVote(
            False, ranked[0] if ranked else None, counts[ranked[0]] if ranked else 0, 0, {}
        )
    leader, second = ranked[0], ranked[1]
    top, runner_up = counts[leader], counts[second]
    # strictly more than 1.2 times: top > 6/5 * runner_up, in integers
    is_open = 5 * top > 6 * runner_up
    weights = {p: counts[p] for p in ranked[1:]}
    voters = tuple(sorted(p for p in set(yes) if p in weights)) if is_open else ()
    return SurrenderVote(
        is_open, leader if is_open or top > runner_up else None, top, runner_up, weights, voters
    )
