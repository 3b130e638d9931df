"""Riviera's components as data: colours, cards, stars, dice, seats (rules §0, §1.2).

A card id is `colour * 12 + value - 1` (0..59), so `R1` = 0, `R12` = 11, `G1` = 12, `O12` = 59.
A die index is the colour (0..4) for a coloured die and GOLD (5) for the golden die.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

# Final: the compiled engine inlines these constants (or reads them as C statics) where a module
# reads them, instead of a dictionary lookup of a module global per use.
COLOURS: Final = ("R", "G", "P", "B", "O")  # red, green, purple, blue, orange (labels only, §0)
COLOUR_NAMES: Final = ("red", "green", "purple", "blue", "orange")
NUM_COLOURS: Final = 5
VALUES: Final = 12
NUM_CARDS: Final = NUM_COLOURS * VALUES
GOLD: Final = 5  # die index of the golden die
DIE_NAMES: Final = COLOURS + ("Au",)
DIE_LONG_NAMES: Final = tuple(f"{name} die" for name in COLOUR_NAMES) + ("golden die",)
HAND_SIZE: Final = 10

# Stars per card value 1..12 (§1.2); index = value - 1.
STARS_BY_VALUE: Final = (2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 3, 5)
STARS: Final = tuple(STARS_BY_VALUE[card % VALUES] for card in range(NUM_CARDS))

MAX_SEATS: Final = 6


def card_id(colour: int, value: int) -> int:
    """The id of the card of `colour` (0..4) and `value` (1..12)."""
    return colour * VALUES + value - 1


def colour_of(card: int) -> int:
    return card // VALUES


def value_of(card: int) -> int:
    return card % VALUES + 1


def card_name(card: int) -> str:
    """`R7`, `O12`, ..."""
    return f"{COLOURS[card // VALUES]}{card % VALUES + 1}"


def parse_card(name: str) -> int:
    """The id of a card written like `R7` (inverse of card_name)."""
    return card_id(COLOURS.index(name[0]), int(name[1:]))


def turned(value: int, delta: int) -> int:
    """A die face turned by ±1: 6 goes up to 1, 1 goes down to 6 (§4.3)."""
    return (value - 1 + delta) % 6 + 1


def card_words(card: int) -> str:
    """A card as a person reads it: `red 7`, `orange 12`."""
    return f"{COLOUR_NAMES[card // VALUES]} {card % VALUES + 1}"


def bits(mask: int) -> list[int]:
    """The set bit positions of `mask`, ascending (seats, cards or dice)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(items: Iterable[int]) -> int:
    mask = 0
    for item in items:
        mask |= 1 << item
    return mask
