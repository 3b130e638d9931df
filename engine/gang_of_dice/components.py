"""The dice, the 18 warning cards and the round table of Gang of Dice, kept as data (rules §1, §4.3).

A card is one row of `CARD_TABLE`: id, art (what is printed), colour, back, predicate name and
parameter. Correcting a card (its colour, its combination, which pile its back puts it in) means
editing its row; the game flow only calls `triggered(card, faces)`.

Faces are held as counts: `faces[v]` for v in 1..5 is the number of dice showing v, and
`faces[0]` is the number of dice showing the gangster face G. G scores 0, is not a number, is
neither odd nor even and equals nothing (not even another G), so no predicate below counts it,
except DISTINCT_AT_LEAST under the non-default flag `g_counts_as_distinct` (rules §6 A5).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.core import mypyc_attr

G: Final = 0  # face code of the gangster face; faces 1..5 are coded by their value
FACES = (1, 2, 3, 4, 5, G)  # the six faces, in the order the re-roll choice walks them
YELLOW, BLACK = "yellow", "black"  # yellow = Explosive (every roll), black = Bomb (final faces)
BRIGHT, DARK = "bright", "dark"  # card backs of the physical two-pile deck (rules §1.3, OUR CHOICE)

# id, art, colour, back, predicate, parameter  (rules §4.3; colours and duplicates partly OUR CHOICE)
CARD_TABLE: tuple[tuple[str, str, str, str, str, Any], ...] = (
    ("W01", "7+", BLACK, BRIGHT, "SUM_AT_LEAST", 7),
    ("W02", "10+", BLACK, BRIGHT, "SUM_AT_LEAST", 10),
    ("W03", "11+", BLACK, BRIGHT, "SUM_AT_LEAST", 11),
    ("W04", "X X+1", BLACK, BRIGHT, "RUN", 2),
    ("W05", "X X+1 X+2", BLACK, BRIGHT, "RUN", 3),
    ("W06", "1 3 5", BLACK, BRIGHT, "ODD_AT_LEAST", 1),
    ("W07", "1 3 5 x2", BLACK, BRIGHT, "ODD_AT_LEAST", 2),
    ("W08", "X != X", BLACK, BRIGHT, "DISTINCT_AT_LEAST", 2),
    ("W09", "X != X != X", BLACK, BRIGHT, "DISTINCT_AT_LEAST", 3),
    ("W10", "X = X", BLACK, BRIGHT, "SAME_AT_LEAST", 2),
    ("W11", "4 5", BLACK, BRIGHT, "ANY_OF", (4, 5)),
    ("W12", "3 4 5", BLACK, BRIGHT, "ANY_OF", (3, 4, 5)),
    ("W13", "10+", YELLOW, DARK, "SUM_AT_LEAST", 10),
    ("W14", "13+", YELLOW, DARK, "SUM_AT_LEAST", 13),
    ("W15", "1 3 5 x3", YELLOW, DARK, "ODD_AT_LEAST", 3),
    ("W16", "X = X", YELLOW, DARK, "SAME_AT_LEAST", 2),
    ("W17", "5 5", YELLOW, DARK, "VALUE_AT_LEAST", (5, 2)),
    ("W18", "1", YELLOW, DARK, "ANY_OF", (1,)),
)


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class Card:
    """One warning card; `number` (1..18) is its chance outcome when it is revealed."""

    number: int
    id: str
    art: str
    colour: str
    back: str
    predicate: str
    param: Any

    def as_json(self) -> dict[str, Any]:
        """The card as observation data (lists instead of tuples)."""
        param = list(self.param) if isinstance(self.param, tuple) else self.param
        return {"id": self.id, "art": self.art, "colour": self.colour,
                "predicate": self.predicate, "param": param}


Faces = Sequence[int]  # counts indexed by face code: [G, ones, twos, threes, fours, fives]


def score(faces: Faces) -> int:
    """Sum of the numeric faces; G adds 0."""
    return faces[1] + 2 * faces[2] + 3 * faces[3] + 4 * faces[4] + 5 * faces[5]


def _sum_at_least(faces: Faces, k: int, g_distinct: bool) -> bool:
    return score(faces) >= k


def _run(faces: Faces, k: int, g_distinct: bool) -> bool:
    # No wrap-around (5 is not next to 1) and G is next to nothing (rules §6 A9).
    return any(all(faces[v + i] for i in range(k)) for v in range(1, 7 - k))


def _odd_at_least(faces: Faces, k: int, g_distinct: bool) -> bool:
    # Counts dice, not distinct values: [1, 1] has two odd values (rules §6 A6).
    return faces[1] + faces[3] + faces[5] >= k


def _distinct_at_least(faces: Faces, k: int, g_distinct: bool) -> bool:
    values = sum(1 for v in range(1, 6) if faces[v])
    return values + (faces[G] if g_distinct else 0) >= k


def _same_at_least(faces: Faces, k: int, g_distinct: bool) -> bool:
    return max(faces[1:6]) >= k  # G, G is not a pair


def _value_at_least(faces: Faces, param: tuple[int, int], g_distinct: bool) -> bool:
    value, count = param
    return faces[value] >= count


def _any_of(faces: Faces, values: tuple[int, ...], g_distinct: bool) -> bool:
    return any(faces[v] for v in values)


PREDICATES: dict[str, Callable[[Faces, Any, bool], bool]] = {
    "SUM_AT_LEAST": _sum_at_least,
    "RUN": _run,
    "ODD_AT_LEAST": _odd_at_least,
    "DISTINCT_AT_LEAST": _distinct_at_least,
    "SAME_AT_LEAST": _same_at_least,
    "VALUE_AT_LEAST": _value_at_least,
    "ANY_OF": _any_of,
}

CARDS: tuple[Card, ...] = tuple(Card(i + 1, *row) for i, row in enumerate(CARD_TABLE))
CARD_BY_ID: dict[str, Card] = {card.id: card for card in CARDS}


def triggered(card: Card, faces: Faces, g_distinct: bool = False) -> bool:
    """Whether `faces` (counts by face code) sets off `card`; G never helps unless `g_distinct`."""
    return PREDICATES[card.predicate](faces, card.param, g_distinct)


def counts(dice: Sequence[int]) -> tuple[int, ...]:
    """Face counts of a list of dice given by face code (0 = G): [5, 5, 0] -> (1, 0, 0, 0, 0, 2)."""
    result = [0] * 6
    for face in dice:
        result[face] += 1
    return tuple(result)


NO_FACES: Final = (0, 0, 0, 0, 0, 0)  # face counts of no dice

# -- rounds and the deck's piles (rules §1.3, §2) ---------------------------------------------

ROUNDS = 12
BONUS = {10: 3, 11: 6, 12: 9}  # bonus dice added to the pot at the start of these rounds
REMOVED_PER_PILE = 3  # physical deck: 3 unseen cards leave each pile (rules §1.3)
BRIGHT_CARDS = tuple(card.number for card in CARDS if card.back == BRIGHT)
DARK_CARDS = tuple(card.number for card in CARDS if card.back == DARK)
# two_deck: the bright pile sits on top, so its cards are the first rounds.
BRIGHT_ROUNDS = len(BRIGHT_CARDS) - REMOVED_PER_PILE
assert BRIGHT_ROUNDS + len(DARK_CARDS) - REMOVED_PER_PILE == ROUNDS, "the two piles must make 12 rounds"
