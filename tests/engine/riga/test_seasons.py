"""Riga: the year's flow (rules/riga.md §6 E4, E5, E10, E13, E14): spring dealing, the order of the
seasons, the winter hand limit, thin markets, mid-turn claims and the build cap.
"""

from __future__ import annotations

import random

import pytest

from engine.core import IllegalActionError, NodeKind, sample_chance
from engine.riga import Riga, queries
from engine.riga import actions as a
from engine.riga import components as t
from engine.riga import scoring as sc
from engine.riga.phases import BUILD, DISCARD, TAKE
from tests.engine.riga.helpers import (
    CLOTH,
    E4_DECK,
    GLASS,
    GRAIN,
    WINE,
    A,
    B,
    C,
    act,
    build,
    card,
    chance,
    deal_any_rows,
    holder,
    passive_turn,
    placed,
    play_until_chance,
    reference,
    set_up,
    spring,
    summer_turn_position,
    turn,
)


def test_e4_spring_dealing_three_players() -> None:
    state = set_up(3)
    deck_before = sum(state.gdeck)
    state = chance(state, *E4_DECK)
    names = [[t.GOOD_NAMES[g] for g in row] for row in state.rows]
    assert names == [
        ["grain", "wine", "grain", "cloth"],
        ["glass", "glass", "grain"],
        ["cloth", "wine", "wine"],
        ["wine", "grain", "grain", "glass"],
        ["cloth", "glass"],
    ]
    assert [sum(t.BASE_VALUE[g] for g in row) for row in state.rows] == [12, 10, 11, 11, 9]
    assert sum(state.gdeck) == deck_before - 16  # the next cards (Wine, Cloth) stay in the deck
    year1 = ["V01", "V02", "V03", "V04"]
    state = chance(state, *(card(c) for c in year1))
    assert state.dold == () and state.dnew == tuple(card(c) for c in year1)
    # year 1: A takes V01 from NEW, everybody else takes rows
    state = act(state, a.TAKE_BUILDING + card("V01"), a.END_TURN)
    state = play_until_chance(state)
    assert state.year == 2 and state.phase != TAKE
    state = deal_any_rows(state)
    assert state.dold == tuple(card(c) for c in ["V02", "V03", "V04"])  # NEW moved to OLD
    year2 = ["T01", "T02", "T03", "T04"]
    state = chance(state, *(card(c) for c in year2))
    assert state.dnew == tuple(card(c) for c in year2)
    state = play_until_chance(state)  # rows first, then the lowest display card
    left_in_old = state.dold
    assert left_in_old and set(left_in_old) <= {card(c) for c in ["V02", "V03", "V04"]}
    state = deal_any_rows(state)
    assert state.year == 3
    assert set(left_in_old) <= set(state.removed)
    assert not set(left_in_old) & set(state.dnew + state.dold)
    assert state.dold == tuple(card(c) for c in year2)


# -- E5 ---------------------------------------------------------------------------------------


def test_e5_seasons_and_order_three_players() -> None:
    rng = random.Random(7)
    state = set_up(3, start=A)
    turns: dict[tuple[int, str], list[int]] = {}
    winters: dict[int, list[int]] = {}
    take_count = [0, 0, 0]
    starts = {}
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, rng))
            continue
        seat = state.acting_players()[0]
        starts.setdefault(state.year, state.start)
        if state.phase == TAKE:
            season = "summer" if state.season == 2 else "autumn"
            turns.setdefault((state.year, season), []).append(seat)
            take_count[seat] += 1
        if state.phase == DISCARD:
            order = winters.setdefault(state.year, [])
            if not order or order[-1] != seat:
                order.append(seat)
        state = act(state, a.END_TURN) if state.phase == BUILD else passive_turn(state)
    assert starts[2] == B
    assert turns[(2, "summer")] == [B, C, A]
    assert turns[(2, "autumn")] == [A, C, B]
    assert winters[2] == [B, C, A]  # every hand is over the limit with this passive play
    assert starts[3] == C
    assert turns[(3, "summer")] == [C, A, B]
    assert turns[(3, "autumn")] == [B, A, C]
    assert state.year == 9 and max(year for year, _ in turns) == 9
    assert take_count == [18, 18, 18]


# -- E10 --------------------------------------------------------------------------------------


