"""Riga: payments (rules/riga.md §6 E1 to E3): refused goods, minimal payments, discounts and
credits, what is payable and buildable (helpers.py: how positions are reached).
"""

from __future__ import annotations

import random

from engine.riga import actions as a
from engine.riga import components as t
from engine.riga import queries
from engine.riga import scoring as sc
from tests.engine.riga.helpers import (
    CLOTH,
    GLASS,
    GRAIN,
    WINE,
    A,
    B,
    act,
    build,
    build_position,
    card,
    goods,
    payments,
    reference,
    set_up,
    spring,
)

# -- E1 ---------------------------------------------------------------------------------------


def test_e1_refused_goods_and_minimal_payments_in_danzig() -> None:
    # A starts with Grain, Glass and keeps D08; takes the row [Wine, Cloth, Grain].
    state = set_up(2, start_goods={A: [GRAIN, GLASS]}, start_buildings={A: ("D08", "D01")})
    state = spring(state, [[WINE, CLOTH, GRAIN], [GLASS, GLASS, GLASS]] + [[CLOTH, CLOTH]] * 2,
                   ["V01", "V02", "V03"])
    state = act(state, a.TAKE_ROW + 0)
    assert state.hgoods[A] == goods(GRAIN, GRAIN, GLASS, WINE, CLOTH)
    assert a.START_BUILD + card("D08") in state.legal_actions(A)
    assert payments(state, "D08") == {(("glass", "wine"), ()), (("cloth", "glass"), ())}
    started = act(state, a.START_BUILD + card("D08"))
    assert a.PAY_GOOD + GRAIN not in started.legal_actions(A)  # Danzig refuses Grain
    after_cloth = act(started, a.PAY_GOOD + CLOTH)
    assert after_cloth.legal_actions(A) == [a.PAY_GOOD + GLASS]  # Cloth+Wine = 8 is too little


def test_e1_payment_rules_directly() -> None:
    values = sc.item_values((), t.DANZIG)
    avail = list(goods(GRAIN, GRAIN, GLASS, WINE, CLOTH)) + [0] * 4
    found = sc.legal_payments(values, avail, 9)
    assert sorted(found) == sorted([(0, 1, 1, 0, 0, 0, 0, 0), (1, 1, 0, 0, 0, 0, 0, 0)])
    assert not sc.is_legal_payment(values, (1, 0, 1, 0, 0, 0, 0, 0), 9)  # 8: too little
    assert not sc.is_legal_payment(values, (1, 1, 1, 0, 0, 0, 0, 0), 9)  # 14: not minimal
    assert not sc.is_legal_payment(values, (0, 1, 1, 1, 0, 0, 0, 0), 9)  # Grain refused


def test_minimal_payments_are_the_legal_payments() -> None:
    rng = random.Random(6)
    for _ in range(300):
        values = tuple(rng.choice((0, 2, 3, 4, 5, 6, 7)) for _ in range(4)) + (4, 4, 4, 4)
        avail = tuple(rng.randint(0, 4) for _ in range(4)) + tuple(rng.randint(0, 1) for _ in range(4))
        cost = rng.randint(0, 15)
        assert sorted(sc.minimal_payments(values, avail, cost)) == sorted(sc.legal_payments(values, avail, cost))


def test_payable_items_are_those_some_legal_payment_still_holds() -> None:
    # The memoised PAY check (capped counts) against every legal payment, listed by brute force.
    rng = random.Random(7)
    for _ in range(300):
        values = tuple(rng.choice((0, 2, 3, 4, 5, 6, 7)) for _ in range(4)) + (4, 4, 4, 4)
        avail = tuple(rng.randint(0, 5) for _ in range(4)) + tuple(rng.randint(0, 1) for _ in range(4))
        cost = rng.randint(1, 15)
        legal = sc.legal_payments(values, avail, cost)
        prefixes = {tuple(min(q, k) for q, k in zip(pay, cut)) for pay in legal
                    for cut in [tuple(rng.randint(0, 3) for _ in range(8)) for _ in range(3)]}
        for paid in prefixes | {(0,) * 8}:
            expected = tuple(i for i in range(8) if any(
                all(q >= p + (j == i) for j, (q, p) in enumerate(zip(pay, paid))) for pay in legal))
            assert sc.payable(values, avail, paid, cost) == expected, (values, avail, paid, cost)


def test_build_facts_give_the_values_and_costs_of_good_value_and_build_cost() -> None:
    rng = random.Random(9)
    for _ in range(300):
        tableau = tuple(sorted(rng.sample(range(len(t.CARDS)), rng.randint(0, 12))))
        values, discounts = sc.build_facts(tableau)
        assert values == tuple(sc.item_values(tableau, city) for city in range(5)), tableau
        assert [sc.cost_with(c, discounts) for c in range(len(t.CARDS))] == [
            sc.build_cost(tableau, c) for c in range(len(t.CARDS))], tableau


def test_buildable_cards_are_those_with_a_legal_payment() -> None:
    rng = random.Random(8)
    for _ in range(200):
        tableau = tuple(sorted(rng.sample(range(len(t.CARDS)), rng.randint(0, 8))))
        hand, used = tuple(rng.randint(0, 4) for _ in range(4)), rng.randint(0, 15)
        cards = tuple(sorted(rng.sample(range(len(t.CARDS)), 6)))
        avail = sc.available_items(hand, tableau, used)
        expected = [c for c in cards if sc.legal_payments(
            sc.item_values(tableau, t.CARDS[c].city), avail, sc.build_cost(tableau, c))]
        assert sc.buildable(hand, tableau, used, cards) == expected, (tableau, hand, used, cards)


# -- E2 ---------------------------------------------------------------------------------------


def test_e2_exchange_office_and_factor_in_stockholm() -> None:
    hand = goods(GLASS, WINE, GRAIN)
    state = build_position({A: ("V01", "R4")}, hand, ("S09",))
    assert sc.good_value(state.tableau[A], GLASS, t.STOCKHOLM) == 5
    assert payments(state, "S09") == {(("glass", "grain", "wine"), ())}
    without = build_position({A: ("V01",)}, hand, ("S09",))
    assert sc.good_value(without.tableau[A], GLASS, t.STOCKHOLM) == 0
    assert a.START_BUILD + card("S09") not in without.legal_actions(A)


# -- E3 ---------------------------------------------------------------------------------------


def test_e3_discount_credit_and_minimality() -> None:
    state = build_position({A: ("D03", "T05")}, goods(GLASS, GLASS, WINE), ("D12",))
    assert sc.build_cost(state.tableau[A], card("D12")) == 13
    assert payments(state, "D12") == {
        (("glass", "wine"), ("T05",)),
        (("glass", "glass"), ("T05",)),
        (("glass", "glass", "wine"), ()),
    }
    assert queries.money(reference(state), A) == 4 + 4 + 4 + 3  # goods at base value plus the unused credit
    credit = a.PAY_CREDIT + t.CREDIT_INDEX[card("T05")]
    done = build(state, "D12", credit, GLASS, WINE)
    assert done.used[A] == 1 << t.CREDIT_INDEX[card("T05")]
    assert card("D12") in done.tableau[A]
    assert queries.money(reference(done), A) == 4  # one Glass left; the used credit is no longer money
    assert done.observation(B)["players"][A]["credits_used"] == ["T05"]
