"""Riga: the build turn's arithmetic, which reads per-card tables (scoring.py), against the card
data's definitions (rules/riga.md §3: values, costs, discounts, credits, legal payments) on
seeded random tableaus and hands. Each reference below reads `components.CARDS` directly.
"""

from __future__ import annotations

import random

from engine.riga import components as t
from engine.riga import scoring as sc

ALL_CARDS = tuple(range(len(t.CARDS)))


def random_tableaus(count: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(sorted(rng.sample(ALL_CARDS, rng.randint(0, 14)))) for _ in range(count)]


def args_of(tableau: tuple[int, ...], benefit: str) -> list[int]:
    return [t.CARDS[c].arg for c in tableau if t.CARDS[c].benefit == benefit]


def test_costs_limits_draws_and_tile_counts_follow_the_cards() -> None:
    for tableau in random_tableaus(400, seed=1):
        for card in ALL_CARDS:
            printed, city = t.CARDS[card].cost, t.CARDS[card].city
            discount = 0 if city == t.RIGA else sum(
                t.CARDS[c].arg for c in tableau if t.CARDS[c].benefit == t.DISCOUNT and t.CARDS[c].city == city)
            assert sc.build_cost(tableau, card) == max(0, printed - discount)
        assert sc.hand_limit(tableau) == t.HAND_LIMIT_BASE + sum(args_of(tableau, t.HAND_LIMIT))
        assert sc.extra_draws(tableau) == sum(args_of(tableau, t.EXTRA_DRAW))
        for tile, (kind, which) in t.TILE_METRIC.items():
            field = "city" if kind == "city" else "symbol"
            assert sc.metric(tile, tableau) == sum(getattr(t.CARDS[c], field) == which for c in tableau)


def test_build_facts_and_available_items_follow_the_cards() -> None:
    rng = random.Random(2)
    for tableau in random_tableaus(400, seed=2):
        values_by_city, discounts = sc.build_facts(tableau)
        assert values_by_city == tuple(sc.item_values(tableau, city) for city in range(len(t.CITY_NAMES)))
        for card in ALL_CARDS:
            assert sc.cost_with(card, discounts) == sc.build_cost(tableau, card)
        hand, used = tuple(rng.randint(0, 4) for _ in t.GOODS), rng.randrange(16)
        unused = sc.unused_credits(tableau, used)
        assert sc.available_items(hand, tableau, used) == hand + tuple(int(i in unused) for i in range(4))


def test_payable_items_are_those_of_the_legal_payments_that_extend_what_is_paid() -> None:
    rng = random.Random(3)
    for tableau in random_tableaus(150, seed=3):
        hand, used = tuple(rng.randint(0, 3) for _ in t.GOODS), rng.randrange(16)
        avail = sc.available_items(hand, tableau, used)
        card = rng.choice(ALL_CARDS)
        values = sc.item_values(tableau, t.CARDS[card].city)
        cost = sc.build_cost(tableau, card)
        legal = sc.legal_payments(values, avail, cost)  # the brute-force list of §3.3
        paid = tuple(rng.randint(0, n) // 2 for n in avail)
        extending = [p for p in legal if all(x >= y for x, y in zip(p, paid))]
        expected = tuple(sorted({i for p in extending for i in range(sc.NUM_ITEMS) if p[i] > paid[i]}))
        assert sc.payable(values, avail, paid, cost) == expected
        assert sc.payable(values, avail, (0,) * sc.NUM_ITEMS, cost) == tuple(
            sorted({i for p in legal for i in range(sc.NUM_ITEMS) if p[i]}))


def test_row_value_is_the_base_value_of_its_goods() -> None:
    rng = random.Random(4)
    for _ in range(200):
        row = tuple(rng.randrange(4) for _ in range(rng.randint(0, 6)))
        assert sc.row_value(row) == sum(t.BASE_VALUE[g] for g in row)