def test_e10_winter_hand_limit_with_a_warehouse() -> None:
    state = set_up(3, start=A, start_goods={A: [WINE, WINE], B: [WINE, WINE], C: [WINE, WINE]})
    rows = [[GRAIN] * 4 + [CLOTH], [WINE] * 3, [GLASS] + [GRAIN] * 3, [WINE] + [GRAIN] * 3,
            [WINE, WINE, GRAIN, GRAIN]]  # fmt: skip
    state = spring(state, rows, ["V01", "V02", "V03", "V04"])
    state = act(state, a.TAKE_ROW + 0)  # A: 3 + 5 cards
    state = build(state, "R3", CLOTH)  # Warehouse, 5 at Riga values
    state = act(state, a.END_TURN)
    state = act(state, a.TAKE_ROW + 1, a.END_TURN)  # B
    state = act(state, a.TAKE_ROW + 2, a.END_TURN)  # C, then autumn C, B, A
    state = act(state, a.TAKE_BUILDING + card("V01"), a.END_TURN)
    state = act(state, a.TAKE_ROW + 4, a.END_TURN)
    state = act(state, a.TAKE_ROW + 3, a.END_TURN)
    assert [queries.hand_size(reference(state), p) for p in range(3)] == [11, 10, 8]
    assert sc.hand_limit(state.tableau[A]) == 11
    assert state.phase == DISCARD and state.acting_players() == (B,)
    assert state.observation(B)["discards_left"] == 2
    legal = state.legal_actions(B)
    assert legal == [a.DISCARD_GOOD + g for g in range(4) if state.hgoods[B][g]] + [
        a.DISCARD_BUILDING + c for c in state.hbuild[B]
    ]
    state = act(state, a.DISCARD_GOOD + WINE)
    assert state.acting_players() == (B,)
    state = act(state, a.DISCARD_GOOD + GRAIN)
    assert state.kind is NodeKind.CHANCE and state.year == 2  # A and C never acted
    assert queries.hand_size(reference(state), B) == 8 and state.start == B
    assert state.gdisc[WINE] == 1 and state.gdisc[GRAIN] == 1


# -- E13 --------------------------------------------------------------------------------------


def test_e13_take_options_when_the_market_is_thin() -> None:
    state = summer_turn_position(4)
    thin = placed(state, season=3, rows=((),) * 6, dnew=(card("T08"),), dold=(card("S02"),))
    assert thin.legal_actions(A) == sorted([a.TAKE_BUILDING + card("T08"), a.TAKE_BUILDING + card("S02")])
    with pytest.raises(IllegalActionError):
        thin.apply({A: a.TAKE_NOTHING})
    empty = placed(thin, dnew=(), dold=())
    assert empty.legal_actions(A) == [a.TAKE_NOTHING]
    after = act(empty, a.TAKE_NOTHING)
    assert after.phase == BUILD and after.hbuild == empty.hbuild


# -- E14 --------------------------------------------------------------------------------------


def test_e14_claims_happen_mid_turn_and_the_build_cap() -> None:
    state = set_up(2, start=A, start_goods={A: [WINE, WINE]}, start_buildings={A: ("V08", "T12")})
    assert (t.T_VISBY, t.FIRST, -1) in state.tiles
    state = spring(state, [[GRAIN] * 4 + [WINE], [GLASS] * 3, [GLASS] * 3, [CLOTH] * 2], ["V03", "V11", "T01"])
    state = turn(state, a.TAKE_BUILDING + card("V03"), ("V03", WINE))  # A: Visby 1 (Builders' Guild)
    state = turn(state, a.TAKE_ROW + 1)  # B
    state = turn(state, a.TAKE_ROW + 3)  # autumn: B
    state = turn(state, a.TAKE_ROW + 0)  # A
    state = spring(state, [[CLOTH, WINE, WINE], [GRAIN] * 5, [CLOTH] * 2], ["T02", "T03", "T04"])
    state = turn(state, a.TAKE_ROW + 1)  # year 2 summer: B, then A
    state = turn(state, a.TAKE_ROW + 0)
    state = act(state, a.TAKE_BUILDING + card("V11"))  # autumn: A first
    assert state.hbuild[A] == (card("V08"), card("V11"))
    assert sc.city_count(state.tableau[A], t.VISBY) == 1
    state = build(state, "V08", WINE, GRAIN)  # 9 - 2 = 7
    assert holder(state, t.T_VISBY) == -1 and state.builds == 1  # Visby 2: FIRST needs 3
    state = build(state, "V11", WINE, WINE, GRAIN)  # 13 - 2 = 11
    assert holder(state, t.T_VISBY) == A and state.builds == 2  # taken at once, mid-turn
    assert state.log[-1] == ("claim", A, "Visby", -1)
    state = build(state, "R3", CLOTH)
    assert state.builds == 3
    left = sc.available_items(state.hgoods[A], state.tableau[A], state.used[A])
    assert sc.can_pay(sc.item_values(state.tableau[A], t.RIGA), left, 6)  # R2 / R4 affordable
    assert state.legal_actions(A) == [a.END_TURN]
    state = act(state, a.END_TURN)
    assert state.acting_players() == (B,) and state.builds == 0
