"""Riga rules arithmetic: goods values, costs, legal payments, the Grand Master check, scoring.

Pure functions on plain data (a tableau is a tuple of built card ids; `used` is a bit mask of
spent credits by CREDIT_INDEX; a goods hand is a 4-tuple of counts), so the worked examples
of rules/riga.md §6 can test them directly as well as through the state machine.

What a build turn asks many times per position (costs, values, what is buildable and payable)
reads per-card int tables (`Final`: C arrays' speed in the compiled engine) rather than caches:
large lru_caches of tableaus and hands missed often and made every full garbage collection walk
their hundred thousand entries (a quarter of a compiled playout's time). A few memoised helpers
remain where the keys are few (`_values_by_city`, `minimal_payments`) or observations ask them
(`tableau_counts`, `public_vp`): pure functions, so a cache never changes a result.
Payment items are numbered 0..7: goods 0..3 (CLOTH, GLASS, WINE, GRAIN), then the four credit
cards in CREDIT_CARDS order.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from engine.riga import components as t

CARDS: Final = t.CARDS
NUM_ITEMS: Final = 8

# Per card id, the facts the build turn's arithmetic reads (from CARDS; 0 or -1 where none).
_CITY_OF_CARD: Final = t.CITY_OF_CARD
_COST_OF_CARD: Final = tuple(card.cost for card in CARDS)
_SYMBOL_OF_CARD: Final = tuple(card.symbol for card in CARDS)
# DISCOUNT: the city's buildings cost this much less (brown cards never discount: see build_cost)
_DISCOUNT_OF_CARD: Final = tuple(card.arg if card.benefit == t.DISCOUNT else 0 for card in CARDS)
_FACTOR_GOOD_OF_CARD: Final = tuple(card.arg if card.benefit == t.FACTOR else -1 for card in CARDS)
_IS_EXCHANGE: Final = tuple(card.benefit == t.EXCHANGE for card in CARDS)
_EXTRA_DRAW_OF_CARD: Final = tuple(card.arg if card.benefit == t.EXTRA_DRAW else 0 for card in CARDS)
_HAND_LIMIT_OF_CARD: Final = tuple(card.arg if card.benefit == t.HAND_LIMIT else 0 for card in CARDS)
_CREDIT_VALUES: Final = tuple(CARDS[c].arg for c in t.CREDIT_CARDS)
_CREDIT_INDEX_OF_CARD: Final = tuple(t.CREDIT_INDEX.get(card.id, -1) for card in CARDS)


# -- what a player's tableau gives ----------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def tableau_counts(tableau: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(buildings per city incl. RIGA, cards per symbol, building VP) of a tableau."""
    cities, symbols = [0] * 5, [0] * 3
    for c in tableau:
        cities[CARDS[c].city] += 1
        symbols[CARDS[c].symbol] += 1
    return tuple(cities), tuple(symbols), sum(CARDS[c].vp for c in tableau)


def city_count(tableau: Sequence[int], city: int) -> int:
    """Built buildings of `city` (RIGA = brown buildings)."""
    return tableau_counts(tuple(tableau))[0][city]


def symbol_count(tableau: Sequence[int], symbol: int) -> int:
    """Built buildings showing `symbol` (KNIGHT or MERCHANT)."""
    return tableau_counts(tuple(tableau))[1][symbol]


def benefit_total(tableau: Sequence[int], benefit: str, arg: int | None = None) -> int:
    """Sum of the args of built `benefit` cards (only those with `arg` when given)."""
    return sum(
        CARDS[c].arg if arg is None else 1
        for c in tableau
        if CARDS[c].benefit == benefit and (arg is None or CARDS[c].arg == arg)
    )


def has_exchange(tableau: Sequence[int]) -> bool:
    return any(CARDS[c].benefit == t.EXCHANGE for c in tableau)


