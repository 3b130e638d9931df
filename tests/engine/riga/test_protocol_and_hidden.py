"""Riga: the protocol (options, labels, the card tables) and hidden information (extra draws,
sample_state), and cards conserved in random playouts.
"""

from __future__ import annotations

import random

import pytest

from engine import registry
from engine.core import NodeKind, sample_chance
from engine.riga import Riga, RigaState
from engine.riga import actions as a
from engine.riga import components as t
from engine.riga.phases import BUILD, TAKE
from tests.engine.riga.helpers import (
    CLOTH,
    E4_DECK,
    GLASS,
    GRAIN,
    WINE,
    A,
    B,
    act,
    build,
    build_position,
    card,
    chance,
    deal_any_rows,
    goods,
    placed,
    set_up,
    spring,
)

# -- flow and protocol ---------------------------------------------------------------------------


def test_registry_options_and_labels() -> None:
    game = registry.make("riga", 3)
    assert game.options == {"use_riga_buildings": True, "use_grand_master": True}
    with pytest.raises(ValueError):
        registry.make("riga", 5)
    assert game.action_label(a.START_BUILD + card("D05")) == "build Danzig Strongbox (D05)"
    assert game.action_label(a.PAY_CREDIT) == "pay with the credit of Visby Strongbox (V05)"
    assert game.action_label(a.TAKE_ROW + 3) == "take goods row 4"
    assert game.action_label(a.KEEP_START + 1) == "keep the second start building"
    assert game.action_label(a.START_BUILD + card("R1")) == "build Monastery (R1)"
    assert game.action_label(a.DISCARD_GOOD + WINE) == "discard wine"
    assert len({game.action_label(x) for x in range(a.NUM_ACTIONS)}) == a.NUM_ACTIONS


def test_chance_labels_say_what_each_set_up_and_spring_draw_is() -> None:
    state = Riga(3).initial_state()
    assert state.chance_label(B) == "start player: seat 1"
    state = chance(state, A)
    assert state.chance_label(t.T_MONEY) == "Grand Master tile turned over: Money"
    state = chance(state, t.T_VISBY, t.T_STOCKHOLM, t.T_TALLINN, t.T_DANZIG)
    assert state.chance_label(t.T_KNIGHT) == "Grand Master tile to the supply: Knight"
    state = chance(state, t.T_VISBY, t.T_KNIGHT, t.T_MERCHANT, t.T_MONEY)
    assert state.chance_label(WINE) == "starting goods card: wine"
    state = chance(state, GLASS, GLASS)
    assert state.chance_label(card("V05")) == "start building card: Visby Strongbox (V05)"
    assert state.chance_visibility(card("V05")) == {A}  # drawn face down (§2.6)
    assert state.hidden_chance_label() == "start building card for seat 0"
    kept = chance(state, card("V05"), card("T05"))
    assert kept.action_visibility(A, a.KEEP_START + 1) == {A}
    assert kept.hidden_action_label(A) == "seat 0 keeps a start building card"
    spring = set_up(3)
    assert spring.chance_visibility(WINE) is None
    assert spring.chance_label(WINE) == "goods card for a row: wine"
    assert deal_any_rows(spring).chance_label(card("V05")) == "building card: Visby Strongbox (V05)"


def test_card_tables_match_the_rules() -> None:
    city_cards = [c for c in t.CARDS if c.city != t.RIGA]
    assert len(city_cards) == 48 and len(t.CARDS) == 52
    assert sum(c.symbol == t.KNIGHT for c in city_cards) == 12
    assert sum(c.symbol == t.MERCHANT for c in city_cards) == 12
    for city in range(4):
        assert sum(c.vp for c in city_cards if c.city == city) == 30
    factors = [c.arg for c in city_cards if c.benefit == t.FACTOR]
    assert sorted(factors) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert t.CARDS[card("D05")].name == "Danzig Strongbox"


def test_extra_draw_goods_are_hidden_from_opponents() -> None:
    state = build_position({A: ("V04",)}, goods(), (), players=2)
    state = placed(state, phase=TAKE)
    state = act(state, a.TAKE_ROW + 0)
    assert state.kind is NodeKind.CHANCE  # one hidden extra draw for the Harbour Scribe
    assert state.chance_visibility(CLOTH) == {A}
    assert state.hidden_chance_label() == "extra goods card for seat 0"
    state = chance(state, CLOTH)
    assert state.phase == BUILD
    assert state.hgoods[A] == goods(*[GRAIN] * 5, CLOTH)
    seen_by_b = state.observation(B)["players"][A]
    assert seen_by_b["known_goods"] == {"cloth": 0, "glass": 0, "wine": 0, "grain": 5}
    assert seen_by_b["goods_in_hand"] == 6


def test_sample_state_keeps_the_view_of_the_seat() -> None:
    rng = random.Random(1)
    state = set_up(3)
    state = chance(state, *E4_DECK, *(card(c) for c in ["V01", "V02", "V03", "V04"]))
    game = Riga(3)
    for seat in range(3):
        sample = game.sample_state(state.observation(seat), rng)
        assert sample.observation(seat) == state.observation(seat)
        assert sample.hbuild[seat] == state.hbuild[seat]


def _conserved(state: RigaState) -> None:
    for g in range(4):
        total = state.gdeck[g] + state.gdisc[g] + sum(row.count(g) for row in state.rows)
        assert total + sum(hand[g] for hand in state.hgoods) == t.DECK_COUNTS[g]
        assert all(known[g] <= hand[g] for known, hand in zip(state.kgoods, state.hgoods))
    cards = list(state.bpool + state.dnew + state.dold + state.removed + state.choice)
    cards += [c for c, _ in state.bbottom]
    for p in range(state.num_players):
        cards += list(state.hbuild[p]) + [c for c in state.tableau[p] if c < t.NUM_CITY_CARDS]
    assert sorted(cards) == list(t.CITY_CARD_IDS)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cards_are_conserved_in_build_happy_playouts(players: int) -> None:
    """Random games that prefer building: every goods card and city building stays accounted for."""
    rng = random.Random(players)
    for _ in range(3):
        state = Riga(players).initial_state()
        while state.kind is not NodeKind.TERMINAL:
            _conserved(state)
            if state.kind is NodeKind.CHANCE:
                state = state.apply_chance(sample_chance(state, rng))
                continue
            legal = state.legal_actions(state.acting_players()[0])
            busy = [x for x in legal if x != a.END_TURN] or legal
            state = state.apply({state.acting_players()[0]: rng.choice(busy)})
        _conserved(state)
    assert state.year == t.YEARS[players]
