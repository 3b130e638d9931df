"""Riga's components as data tables: goods, cities, buildings, tiles (rules/riga.md §1.2 to §1.7).

Everything marked [RECON] or [OUR CHOICE] in the rules file lives here as plain data, so a
corrected card list replaces these tables without touching the state machine. The flow code
only reads the derived `CARDS` tuple and the constants at the bottom.
"""

from __future__ import annotations

from typing import Final, NamedTuple

# -- goods (§1.2) ------------------------------------------------------------------------------

# Final: the compiled engine inlines each constant where another module reads it (t.RIGA), instead of
# two dictionary lookups (the module, then its attribute) per use.
CLOTH: Final = 0
GLASS: Final = 1
WINE: Final = 2
GRAIN: Final = 3
GOODS: Final = (CLOTH, GLASS, WINE, GRAIN)
GOOD_NAMES: Final = ("cloth", "glass", "wine", "grain")
BASE_VALUE: Final = (5, 4, 3, 2)  # Grain 2 is [SRC]; the others [RECON]
DECK_COUNTS: Final = (8, 10, 12, 14)  # [SRC] 44 goods cards

# -- cities and the value table (§1.2) --------------------------------------------------------

VISBY: Final = 0
TALLINN: Final = 1
STOCKHOLM: Final = 2
DANZIG: Final = 3
RIGA: Final = 4
CITY_NAMES: Final = ("Visby", "Tallinn", "Stockholm", "Danzig", "Riga")
CITY_LETTERS = ("V", "T", "S", "D", "R")

# CITY_VALUE[city][good]; 0 = the city refuses that good. [RECON] except the Grain column.
CITY_VALUE: Final = (
    (0, 4, 5, 2),  # Visby: Cloth refused, Wine +2
    (5, 4, 0, 4),  # Tallinn: Wine refused, Grain +2 [SRC]
    (7, 0, 3, 2),  # Stockholm: Cloth +2, Glass refused
    (5, 6, 3, 0),  # Danzig: Glass +2, Grain refused [SRC]
    (5, 4, 3, 2),  # Riga: base values [OUR CHOICE]
)

# -- symbols and benefits (§1.6, §3.4) --------------------------------------------------------

NONE, KNIGHT, MERCHANT = range(3)
SYMBOL_NAMES = ("none", "knight", "merchant")

NO_BENEFIT: Final = "NONE"
FACTOR: Final = "FACTOR"  # +1 per card of the good (arg = good)
DISCOUNT: Final = "DISCOUNT"  # this city's buildings cost `arg` less
EXTRA_DRAW: Final = "EXTRA_DRAW"  # draw `arg` hidden goods after taking a row
HAND_LIMIT: Final = "HAND_LIMIT"  # winter hand limit + `arg`
EXCHANGE: Final = "EXCHANGE"  # refused goods count at base value
CREDIT: Final = "CREDIT"  # one-shot `arg` ducats


class Card(NamedTuple):
    """One building card: city buildings have ids 0..47, brown Riga buildings 48..51."""

    id: int
    code: str  # "V05", "R1"
    name: str
    city: int
    cost: int
    vp: int
    symbol: int
    benefit: str
    arg: int


# -- city building template (§1.3) [RECON] ----------------------------------------------------
# (slot name, cost, VP, symbol, benefit, arg); "good_a"/"good_b" Factor args come from FACTOR_GOODS.
CITY_TEMPLATE = (
    ("Factor A", 4, 0, NONE, FACTOR, "good_a"),
    ("Factor B", 4, 0, NONE, FACTOR, "good_b"),
    ("Builders' Guild", 5, 0, NONE, DISCOUNT, 2),
    ("Harbour Scribe", 5, 0, MERCHANT, EXTRA_DRAW, 1),
    ("Strongbox", 6, 0, KNIGHT, CREDIT, 4),
    ("Watchtower", 7, 3, KNIGHT, NO_BENEFIT, 0),
    ("Trading House", 7, 3, MERCHANT, NO_BENEFIT, 0),
    ("Town Gate", 9, 4, NONE, NO_BENEFIT, 0),
    ("Curtain Wall", 10, 4, KNIGHT, NO_BENEFIT, 0),
    ("Guildhall", 12, 5, MERCHANT, NO_BENEFIT, 0),
    ("Cathedral", 13, 5, NONE, NO_BENEFIT, 0),
    ("Town Hall", 15, 6, NONE, NO_BENEFIT, 0),
)

FACTOR_GOODS = {  # city: (good_a, good_b)
    VISBY: (GLASS, GRAIN),
    TALLINN: (CLOTH, GLASS),
    STOCKHOLM: (WINE, GRAIN),
    DANZIG: (CLOTH, WINE),
}

# -- Riga buildings (§1.4) [names SRC, stats RECON] -------------------------------------------
RIGA_TEMPLATE = (
    ("Monastery", 10, 4, NONE, NO_BENEFIT, 0),
    ("School", 6, 0, NONE, EXTRA_DRAW, 1),
    ("Warehouse", 5, 0, NONE, HAND_LIMIT, 3),
    ("Exchange Office", 6, 0, NONE, EXCHANGE, 0),
)


