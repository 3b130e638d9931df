"""Riviera: worked examples EX-1 to EX-6 of rules/riviera.md §8 (dice and sums, the golden die,
reserved dice, card 9, chains of ones, card 10) and the rules around them (helpers.py: how
positions are reached).
"""

from __future__ import annotations

import pytest

from engine.core import IllegalActionError, NodeKind
from engine.riviera.actions import (
    ACTIVATE,
    CRASH,
    DISCARD,
    GIVE,
    LAST_CHANCE,
    MORE,
    PASS,
    STOP,
    SWAP_WITH,
    adjust_action,
)
from engine.riviera.components import STARS, parse_card
from tests.engine.riviera.helpers import (
    A,
    B,
    C,
    D,
    act,
    cards,
    deal,
    everyone,
    ex2_turn2,
    new_state,
    plays,
    roll,
)

# -- EX-1 -------------------------------------------------------------------------------------


def test_ex1_single_die_or_sum_of_two():
    state = new_state(3)
    state = deal(
        state,
        "R3 G8 B7 O11 R9 G2 B12 O4 G10 R5",
        "R1 R2 R4 R6 G1 G3 G4 B2 B3 B4",
        "R7 R8 G5 G6 G7 B5 B6 O1 O2 O3",
    )
    state = roll(state, "R=3 G=5 B=1 O=6")
    assert state.observation(A)["phase"] == "choose"
    assert state.legal_actions(A) == plays("R3 G8 B7 O11 R9")
    assert sum(STARS[c] for c in cards("R3 G8 B7 O11 R9")) == 10


def test_ex2_golden_die_counts_only_in_a_pair_without_colour():
    state = ex2_turn2(activate=True)
    assert state.observation(A)["gold_in_roll"] is True
    state = roll(state, "R=5 G=5 B=4 O=3 Au=6")
    assert state.observation(B)["gold"] == 6
    assert state.legal_actions(A) == plays("R11 B10 O9 G8 B4")


def test_ex2_without_the_golden_die():
    state = ex2_turn2(activate=False)
    state = roll(state, "R=5 G=5 B=4 O=3")
    assert state.observation(A)["gold"] is None
    assert state.legal_actions(A) == plays("G8 B4")


# -- EX-3 -------------------------------------------------------------------------------------


def _ex3(hand_a: str, hand_b: str, card_a: str, card_b: str):
    state = deal(new_state(2), hand_a, hand_b)
    state = roll(state, "R=2 G=3 B=3 O=3")
    state = act(state, A=parse_card(card_a), B=parse_card(card_b))
    state = act(state, A=ACTIVATE)  # A's R2 reserves red for the next roll
    state = everyone(state, MORE)
    state = roll(state, "R=6 G=5 B=2 O=1")
    assert state.observation(B)["reserved_by"]["R"] == [A]
    return state


def test_ex3_reserved_die_is_free_for_its_owner():
    state = _ex3("R2 R7 G11 O7 G7 R6 B3 O6 G5 B12", "R3 R4 R5 G1 G2 G3 O1 O2 O3 B1", "R2", "G3")
    assert state.legal_actions(A) == plays("R7 G11 O7 G7 R6 B3 O6 G5")


def test_ex3_reserved_die_is_off_limits_to_opponents_even_as_a_partner():
    state = _ex3("R2 R3 R4 R5 G1 G2 G4 O1 O2 O3", "R7 G11 O7 G7 R6 B3 O6 G5 G3 B12", "R2", "G3")
    assert state.legal_actions(B) == plays("G7 B3 O6 G5")


# -- EX-4 -------------------------------------------------------------------------------------

EX4_HANDS = (
    "R1 B6 R7 G8 P10 R10 G12 P5 R12 B2",
    "R2 R3 R4 R5 G1 G2 G3 P1 P2 P3",
    "P9 P4 P6 P7 P8 B1 B3 B4 B5 B7",
    "G9 G4 G5 G6 G7 G10 B8 B9 B10 B11",
)


def _ex4_turn2():
    """Turn 1 (Holder C): A has no card and uses Last Chance, C plays P9, D plays G9."""
    state = new_state(4, holder=C, removed="O", rerollBustingFirstRolls=False)
    state = deal(state, *EX4_HANDS)
    state = roll(state, "R=2 G=3 P=6 B=1")
    assert state.legal_actions(A) == [LAST_CHANCE, CRASH]
    state = act(state, A=LAST_CHANCE, B=parse_card("R5"), C=parse_card("P9"), D=parse_card("G9"))
    state = everyone(state, MORE)
    assert state.observation(A)["holder"] == D
    state = roll(state, "R=6 G=2 P=4 B=1")
    assert state.observation(A)["adjust_queue"] == [D, C]  # clockwise from D: D, (A, B), C
    return state


