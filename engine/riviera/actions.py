"""Riviera's action ids and their labels (rules §2.4; the protocol table is in the package docstring)."""

from __future__ import annotations

from typing import Final

from engine.core import UnknownActionError
from engine.riviera.components import DIE_LONG_NAMES, card_words

PLAY: Final = 0  # PLAY + card: play that card (main card in CHOOSE, bonus card in BONUS)
LAST_CHANCE: Final = 60
CRASH: Final = 61
PASS: Final = 62  # no bonus card / no die change / power not used
STOP: Final = 63
MORE: Final = 64
ADJUST: Final = 65  # ADJUST + 2*die (+1) or ADJUST + 2*die + 1 (-1), die 0..5
ACTIVATE: Final = 77  # switch on card 2 (reserve) or card 11 (golden die)
SWAP_WITH: Final = 78  # SWAP_WITH + seat: card 10, swap with that seat
GIVE: Final = 84  # GIVE + card: card 10 swap, a card to give
DISCARD: Final = 144  # DISCARD + card: card 10 fallback, a card to throw away
NUM_ACTIONS: Final = 204


def adjust_action(die: int, delta: int) -> int:
    """The action that turns `die` by `delta` (+1 or -1)."""
    return ADJUST + 2 * die + (0 if delta > 0 else 1)


def action_label(action: int) -> str:
    """What an action does, in words that follow the seat's name: "plays red 7", "stops"."""
    if 0 <= action < LAST_CHANCE:
        return f"plays {card_words(action)}"
    fixed = {LAST_CHANCE: "uses Last Chance", CRASH: "crashes", PASS: "passes", STOP: "stops",
             MORE: "goes on (more)", ACTIVATE: "switches the power on"}
    if action in fixed:
        return fixed[action]
    if ADJUST <= action < ACTIVATE:
        die, down = divmod(action - ADJUST, 2)
        return f"turns the {DIE_LONG_NAMES[die]} {'down' if down else 'up'} one"
    if SWAP_WITH <= action < GIVE:
        return f"swaps with seat {action - SWAP_WITH}"
    if GIVE <= action < DISCARD:
        return f"gives {card_words(action - GIVE)}"
    if DISCARD <= action < NUM_ACTIONS:
        return f"discards {card_words(action - DISCARD)}"
    raise UnknownActionError(f"riviera has no action {action!r}; actions are 0 to {NUM_ACTIONS - 1}")