def _make_cards() -> tuple[Card, ...]:
    cards: list[Card] = []
    for city in (VISBY, TALLINN, STOCKHOLM, DANZIG):
        for slot, (name, cost, vp, symbol, benefit, arg) in enumerate(CITY_TEMPLATE, start=1):
            if arg == "good_a":
                arg = FACTOR_GOODS[city][0]
            elif arg == "good_b":
                arg = FACTOR_GOODS[city][1]
            code = f"{CITY_LETTERS[city]}{slot:02d}"
            full = f"{CITY_NAMES[city]} {name}"
            cards.append(Card(len(cards), code, full, city, cost, vp, symbol, benefit, int(arg)))  # type: ignore[call-overload]
    for number, (name, cost, vp, symbol, benefit, arg) in enumerate(RIGA_TEMPLATE, start=1):
        cards.append(Card(len(cards), f"R{number}", name, RIGA, cost, vp, symbol, benefit, arg))
    return tuple(cards)


CARDS: Final = _make_cards()
NUM_CITY_CARDS: Final = 48
CITY_CARD_IDS: Final = tuple(range(NUM_CITY_CARDS))
RIGA_CARD_IDS: Final = tuple(range(NUM_CITY_CARDS, len(CARDS)))
CARD_BY_CODE = {card.code: card.id for card in CARDS}
# Per card id, as plain tuples (Final: the compiled engine indexes them without reading a Card's fields).
CARD_CODES: Final = tuple(card.code for card in CARDS)
CITY_OF_CARD: Final = tuple(card.city for card in CARDS)
# The one-shot credit cards, by city (the Strongbox of each city): used as PAY_CREDIT items.
CREDIT_CARDS: Final = tuple(c.id for c in CARDS if c.benefit == CREDIT)
CREDIT_INDEX: Final = {card: i for i, card in enumerate(CREDIT_CARDS)}

# -- Grand Master tiles (§1.5) [SEED] ---------------------------------------------------------

T_RIGA: Final = 0
T_VISBY: Final = 1
T_STOCKHOLM: Final = 2
T_TALLINN: Final = 3
T_DANZIG: Final = 4
T_MONEY: Final = 5
T_KNIGHT: Final = 6
T_MERCHANT: Final = 7
TILE_NAMES: Final = ("Riga", "Visby", "Stockholm", "Tallinn", "Danzig", "Money", "Knight", "Merchant")
MAX: Final = 0
FIRST: Final = 1
P23: Final = 2
P4: Final = 3
SIDE_NAMES = ("max", "first", "p23", "p4")
# The fixed order of the Grand Master check (§3.6); MONEY is never claimed.
TILE_CHECK_ORDER: Final = (T_RIGA, T_VISBY, T_STOCKHOLM, T_TALLINN, T_DANZIG, T_KNIGHT, T_MERCHANT)
# What each claimable tile counts: ("city", city) or ("symbol", symbol).
TILE_METRIC = {
    T_RIGA: ("city", RIGA),
    T_VISBY: ("city", VISBY),
    T_STOCKHOLM: ("city", STOCKHOLM),
    T_TALLINN: ("city", TALLINN),
    T_DANZIG: ("city", DANZIG),
    T_KNIGHT: ("symbol", KNIGHT),
    T_MERCHANT: ("symbol", MERCHANT),
}
MAX_THRESHOLD: Final = {t: (2 if kind == "city" else 3) for t, (kind, _) in TILE_METRIC.items()}
FIRST_THRESHOLD: Final = {t: (3 if kind == "city" else 4) for t, (kind, _) in TILE_METRIC.items()}
TILES_IN_PLAY: Final = 4
TILES_FLIPPED: Final = 4
TILE_HOLDER_VP: Final = 4
TILE_BONUS_VP: Final = 2
MONEY_AWARDS: Final = {P23: (4, 2), P4: (6, 4, 2)}

# -- constants by player count (§1.7) ---------------------------------------------------------

YEARS: Final = {2: 8, 3: 9, 4: 8}  # [SRC]
MIN_ROW_VALUE: Final = 9  # [SRC]
START_GOODS_VALUE: Final = 6  # reveal until the base-value sum is >= 6 [SRC + OUR CHOICE]
START_BUILDING_CHOICES: Final = 2  # draw 2, keep 1 [SRC]
HAND_LIMIT_BASE: Final = 8  # [OUR CHOICE]
MAX_BUILDS_PER_TURN: Final = 3  # [SRC]
HAND_BUILDING_PENALTY: Final = 2  # VP per building card left in hand [OUR CHOICE]


def rows_per_spring(players: int) -> int:
    """Goods rows on offer each spring: players + 2 [SRC]."""
    return players + 2


def new_buildings_per_spring(players: int) -> int:
    """Buildings revealed each spring: players + 1 [OUR CHOICE]."""
    return players + 1


def money_side(players: int) -> int:
    """The Money tile's side by player count [SEED]."""
    return P4 if players == 4 else P23