def test_ex4_two_nine_owners_one_change_per_die():
    state = _ex4_turn2()
    assert state.acting_players() == (D,)
    state = act(state, D=adjust_action(0, +1))  # red 6 -> 1
    assert state.acting_players() == (C,)
    with pytest.raises(IllegalActionError):
        act(state, C=adjust_action(0, -1))  # red was already changed this turn
    state = act(state, C=adjust_action(3, -1))  # blue 1 -> 6
    for seat in range(4):
        observation = state.observation(seat)
        assert observation["dice"] == {"R": 1, "G": 2, "P": 4, "B": 6}
        assert observation["modified_dice"] == ["R", "B"]
    assert state.legal_actions(A) == plays("R1 B6 R7 G8 P10 P5")


def test_ex4_raw_roll_made_r10_legal():
    state = _ex4_turn2()
    state = act(state, D=PASS)
    state = act(state, C=PASS)
    assert parse_card("R10") in state.legal_actions(A)


# -- EX-5 -------------------------------------------------------------------------------------


def test_ex5_chain_of_ones():
    # A's hand is the example's 6 cards plus R3 G3 B2 O5, none of them legal on this roll.
    state = deal(new_state(2), "R1 G1 O8 B6 G9 R12 R3 G3 B2 O5", "B5 R2 R4 G2 G4 B3 B4 O2 O4 O6")
    state = roll(state, "R=1 G=1 B=5 O=3")
    assert state.legal_actions(A) == plays("R1 G1 O8 B6")
    state = act(state, A=parse_card("R1"), B=parse_card("B5"))
    assert state.acting_players() == (A,)
    assert state.legal_actions(A) == plays("G1 O8 B6") + [PASS]
    state = act(state, A=parse_card("G1"))
    assert state.acting_players() == (A,)  # a 1 again: A stays eligible
    assert state.legal_actions(A) == plays("O8 B6") + [PASS]
    state = act(state, A=parse_card("O8"))
    observation = state.observation(B)
    assert observation["phase"] == "stop_or_more"  # the chain ended; no power is pending
    assert observation["columns"][A] == cards("R1 G1 O8")
    assert observation["column_stars"][A] == 6
    assert state.observation(A)["hand"] == plays("B6 G9 R12 R3 G3 B2 O5")
    assert observation["pending"] == {"gold": [], "reservations": {c: [] for c in "RGBO"},
                                      "adjusters": []}


def test_bonus_is_optional():
    state = deal(new_state(2), "R1 G1 O8 B6 G9 R12 R3 G3 B2 O5", "B5 R2 R4 G2 G4 B3 B4 O2 O4 O6")
    state = roll(state, "R=1 G=1 B=5 O=3")
    state = act(state, A=parse_card("R1"), B=parse_card("B5"))
    state = act(state, A=PASS)
    assert state.observation(A)["phase"] == "stop_or_more"
    assert state.observation(A)["columns"][A] == cards("R1")


# -- EX-6 -------------------------------------------------------------------------------------


