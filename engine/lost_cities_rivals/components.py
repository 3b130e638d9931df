"""The cards and coins of Lost Cities: Rivals, and how cards are written (data, no rules logic).

A card *kind* is an integer `10 * colour + rank`: rank 0 is a wager, rank r in 1..9 is the number
r + 1 (2..10). Copies of the same kind (R3a, R3b, the three R*) are interchangeable, so the engine
keeps counts and tuples of kinds, never copy identities.
"""

from __future__ import annotations

COLOURS = "RGBYW"  # labels of the five expeditions (arbitrary, rules §1.1)
NUM_COLOURS = 5
NUM_KINDS = 10 * NUM_COLOURS
WAGER_RANK = 0

# Copies of each rank in one colour of the 80-card main deck: 3 wagers, two each of 2..5,
# one each of 6..10 (rules §1.1).
COPIES_PER_RANK = (3, 2, 2, 2, 2, 1, 1, 1, 1, 1)
DECK_COUNTS = tuple(COPIES_PER_RANK[kind % 10] for kind in range(NUM_KINDS))
DECK_SIZE = sum(DECK_COUNTS)  # 80
PILE_SIZE = 20  # exactly 20 per pile (rules A25)
NUM_PILES = 4
STARTING_WAGERS_PER_COLOUR = 2

TOTAL_COINS = 36
STARTING_COINS = {2: 18, 3: 12, 4: 9}


def colour_of(kind: int) -> int:
    """The colour index 0..4 of a card kind."""
    return kind // 10


def is_wager(kind: int) -> bool:
    """True for a wager card kind."""
    return kind % 10 == WAGER_RANK


def value_of(kind: int) -> int:
    """The printed number (2..10) of a number card kind."""
    return kind % 10 + 1


def footprints(value: int) -> int:
    """Footprints on a number card: 1 on 2..5, 2 on 6..10 (this is what scores, not the value)."""
    return 1 if value <= 5 else 2


def _label(kind: int) -> str:
    colour = COLOURS[colour_of(kind)]
    return colour + ("*" if is_wager(kind) else str(value_of(kind)))


LABELS: tuple[str, ...] = tuple(_label(kind) for kind in range(NUM_KINDS))  # built once: observations need thousands


def card_label(kind: int) -> str:
    """"R7" for the red 7, "R*" for a red wager."""
    return LABELS[kind]


def parse_card(label: str) -> int:
    """The kind of a card label ("R7", "G*"); the inverse of `card_label`."""
    colour = COLOURS.index(label[0])
    rank = WAGER_RANK if label[1:] == "*" else int(label[1:]) - 1
    return 10 * colour + rank


COLOUR_WORDS = ("red", "green", "blue", "yellow", "white")  # what the log says for R G B Y W


def card_words(kind: int) -> str:
    """A card as a person reads it: "red 7", "green wager"."""
    colour = COLOUR_WORDS[colour_of(kind)]
    return f"{colour} wager" if is_wager(kind) else f"{colour} {value_of(kind)}"
