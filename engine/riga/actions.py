"""Riga action ids: one fixed integer space (the table is in the package docstring); the labels
of actions and of chance outcomes."""

from __future__ import annotations

from collections.abc import Callable

from engine.riga import tables as t

KEEP_START = 0  # + i, i in 0..1
TAKE_ROW = 2  # + row slot, 0..5
TAKE_BUILDING = 8  # + city card id, 0..47
TAKE_NOTHING = 56
START_BUILD = 57  # + card id, 0..51 (48..51 = the player's own Riga buildings)
PAY_GOOD = 109  # + good, 0..3
PAY_CREDIT = 113  # + credit index, 0..3 (the Strongbox of Visby, Tallinn, Stockholm, Danzig)
END_TURN = 117
DISCARD_GOOD = 118  # + good, 0..3
DISCARD_BUILDING = 122  # + city card id, 0..47
NUM_ACTIONS = 170

MAX_ROWS = 6


def label(action: int) -> str:
    """A stable label for an action id in words: "take goods row 2", "build Danzig Strongbox (D05)"."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"riga has no action {action!r}; actions are 0 to {NUM_ACTIONS - 1}")
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


def _seat(seat: int) -> str:
    return f"seat {seat}"


# What each chance node draws, by phase name: what the label says and how the outcome is named.
_CHANCE_NODES: dict[str, tuple[str, Callable[[int], str]]] = {
    "start_player": ("start player", _seat),
    "tile_flip": ("Grand Master tile turned over", t.TILE_NAMES.__getitem__),
    "tile_draw": ("Grand Master tile to the supply", t.TILE_NAMES.__getitem__),
    "setup_goods": ("starting goods card", t.GOOD_NAMES.__getitem__),
    "spring_rows": ("goods card for a row", t.GOOD_NAMES.__getitem__),
    "extra_draw": ("extra goods card", t.GOOD_NAMES.__getitem__),
    "setup_buildings": ("start building card", card_words),
    "spring_display": ("building card", card_words),
}


# The chance nodes whose card goes face down to the drawing seat's hand (rules §2.6).
PRIVATE_DRAWS = frozenset({"setup_buildings", "extra_draw"})


def hidden_chance_label(phase: str, seat: int) -> str:
    """A chance node without its outcome, for a viewer who may not see it: "start building card
    for seat 1"; `seat` is the seat drawing (used only where a seat draws)."""
    what = _CHANCE_NODES[phase][0]
    return f"{what} for seat {seat}" if phase in PRIVATE_DRAWS or phase == "setup_goods" else f"{what} drawn"


def chance_label(phase: str, outcome: int) -> str:
    """A short stable label for a chance outcome at a node of `phase` (its observation name)."""
    what, name = _CHANCE_NODES[phase]
    return f"{what}: {name(outcome)}"
