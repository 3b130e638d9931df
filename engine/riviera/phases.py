"""Riviera's internal phases (rules §2.2) and a seat's status in a round (§0), with the names
observations show for them."""

from __future__ import annotations

from typing import Final

# Final: the compiled engine inlines each phase as a constant where a module reads it, instead of a
# dictionary lookup of a module global per use (every step compares the phase several times).
REMOVED_DRAW: Final = 0  # chance: the colour that leaves the game (2-4 players)
HOLDER_DRAW: Final = 1  # chance: who holds the Start token first
DEAL: Final = 2  # chance: one node per card dealt
ROLL: Final = 3  # chance: one node per die
ADJUST_DICE: Final = 4  # card 9 owners, one at a time
CHOOSE: Final = 5  # main card / Last Chance / crash
BONUS: Final = 6  # card 1 bonus plays
POWERS: Final = 7  # card 2, 10, 11 decisions, one owner at a time
SWAP_GIVE: Final = 8  # card 10 swap: the owner picks the cards to give, one per decision
SWAP_PICK: Final = 9  # chance: the cards taken at random from the target, one per node
FALLBACK_DISCARD: Final = 10  # card 10 fallback: the owner picks the cards to throw away
DRAW: Final = 11  # chance: the fallback draws, one node per card
STOP_OR_MORE: Final = 12
GAME_OVER: Final = 13

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

CHANCE_PHASES: Final = frozenset({REMOVED_DRAW, HOLDER_DRAW, DEAL, ROLL, SWAP_PICK, DRAW})

# Player status within a round (§0).
IN: Final = 0
STOPPED: Final = 1
CRASHED: Final = 2
STATUS_NAMES = ("IN", "STOPPED", "CRASHED")
