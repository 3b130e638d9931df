"""Riviera: card invariants over random games, and determinizations that keep what a seat knows.
"""

from __future__ import annotations

import random

import pytest

from engine.core import NodeKind, sample_chance
from engine.riviera import Riviera, queries
from engine.riviera.actions import GIVE, SWAP_WITH
from engine.riviera.components import parse_card
from engine.riviera.phases import DRAW
from engine.riviera.state import KIND_BY_PHASE
from tests.engine.riviera.helpers import A, B, C, act, cards, deal, new_state, roll

# -- invariants over random games; hidden information ---------------------------------------------


def _check_invariants(state) -> None:
    """Every card in use is in exactly one place; knowledge is true; hands + columns = 10."""
    places = [c for hand in state.hands for c in hand] + [c for col in state.columns for c in col]
    places += [c for c in range(60) if state.discard >> c & 1]
    assert len(places) == len(set(places))
    assert set(places) <= set(state.in_deck)
    data = state.reference() if hasattr(type(state), "reference") else state  # queries take a RivieraData
    assert queries.draw_pile_size(data) == bin(queries.draw_pile(data)).count("1")
    assert state.kind is KIND_BY_PHASE[state.phase], "the stored kind follows the phase"
    n = state.num_players
    for s in range(n):
        for q in range(n):
            known = {c for c in range(60) if state.known[s * n + q] >> c & 1}
            assert known <= set(state.hands[q])
        assert state.known_disc[s] & ~state.discard == 0
    if state.observation(0)["phase"] not in ("setup", "deal", "game_over"):
        for p in range(n):
            if state.observation(0)["status"][p] != "CRASHED":
                held = len(state.hands[p]) + len(state.columns[p])
                assert held == 10 or state.phase == DRAW  # between fallback discards and draws


@pytest.mark.parametrize("players", [2, 3, 6])
@pytest.mark.parametrize("mode", ["simultaneous", "sequential"])
def test_random_games_keep_the_card_invariants(players, mode):
    rng = random.Random(players)
    for _ in range(2):
        state = Riviera(players, playMode=mode).initial_state()
        while state.kind is not NodeKind.TERMINAL:
            _check_invariants(state)
            if state.kind is NodeKind.CHANCE:
                state = state.apply_chance(sample_chance(state, rng))
            else:
                state = state.apply({p: rng.choice(state.legal_actions(p)) for p in state.acting_players()})


def _after_ex6_swap():
    state = deal(
        new_state(3),
        "R10 G3 O4 B8 R2 R5 R6 G4 G5 O5",
        "B5 R8 G12 O2 B9 B3 G7 G8 O6 O7",
        "G6 R1 R3 R4 R7 G1 G2 B1 B2 B4",
    )
    state = roll(state, "R=4 G=6 B=3 O=1")
    state = act(state, A=parse_card("R10"), B=parse_card("B3"), C=parse_card("G6"))
    state = act(state, A=SWAP_WITH + B)
    assert state.action_visibility(A, GIVE + parse_card("G3")) == {A}  # the others see how many
    assert state.hidden_action_label(A) == "seat 0 gives a card to seat 1"
    state = act(state, A=GIVE + parse_card("G3"))
    state = act(state, A=GIVE + parse_card("O4"))
    return state.apply_chance(parse_card("G12")).apply_chance(parse_card("B5"))


def test_determinizations_keep_the_cards_a_seat_knows():
    state = _after_ex6_swap()
    game = Riviera(3, startPlayer=0, removedColour="P")
    rng = random.Random(1)
    for _ in range(20):
        for sample in (state.resample([A], rng), game.sample_state(state.observation(A), rng)):
            assert set(cards("G3 O4")) <= set(sample.hands[B])
            assert sample.observation(A) == state.observation(A)
        sample = state.resample([C], rng)
        assert sample.observation(C) == state.observation(C)
    hands_for_c = {state.resample([C], random.Random(seed)).hands[A] for seed in range(10)}
    assert len(hands_for_c) > 1  # C cannot tell A's hand: it is redrawn
