"""Riviera: set-up, options, sequential and simultaneous play, the observation, action and
chance labels.
"""

from __future__ import annotations

import pytest

from engine import registry
from engine.riviera import Riviera
from engine.riviera.actions import (
    ACTIVATE,
    DISCARD,
    GIVE,
    LAST_CHANCE,
    NUM_ACTIONS,
    STOP,
    SWAP_WITH,
    action_label,
    adjust_action,
)
from engine.riviera.components import parse_card
from tests.engine.riviera.helpers import (
    EX2_A,
    EX10_HANDS,
    A,
    B,
    C,
    act,
    cards,
    deal,
    ex2_turn2,
    finish_deal,
    new_state,
    plays,
    roll,
)

# -- set-up, options, information ---------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_one_colour_leaves_the_game_at_2_to_4_players(players):
    state = Riviera(players, startPlayer=0).initial_state()
    assert state.chance_outcomes() == [(c, 0.2) for c in range(5)]
    state = state.apply_chance(2)
    seen = state.observation(0)
    assert seen["removed_colour"] == "P" and seen["colours"] == ["R", "G", "B", "O"]
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 48 and all(c // 12 != 2 for c, _ in outcomes)


@pytest.mark.parametrize("players", [5, 6])
def test_five_colours_at_5_and_6_players(players):
    state = Riviera(players, startPlayer=0, removedColour="R").initial_state()
    assert state.observation(0)["colours"] == ["R", "G", "P", "B", "O"]
    assert len(state.chance_outcomes()) == 60


def test_the_first_holder_is_a_chance_node_by_default():
    state = Riviera(3, removedColour="P").initial_state()
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    assert state.apply_chance(2).observation(0)["holder"] == 2


def test_a_deal_with_7_cards_of_one_colour_is_silently_redone():
    state = new_state(2)
    state = deal(state, "R1 R2 R3 R4 R5 R6 R7 G1 G2 G3", "G4 G5 G6 G7 G8 B1 B2 B3 B4 B5")
    assert state.observation(A)["phase"] == "deal"
    assert len(state.chance_outcomes()) == 48  # everything is collected again
    assert state.observation(A)["hand"] == []


def test_during_the_deal_a_seat_sees_its_cards_so_far_every_hands_size_and_the_cards_still_to_deal():
    import random

    state = new_state(2)
    assert state.observation(A)["draw_pile_size"] == 48, "before the first card, all 48 are still to deal"
    state = deal(state, EX10_HANDS[0])
    for card in cards(EX10_HANDS[1])[:3]:
        state = state.apply_chance(card)
    seen_a, seen_b = state.observation(A), state.observation(B)
    assert seen_a["phase"] == "deal"
    assert seen_a["hand"] == plays(EX10_HANDS[0]) and seen_b["hand"] == sorted(cards(EX10_HANDS[1])[:3])
    assert seen_a["hand_sizes"] == seen_b["hand_sizes"] == [10, 3]
    assert seen_a["draw_pile_size"] == 48 - 13
    assert seen_a["known_hands"] == [[], []], "nobody knows what another seat was dealt"
    for seat, seen in ((A, seen_a), (B, seen_b)):  # a search bot plans from what the seat sees
        sampled = Riviera(2, startPlayer=A, removedColour="P").sample_state(seen, random.Random(seat))
        assert sampled.observation(seat) == seen
        assert len(sampled.chance_outcomes()) == 35, "the 35 cards neither hand holds"
        redrawn = state.resample(frozenset({seat}), random.Random(seat))
        assert redrawn.observation(seat) == seen


def test_six_players_leave_no_draw_pile():
    state = finish_deal(Riviera(6, startPlayer=0).initial_state())
    assert state.observation(0)["draw_pile_size"] == 0
    assert state.observation(0)["hand_sizes"] == [10] * 6


def test_observation_shows_only_the_own_hand():
    state = deal(new_state(2), *EX10_HANDS)
    state = roll(state, "R=1 G=1 B=1 O=1")
    seen = state.observation(B)
    assert seen["hand"] == plays(EX10_HANDS[1])
    assert seen["hand_sizes"] == [10, 10]
    assert not set(cards(EX10_HANDS[0])) & {c for key in ("hand", "known_hands") for c in
                                          (seen[key] if key == "hand" else sum(seen[key], []))}


def test_sequential_mode_plays_and_stops_one_at_a_time_from_the_holder():
    state = new_state(3, holder=B, playMode="sequential")
    state = deal(
        state,
        "O11 R1 R2 R3 G2 G3 G4 B2 B3 B4",
        "R6 R4 R5 G5 G6 G7 B5 B6 B7 O2",
        "R7 R8 R9 G8 G9 G10 B8 B9 B10 O3",
    )
    state = roll(state, "R=6 G=1 B=1 O=5")
    assert state.acting_players() == (B,)
    state = act(state, B=parse_card("R6"))
    assert state.observation(A)["played_this_turn"][B] == cards("R6")  # public at once
    assert state.acting_players() == (C,)
    state = act(state, C=parse_card("R7"))
    state = act(state, A=parse_card("O11"))
    assert state.acting_players() == (A,) and state.observation(A)["phase"] == "powers"
    state = act(state, A=ACTIVATE)
    assert state.acting_players() == (B,) and state.observation(A)["phase"] == "stop_or_more"
    state = act(state, B=STOP)
    assert state.observation(C)["status"][B] == "STOPPED"
    assert state.acting_players() == (C,)


def test_simultaneous_is_the_default():
    game = registry.make("riviera", 4)
    assert game.options["playMode"] == "simultaneous"
    state = deal(new_state(2), *EX10_HANDS)
    state = roll(state, "R=1 G=1 B=1 O=1")
    assert state.acting_players() == (A, B)


def test_options_are_validated():
    with pytest.raises(ValueError):
        registry.make("riviera", 2, startPlayer=3)
    with pytest.raises(ValueError):
        registry.make("riviera", 7)
    assert registry.make("riviera", 3, maxRounds=5).ruleset == "riviera@1+maxRounds=5"


def test_action_labels_are_words_that_follow_the_seat():
    assert action_label(parse_card("R7")) == "plays red 7"
    assert action_label(LAST_CHANCE) == "uses Last Chance"
    assert action_label(adjust_action(5, -1)) == "turns the golden die down one"
    assert action_label(adjust_action(2, +1)) == "turns the purple die up one"
    assert action_label(SWAP_WITH + 2) == "swaps with seat 2"
    assert action_label(GIVE + parse_card("O12")) == "gives orange 12"
    assert action_label(DISCARD + parse_card("G1")) == "discards green 1"
    assert len({action_label(a) for a in range(NUM_ACTIONS)}) == NUM_ACTIONS


def test_chance_labels_name_the_colour_the_seat_the_card_and_the_die():
    state = Riviera(3).initial_state()  # removed colour and first Holder drawn by chance
    assert state.chance_label(2) == "colour removed: purple"
    state = state.apply_chance(2)
    assert state.chance_label(1) == "first holder: seat 1"
    state = new_state(2)
    assert state.chance_label(parse_card("R7")) == "dealt red 7 to seat 0"
    state = deal(state, EX2_A)
    assert state.chance_label(parse_card("R2")) == "dealt red 2 to seat 1"
    state = ex2_turn2(activate=True)
    assert state.chance_label(5) == "red die: 5"
    for outcome in (5, 5, 4):  # R, G, B land; O and the golden die are still to roll
        state = state.apply_chance(outcome)
    assert state.chance_label(3) == "orange die: 3"
    assert state.apply_chance(3).chance_label(6) == "golden die: 6"