def test_ex6_card_10_swap():
    state = deal(
        new_state(3),
        "R10 G3 O4 B8 R2 R5 R6 G4 G5 O5",
        "B5 R8 G12 O2 B9 B3 G7 G8 O6 O7",
        "G6 R1 R3 R4 R7 G1 G2 B1 B2 B4",
    )
    state = roll(state, "R=4 G=6 B=3 O=1")
    state = act(state, A=parse_card("R10"), B=parse_card("B3"), C=parse_card("G6"))
    assert state.acting_players() == (A,)
    assert state.legal_actions(A) == [PASS, SWAP_WITH + B, SWAP_WITH + C]
    state = act(state, A=SWAP_WITH + B)
    assert state.action_visibility(A, GIVE + parse_card("G3")) == {A}  # the others see how many
    assert state.hidden_action_label(A) == "seat 0 gives a card to seat 1"
    state = act(state, A=GIVE + parse_card("G3"))
    state = act(state, A=GIVE + parse_card("O4"))
    assert state.kind is NodeKind.CHANCE
    assert sorted(o for o, _ in state.chance_outcomes()) == plays("B5 R8 G12 O2 B9 G7 G8 O6 O7")
    assert state.chance_label(parse_card("G12")) == "seat 0 takes green 12 from seat 1"
    assert state.chance_visibility(parse_card("G12")) == {A, B}  # C sees only that 2 cards moved
    assert state.hidden_chance_label() == "seat 0 takes a card from seat 1"
    state = state.apply_chance(parse_card("G12"))
    state = state.apply_chance(parse_card("B5"))
    seen_a, seen_b, seen_c = (state.observation(seat) for seat in (A, B, C))
    assert seen_a["hand"] == plays("B8 R2 G12 B5 R5 R6 G4 G5 O5")
    assert seen_b["hand"] == plays("R8 O2 B9 G3 O4 G7 G8 O6 O7")
    assert seen_c["hand_sizes"] == [9, 9, 9]
    assert seen_a["known_hands"][B] == plays("G3 O4")
    assert seen_b["known_hands"][A] == plays("G12 B5")
    assert seen_c["known_hands"] == [[], [], []]
    swap_a = [e for e in seen_a["events"] if e["type"] == "swap"]
    swap_c = [e for e in seen_c["events"] if e["type"] == "swap"]
    assert swap_c == [{"type": "swap", "seat": A, "target": B, "count": 2}]
    assert swap_a[0]["to_target"] == cards("G3 O4")
    assert sorted(swap_a[0]["to_swapper"]) == plays("G12 B5")
    assert "G12" not in str(seen_c)  # C never sees which cards moved
    assert seen_a["phase"] == "stop_or_more"


def test_card_10_fallback_when_no_opponent_is_in():
    """B stops, A plays a 10 the turn after: A throws away k = 2 cards and draws 2."""
    state = deal(new_state(2), "R10 R3 R4 G1 G2 B1 B2 O1 O3 O4", "B5 R8 G12 O2 B9 B3 G7 G8 O6 O7")
    state = roll(state, "R=3 G=5 B=3 O=6")  # A plays R3, B plays B3 and stops
    state = act(state, A=parse_card("R3"), B=parse_card("B3"))
    state = act(state, A=MORE, B=STOP)
    state = roll(state, "R=6 G=4 B=5 O=5")  # A plays R10 (R6+G4)
    state = act(state, A=parse_card("R10"))
    assert state.legal_actions(A) == [PASS] + [DISCARD + c for c in plays("R4 G1 G2 B1 B2 O1 O3 O4")]
    state = act(state, A=DISCARD + parse_card("O4"))
    assert state.observation(B)["power"]["selected"] == []  # the pick is A's secret
    state = act(state, A=DISCARD + parse_card("O3"))
    assert state.kind is NodeKind.CHANCE
    pile = sorted(o for o, _ in state.chance_outcomes())
    assert len(pile) == 48 - 20  # the 20 cards dealt; plays and discards never refill it
    assert state.chance_label(pile[0]).startswith("seat 0 draws ")
    assert state.chance_visibility(pile[0]) == {A} and state.hidden_chance_label() == "seat 0 draws a card"
    state = state.apply_chance(pile[0])
    state = state.apply_chance(pile[1])
    seen_a, seen_b = state.observation(A), state.observation(B)
    assert seen_a["hand"] == sorted(plays("R4 G1 G2 B1 B2 O1") + pile[:2])
    assert seen_a["known_discards"] == plays("O3 O4")
    assert seen_b["discard_size"] == 2 and seen_b["known_discards"] == []
    assert [e for e in seen_b["events"] if e["type"] == "fallback"][0]["count"] == 2


def test_card_10_targets_only_players_still_in():
    state = deal(new_state(3), "R10 R1 R2 G1 G2 B1 B2 O1 O3 O4",
                 "B5 R8 G12 O2 B9 B3 G7 G8 O6 O7", "G6 R11 R12 G9 G10 G11 B10 B11 B12 O12")
    state = roll(state, "R=2 G=6 B=3 O=6")  # everyone has a card on this first roll
    state = act(state, A=parse_card("R2"), B=parse_card("B3"), C=parse_card("G6"))
    state = act(state, A=PASS)  # A's card 2 power
    state = act(state, A=MORE, B=STOP, C=MORE)
    state = roll(state, "R=6 G=1 B=1 O=4")  # A: R10 (R6+O4); C cannot play: Last Chance
    state = act(state, A=parse_card("R10"), C=LAST_CHANCE)
    assert state.legal_actions(A) == [PASS, SWAP_WITH + C]
