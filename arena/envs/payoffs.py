"""A finished game's ranks as zero-sum payoffs, the same in both adapters.

A game's `returns()` are game points, whose range differs per game and per table size. What the
arena rates is the ranks (a k-player result counts as the pairwise results by rank:
arena/rating.py), so the environments pay each seat its pairwise record: (seats it beat - seats that beat it) /
(players - 1). That lies in [-1, 1], is +1 for a lone winner and -1 for a lone loser, is 0 for a
shared place in a two-seat tie, and sums to 0 over the seats (zero-sum) for every player count.
"""

from __future__ import annotations

from collections.abc import Sequence

MIN_PAYOFF, MAX_PAYOFF = -1.0, 1.0


def rank_payoffs(ranks: Sequence[int]) -> list[float]:
    """Each seat's pairwise record by rank (1 = best), scaled into [-1, 1]."""
    others = len(ranks) - 1
    return [sum((mine < other) - (mine > other) for other in ranks) / others for mine in ranks]