def hand_limit(tableau: Sequence[int]) -> int:
    """Winter hand limit: 8 + 3 per Warehouse (§2.5)."""
    limit = t.HAND_LIMIT_BASE  # + benefit_total(tableau, t.HAND_LIMIT), as an int loop
    for c in tableau:
        limit += _HAND_LIMIT_OF_CARD[c]
    return limit


def extra_draws(tableau: Sequence[int]) -> int:
    """Hidden goods drawn after taking a row (sum of EXTRA_DRAW benefits)."""
    draws = 0  # benefit_total(tableau, t.EXTRA_DRAW), as an int loop
    for c in tableau:
        draws += _EXTRA_DRAW_OF_CARD[c]
    return draws


def good_value(tableau: Sequence[int], good: int, city: int) -> int:
    """§3.1: what one `good` card is worth to this player when paying for a `city` building."""
    value = t.CITY_VALUE[city][good]
    if value == 0:
        if not has_exchange(tableau):
            return 0
        value = t.BASE_VALUE[good]
    return value + benefit_total(tableau, t.FACTOR, good)


def build_cost(tableau: Sequence[int], card: int) -> int:
    """§3.2: printed cost minus this city's DISCOUNT buildings (never for brown cards)."""
    city = _CITY_OF_CARD[card]
    cost = _COST_OF_CARD[card]
    if city != t.RIGA:
        for c in tableau:
            if _CITY_OF_CARD[c] == city:
                cost -= _DISCOUNT_OF_CARD[c]
    return max(0, cost)


def unused_credits(tableau: Sequence[int], used: int) -> list[int]:
    """Credit indexes (into CREDIT_CARDS) of built, unused CREDIT cards."""
    return [t.CREDIT_INDEX[c] for c in tableau if c in t.CREDIT_INDEX and not used >> t.CREDIT_INDEX[c] & 1]


@lru_cache(maxsize=1 << 16)
def item_values(tableau: tuple[int, ...], city: int) -> tuple[int, ...]:
    """Value of each payment item for a `city` building: 4 goods, then the 4 credit cards."""
    goods = tuple(good_value(tableau, g, city) for g in t.GOODS)
    return goods + tuple(CARDS[c].arg for c in t.CREDIT_CARDS)


def available_items(hand_goods: tuple[int, ...], tableau: tuple[int, ...], used: int) -> tuple[int, ...]:
    """How many of each payment item the player could offer (credits: 0 or 1)."""
    credits = [0, 0, 0, 0]  # 1 for each built credit card not used yet (`unused_credits`)
    for c in tableau:
        index = _CREDIT_INDEX_OF_CARD[c]
        if index >= 0 and not used >> index & 1:
            credits[index] = 1
    return tuple(hand_goods) + tuple(credits)


# -- what a player can build and pay now (the legal actions of a build turn) -----------------


