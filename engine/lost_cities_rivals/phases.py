"""The phases of Lost Cities: Rivals (rules §2), the names observations show for them, and the
node kind of each.

The two chance phases (dealing starting wagers, revealing a pile card), the four decision
phases of a turn, and the end.
"""

from __future__ import annotations

from engine.core import NodeKind

DEAL, TURN, BID, TAKE, BOX, REVEAL, OVER = range(7)
PHASE_NAMES = ("deal", "turn", "bidding", "take", "box", "reveal", "game_over")
KIND_OF_PHASE = (
    NodeKind.CHANCE,
    NodeKind.DECISION,
    NodeKind.DECISION,
    NodeKind.DECISION,
    NodeKind.DECISION,
    NodeKind.CHANCE,
    NodeKind.TERMINAL,
)
NO_SEAT = -1  # no seat: no auction starter, high bidder or seat to act
