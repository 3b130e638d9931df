"""Action ids of Gang of Dice (the table is in the package docstring).

    0                      STOP        keep the current faces and end the turn
    1                      REROLL      start choosing dice to re-roll (then one PICK per face shown)
    2 + (n - 1)            STAKE n     put n dice on the table and roll them, n = 1..MAX_DICE
    PICK_BASE + f*(MAX_DICE+1) + k
                           PICK f k    re-roll k of the dice showing face f (f = 0 for G, 1..5)
"""

from __future__ import annotations

from typing import Final

from engine.core import UnknownActionError

# The most dice one player can ever hold: 144 starting dice (3 x 48 or 4 x 36) + 18 bonus dice.
MAX_DICE: Final = 162

# Final: the compiled engine inlines them as constants.
STOP: Final = 0
REROLL: Final = 1
STAKE_BASE: Final = 2
PICK_BASE: Final = STAKE_BASE + MAX_DICE  # 164
PICK_STRIDE: Final = MAX_DICE + 1  # k runs 0..MAX_DICE for each face
NUM_ACTIONS: Final = PICK_BASE + 6 * PICK_STRIDE  # 1142


def stake_action(n: int) -> int:
    """The id of "stake n dice"."""
    return STAKE_BASE + n - 1


def pick_action(face: int, k: int) -> int:
    """The id of "re-roll k of the dice showing face" (face code 0 = G)."""
    return PICK_BASE + face * PICK_STRIDE + k


def face_name(face: int) -> str:
    """"G" for the gangster face, else the value as text."""
    return "G" if face == 0 else str(face)


def label(action: int) -> str:
    """What an action does, in words that follow the seat's name: "stakes 7 dice", "stops"."""
    if action == STOP:
        return "stops"
    if action == REROLL:
        return "re-rolls some dice"
    if STAKE_BASE <= action < PICK_BASE:
        n = action - STAKE_BASE + 1
        return f"stakes {n} {'die' if n == 1 else 'dice'}"
    if PICK_BASE <= action < NUM_ACTIONS:
        face, k = divmod(action - PICK_BASE, PICK_STRIDE)
        if k == 0:
            return f"keeps every die showing {face_name(face)}"
        return f"re-rolls {k} {'die' if k == 1 else 'dice'} showing {face_name(face)}"
    raise UnknownActionError(f"gang_of_dice has no action {action!r}; actions are 0 to {NUM_ACTIONS - 1}")
