"""Riga action ids: one fixed integer space (the table is in the package docstring), and their
labels."""

from __future__ import annotations

from typing import Final

from engine.core import UnknownActionError
from engine.riga import components as t

KEEP_START: Final = 0  # + i, i in 0..1
TAKE_ROW: Final = 2  # + row slot, 0..5
TAKE_BUILDING: Final = 8  # + city card id, 0..47
TAKE_NOTHING: Final = 56
START_BUILD: Final = 57  # + card id, 0..51 (48..51 = the player's own Riga buildings)
PAY_GOOD: Final = 109  # + good, 0..3
PAY_CREDIT: Final = 113  # + credit index, 0..3 (the Strongbox of Visby, Tallinn, Stockholm, Danzig)
END_TURN: Final = 117
DISCARD_GOOD: Final = 118  # + good, 0..3
DISCARD_BUILDING: Final = 122  # + city card id, 0..47
NUM_ACTIONS: Final = 170

MAX_ROWS: Final = 6


def label(action: int) -> str:
    """A stable label for an action id in words: "take goods row 2", "build Danzig Strongbox (D05)"."""
    if not 0 <= action < NUM_ACTIONS:
        raise UnknownActionError(f"riga has no action {action!r}; actions are 0 to {NUM_ACTIONS - 1}")
    if action < TAKE_ROW:
        return f"keep the {('first', 'second')[action - KEEP_START]} start building"
    if action < TAKE_BUILDING:
        return f"take goods row {action - TAKE_ROW + 1}"  # rows are numbered from 1 for people
    if action < TAKE_NOTHING:
        return f"take {card_words(action - TAKE_BUILDING)} from the display"
    if action == TAKE_NOTHING:
        return "take nothing"
    if action < PAY_GOOD:
        return f"build {card_words(action - START_BUILD)}"
    if action < PAY_CREDIT:
        return f"pay with {t.GOOD_NAMES[action - PAY_GOOD]}"
    if action < END_TURN:
        return f"pay with the credit of {card_words(t.CREDIT_CARDS[action - PAY_CREDIT])}"
    if action == END_TURN:
        return "end the turn"
    if action < DISCARD_BUILDING:
        return f"discard {t.GOOD_NAMES[action - DISCARD_GOOD]}"
    return f"discard {card_words(action - DISCARD_BUILDING)}"


def card_words(card: int) -> str:
    """A building as a person reads it, with its code: "Danzig Strongbox (D05)", "Monastery (R1)"."""
    return f"{t.CARDS[card].name} ({t.CARDS[card].code})"