def build_facts(tableau: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """(`item_values` for each city 0..4, the DISCOUNT per city) of one tableau, in one pass.

    The same arithmetic as `good_value` and `build_cost`, made once per call for every card and
    city, from the per-card tables.
    """
    exchange, factor, discount = False, [0, 0, 0, 0], [0, 0, 0, 0, 0]
    for c in tableau:
        if _IS_EXCHANGE[c]:
            exchange = True
        good = _FACTOR_GOOD_OF_CARD[c]
        if good >= 0:
            factor[good] += 1
        city = _CITY_OF_CARD[c]
        if city != t.RIGA:
            discount[city] += _DISCOUNT_OF_CARD[c]
    return _values_by_city(exchange, tuple(factor)), tuple(discount)


@lru_cache(maxsize=1 << 10)
def _values_by_city(exchange: bool, factor: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """`item_values` for each city, from what they depend on: an Exchange Office, Factors per good."""
    return tuple(
        tuple(_good_value(t.CITY_VALUE[city][g], g, exchange, factor[g]) for g in t.GOODS) + _CREDIT_VALUES
        for city in range(len(t.CITY_NAMES))
    )


def _good_value(printed: int, good: int, exchange: bool, factor: int) -> int:
    if printed == 0:  # refused: worth nothing, unless the Exchange Office makes it base value
        return t.BASE_VALUE[good] + factor if exchange else 0
    return printed + factor


def cost_with(card: int, discounts: Sequence[int]) -> int:
    """`build_cost` of `card` from a tableau's discounts per city (see `build_facts`)."""
    return max(0, _COST_OF_CARD[card] - discounts[_CITY_OF_CARD[card]])




def dot(values: tuple[int, ...], counts: tuple[int, ...]) -> int:
    """sum(map(mul, values, counts)) as an int loop: the compiled engine runs it natively, where
    map and sum are calls into the interpreter per item."""
    total = 0
    for i in range(min(len(values), len(counts))):
        total += values[i] * counts[i]
    return total


def buildable(hand_goods: tuple[int, ...], tableau: tuple[int, ...], used: int, cards: tuple[int, ...]) -> list[int]:
    """The `cards` (hand buildings, own Riga buildings) this player can pay for now: `can_pay`
    per card, with each city's budget (the value of everything usable) counted once."""
    values_by_city, discounts = build_facts(tableau)
    avail = available_items(hand_goods, tableau, used)
    # dot(values, avail) per city (no value is below 0): the credits (items 4..7) are worth the
    # same in every city, so they are counted once and the goods per city.
    credit = 0
    for i in range(4, NUM_ITEMS):
        credit += _CREDIT_VALUES[i - 4] * avail[i]
    budgets = []
    for values in values_by_city:
        budget = credit
        for g in range(4):
            budget += values[g] * avail[g]
        budgets.append(budget)
    # `cost_with` inlined: a budget is never below 0, so the cost's floor at 0 changes nothing here.
    city, cost = _CITY_OF_CARD, _COST_OF_CARD
    return [card for card in cards if budgets[city[card]] >= cost[card] - discounts[city[card]]]


def payable(values: tuple[int, ...], avail: tuple[int, ...], paid: tuple[int, ...], cost: int) -> tuple[int, ...]:
    """The payment items (0..7) that may be paid next after `paid`: each keeps the payment inside
    some legal (sufficient, minimal) one (§3.3). `avail` counts what the player has in all.

    The legal payments are listed once per build (the hand does not change while it is paid;
    the state carries those that still extend what is paid: `state.BuildPayments`)."""
    return next_items(extending(minimal_payments(values, avail, cost), paid), paid)


def extending(payments: tuple[tuple[int, ...], ...], paid: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The `payments` that hold at least `paid` of every item (int loops)."""
    kept = []
    for payment in payments:
        extends = True
        for i in range(NUM_ITEMS):
            if payment[i] < paid[i]:
                extends = False
                break
        if extends:
            kept.append(payment)
    return tuple(kept)


def still_extending(payments: tuple[tuple[int, ...], ...], item: int, count: int) -> tuple[tuple[int, ...], ...]:
    """`extending` after one more `item` is paid, now `count` of it, from the `payments` that
    extended the payment before it (their other items hold already)."""
    return tuple([payment for payment in payments if payment[item] >= count])


def next_items(payments: tuple[tuple[int, ...], ...], paid: tuple[int, ...]) -> tuple[int, ...]:
    """The items that some of `payments` (each extending `paid`) holds more of than `paid`,
    in order: collected as bits of an int by int loops."""
    items = 0
    for payment in payments:
        for i in range(NUM_ITEMS):
            if payment[i] > paid[i]:
                items |= 1 << i
    return tuple([i for i in range(NUM_ITEMS) if items >> i & 1])


# -- legal payments (§3.3) ------------------------------------------------------------------


def can_pay(values: Sequence[int], avail: Sequence[int], cost: int) -> bool:
    """Some legal payment exists: offering everything usable reaches the cost."""
    return sum(v * a for v, a in zip(values, avail) if v > 0) >= cost


@lru_cache(maxsize=1 << 14)
def minimal_payments(values: tuple[int, ...], avail: tuple[int, ...], cost: int) -> tuple[tuple[int, ...], ...]:
    """Every legal payment from `avail` (what `legal_payments` lists), found by a walk that stops
    adding items once the cost is reached: past that point any addition is not minimal."""
    usable = [(i, values[i], avail[i]) for i in range(NUM_ITEMS) if values[i] > 0 and avail[i] > 0]
    found: list[tuple[int, ...]] = []
    counts = [0] * NUM_ITEMS  # the payment being built: items before `usable[j]` are chosen

    def walk(j: int, total: int, low: int) -> None:
        if total >= cost:
            if total - low < cost:  # minimal; the empty payment only for a cost of 0
                found.append(tuple(counts))
            return
        if j == len(usable):
            return
        walk(j + 1, total, low)
        item, value, top = usable[j]
        for k in range(1, top + 1):
            counts[item] = k
            walk(j + 1, total + k * value, min(low, value))
            if total + k * value >= cost:
                break  # more copies only overshoot further
        counts[item] = 0

    walk(0, 0, 10**9)
    return tuple(found)


def legal_payments(values: Sequence[int], avail: Sequence[int], cost: int) -> list[tuple[int, ...]]:
    """Every legal payment as an 8-tuple of item counts (used by tests and documentation)."""
    found: list[tuple[int, ...]] = []

    def walk(i: int, paid: list[int]) -> None:
        if i == NUM_ITEMS:
            if is_legal_payment(values, paid, cost):
                found.append(tuple(paid))
            return
        top = avail[i] if values[i] > 0 else 0
        for k in range(top + 1):
            walk(i + 1, paid[:i] + [k] + paid[i + 1 :])

    walk(0, [0] * NUM_ITEMS)
    return found


def is_legal_payment(values: Sequence[int], paid: Sequence[int], cost: int) -> bool:
    """Usable items only, total >= cost, and minimal (§3.3)."""
    if any(p and values[i] <= 0 for i, p in enumerate(paid)):
        return False
    total = sum(v * p for v, p in zip(values, paid))
    if not any(paid):
        return cost == 0
    low = min(values[i] for i, p in enumerate(paid) if p)
    return total >= cost and total - low < cost


# -- the Grand Master check (§3.6) ----------------------------------------------------------


def metric(tile: int, tableau: Sequence[int]) -> int:
    """What `tile` counts for a player (§1.5): `tableau_counts(tableau)[part][which]`, counted
    here from the per-card tables (the Grand Master check asks it after every build)."""
    facts = _CITY_OF_CARD if _METRIC_BY_CITY[tile] else _SYMBOL_OF_CARD
    which = _METRIC_WHICH[tile]
    count = 0
    for c in tableau:
        if facts[c] == which:
            count += 1
    return count


# Per tile id (T_MONEY, which counts nothing here: False and -1), what it counts: a city's
# buildings (True) or a symbol's, and which one; and its thresholds (t.FIRST_THRESHOLD and
# t.MAX_THRESHOLD), as tuples: the Grand Master check asks them after every build.
_METRIC_BY_CITY: Final = tuple(t.TILE_METRIC.get(tile, ("", -1))[0] == "city" for tile in range(len(t.TILE_NAMES)))
_METRIC_WHICH: Final = tuple(t.TILE_METRIC.get(tile, ("", -1))[1] for tile in range(len(t.TILE_NAMES)))
_FIRST_AT: Final = tuple(t.FIRST_THRESHOLD.get(tile, 0) for tile in range(len(t.TILE_NAMES)))
_MAX_AT: Final = tuple(t.MAX_THRESHOLD.get(tile, 0) for tile in range(len(t.TILE_NAMES)))


def gm_check(
    tiles: tuple[tuple[int, int, int], ...], builder: int, tableaus: Sequence[Sequence[int]]
) -> tuple[tuple[tuple[int, int, int], ...], list[tuple[int, int]]]:
    """Claims for `builder` after one build: (new tiles, [(tile, previous holder), ...]).

    Tiles are (tile, side, holder) with holder -1 for the supply, kept in check order.
    """
    claims: list[tuple[int, int]] = []
    new_tiles = []
    for tile, side, holder in tiles:
        if tile != t.T_MONEY and _claims(tile, side, holder, builder, tableaus):
            claims.append((tile, holder))
            holder = builder
        new_tiles.append((tile, side, holder))
    return tuple(new_tiles), claims


def _claims(tile: int, side: int, holder: int, builder: int, tableaus: Sequence[Sequence[int]]) -> bool:
    count = metric(tile, tableaus[builder])
    if side == t.FIRST:
        return holder < 0 and count >= _FIRST_AT[tile]
    if holder < 0:
        return count >= _MAX_AT[tile]
    # a steal needs strictly more than the current holder; a tie stays
    return holder != builder and count > metric(tile, tableaus[holder])


# -- end scoring (§4) -----------------------------------------------------------------------


def base_vp(tableau: Sequence[int], buildings_in_hand: int) -> int:
    """§4.1: VP of built cards minus 2 per building card left in hand."""
    return tableau_counts(tuple(tableau))[2] - t.HAND_BUILDING_PENALTY * buildings_in_hand


@lru_cache(maxsize=1 << 14)
def public_vp(
    tableaus: tuple[tuple[int, ...], ...], tiles: tuple[tuple[int, int, int], ...], buildings_in_hand: tuple[int, ...]
) -> tuple[int, ...]:
    """Each seat's base VP plus Grand Master tile VP: what everyone can count during the game.
    Memoised: every observation shows it, and only a build, a claim or a hand card changes it."""
    tile_vp = grand_master_vp(tiles, tableaus)
    return tuple(base_vp(tableau, n) + vp for tableau, n, vp in zip(tableaus, buildings_in_hand, tile_vp))


def money(hand_goods: Sequence[int], tableau: Sequence[int], used: int) -> int:
    """§4.3: base value of the goods in hand plus unused credits."""
    goods = sum(t.BASE_VALUE[g] * n for g, n in enumerate(hand_goods))
    return goods + sum(CARDS[t.CREDIT_CARDS[i]].arg for i in unused_credits(tableau, used))


def grand_master_vp(tiles: Sequence[tuple[int, int, int]], tableaus: Sequence[Sequence[int]]) -> list[int]:
    """§4.2: +4 per tile held, +2 for meeting the condition of a tile someone else holds."""
    vp = [0] * len(tableaus)
    for tile, side, holder in tiles:
        if tile == t.T_MONEY or holder < 0:
            continue
        vp[holder] += t.TILE_HOLDER_VP
        counts = [metric(tile, tableau) for tableau in tableaus]
        for p in range(len(counts)):
            if p != holder and _earns_bonus(side, tile, p, holder, counts):
                vp[p] += t.TILE_BONUS_VP
    return vp


def _earns_bonus(side: int, tile: int, p: int, holder: int, counts: Sequence[int]) -> bool:
    if side == t.FIRST:
        return counts[p] >= t.FIRST_THRESHOLD[tile]
    if counts[p] < t.MAX_THRESHOLD[tile]:
        return False
    return not any(counts[q] > counts[p] for q in range(len(counts)) if q not in (p, holder))


def money_tile_vp(moneys: Sequence[int], awards: Sequence[int]) -> list[int]:
    """§4.3: rank by money; tied groups share the sum of their positions' awards, rounded down;
    a player with no money scores nothing."""
    vp = [0] * len(moneys)
    for p, amount in enumerate(moneys):
        if amount <= 0:
            continue
        first = sum(other > amount for other in moneys)
        group = sum(other == amount for other in moneys)
        pool = sum(awards[k] for k in range(first, first + group) if k < len(awards))
        vp[p] = pool // group
    return vp


def row_value(row: tuple[int, ...]) -> int:
    """Base value of a goods row (an int loop: asked at every spring goods draw)."""
    value = 0
    for good in row:
        value += t.BASE_VALUE[good]
    return value
