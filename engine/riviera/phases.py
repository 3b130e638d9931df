"""Riviera's internal phases (rules §2.2) and a seat's status in a round (§0), with the names
observations show for them."""

from __future__ import annotations

(
    REMOVED_DRAW,  # chance: the colour that leaves the game (2-4 players)
    HOLDER_DRAW,  # chance: who holds the Start token first
    DEAL,  # chance: one node per card dealt
    ROLL,  # chance: one node per die
    ADJUST_DICE,  # card 9 owners, one at a time
    CHOOSE,  # main card / Last Chance / crash
    BONUS,  # card 1 bonus plays
    POWERS,  # card 2, 10, 11 decisions, one owner at a time
    SWAP_GIVE,  # card 10 swap: the owner picks the cards to give, one per decision
    SWAP_PICK,  # chance: the cards taken at random from the target, one per node
    FALLBACK_DISCARD,  # card 10 fallback: the owner picks the cards to throw away
    DRAW,  # chance: the fallback draws, one node per card
    STOP_OR_MORE,
    GAME_OVER,
) = range(14)

PHASE_NAMES = (
    "setup",
    "setup",
    "deal",
    "roll",
    "adjust_dice",
    "choose",
    "bonus_choose",
    "powers",
    "swap_give",
    "swap_pick",
    "fallback_discard",
    "fallback_draw",
    "stop_or_more",
    "game_over",
)

CHANCE_PHASES = frozenset({REMOVED_DRAW, HOLDER_DRAW, DEAL, ROLL, SWAP_PICK, DRAW})

# Player status within a round (§0).
IN, STOPPED, CRASHED = 0, 1, 2
STATUS_NAMES = ("IN", "STOPPED", "CRASHED")
