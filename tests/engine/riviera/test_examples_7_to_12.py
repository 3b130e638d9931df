"""Riviera: worked examples EX-7 to EX-12 of rules/riviera.md §8 (Last Chance and crashes, round
scoring, Grand Slams, rerolled first rolls, deferred powers, the Start token) and the rules
around them (helpers.py: how positions are reached).
"""

from __future__ import annotations

import pytest

from engine.core import IllegalActionError, NodeKind, Step
from engine.riviera.actions import ACTIVATE, CRASH, LAST_CHANCE, MORE, PASS, STOP, adjust_action
from engine.riviera.components import parse_card
from engine.visibility import chance_views
from tests.engine.riviera.helpers import (
    EX10_HANDS,
    A,
    B,
    C,
    D,
    act,
    cards,
    deal,
    everyone,
    finish_deal,
    inject,
    new_state,
    plays,
    roll,
)

# -- EX-7 -------------------------------------------------------------------------------------


def test_ex7_last_chance_then_forced_crash():
    state = deal(new_state(2), "R8 G5 R1 G2 B3 O4 R5 R2 G3 B8", "B9 O10 O12 R7 G9 R4 G10 B11 O3 R3")
    state = roll(state, "R=4 G=4 B=5 O=1")  # turn 1: A plays R8, B plays B9
    state = act(state, A=parse_card("R8"), B=parse_card("B9"))
    state = everyone(state, MORE)
    state = roll(state, "R=2 G=5 B=2 O=5")  # turn 2: B's 9 may nudge a die; B passes
    state = act(state, B=PASS)
    state = act(state, A=parse_card("G5"), B=parse_card("O10"))
    state = act(state, B=PASS)  # B's 10: no swap
    state = everyone(state, MORE)
    state = roll(state, "R=6 G=6 B=6 O=6")  # turn 3
    assert state.observation(A)["turn"] == 3
    assert state.legal_actions(A) == [LAST_CHANCE, CRASH]
    assert state.legal_actions(B) == plays("O12")
    with pytest.raises(IllegalActionError):
        act(state, A=LAST_CHANCE, B=LAST_CHANCE)
    state = act(state, A=LAST_CHANCE, B=parse_card("O12"))
    state = everyone(state, MORE)
    seen = state.observation(A)
    assert seen["status"][A] == "IN" and seen["last_chance_used"][A] is True
    assert seen["columns"][A] == cards("R8 G5")
    assert seen["hand"] == plays("R1 G2 B3 O4 R5 R2 G3 B8")
    state = roll(state, "R=3 G=4 B=1 O=6")  # turn 4
    assert state.legal_actions(A) == [CRASH]
    state = act(state, A=CRASH, B=parse_card("R7"))
    seen = state.observation(B)
    assert seen["status"][A] == "CRASHED"
    assert seen["columns"][A] == [] and seen["hand_sizes"][A] == 0
    assert seen["discard_size"] == 10
    assert seen["known_discards"] == plays("R8 G5")  # the column was public, the hand was not
    state = act(state, B=STOP)
    state = finish_deal(state)
    seen = state.observation(A)
    assert seen["round"] == 2
    assert seen["scores"] == [0, 2 + 2 + 5 + 1]
    assert seen["last_chance_used"] == [True, False]


# -- EX-8 -------------------------------------------------------------------------------------


def test_ex8_round_scoring_and_a_clear_winner_over_40():
    state = new_state(3)
    state = inject(state, scores=(34, 35, 12))  # scores from earlier rounds (not replayed)
    state = deal(
        state,
        "R12 G11 R2 R4 R5 R7 G2 G4 B2 B3",
        "B4 O8 R11 B10 O1 R9 G3 B11 O6 G10",
        "R8 G1 B6 O12 R3 G9 R1 B1 O3 G12",
    )
    state = roll(state, "R=6 G=6 B=4 O=2")  # turn 1
    state = act(state, A=parse_card("R12"), B=parse_card("B4"), C=parse_card("R8"))
    state = everyone(state, MORE)
    state = roll(state, "R=6 G=5 B=2 O=2")  # turn 2: C has no card and uses Last Chance
    assert state.legal_actions(C) == [LAST_CHANCE, CRASH]
    state = act(state, A=parse_card("G11"), B=parse_card("O8"), C=LAST_CHANCE)
    state = act(state, A=PASS)  # A's 11 power, not used
    state = act(state, A=STOP, B=MORE, C=MORE)
    seen = state.observation(B)
    assert seen["phase"] == "roll" and seen["column_stars"] == [8, 3, 2]
    state = roll(state, "R=5 G=6 B=2 O=2")  # turn 3
    assert state.legal_actions(B) == plays("R11")
    assert state.legal_actions(C) == [CRASH]
    state = act(state, B=parse_card("R11"), C=CRASH)
    state = act(state, B=PASS)
    state = act(state, B=STOP)
    assert state.kind is NodeKind.TERMINAL
    assert state.observation(C)["scores"] == [42, 41, 12]
    assert state.observation(C)["winners"] == [A]
    assert state.returns() == [42.0, 41.0, 12.0]
    assert state.ranks() == [1, 2, 3]


# -- EX-9 -------------------------------------------------------------------------------------


def _ex9(**options):
    """The hands of A and B (one card left each) and C (four) are injected: C's could not arise."""
    state = new_state(3, **options)
    state = finish_deal(state)
    hands = (tuple(cards("G7")), tuple(cards("O3")), tuple(plays("B4 R12 G1 O11")))
    rest = [c for c in state.in_deck if not any(c in h for h in hands)]
    columns = (tuple(rest[:9]), tuple(rest[9:18]), tuple(rest[18:24]))
    state = inject(state, hands=hands, columns=columns, scores=(5, 8, 39))
    state = roll(state, "R=2 G=5 B=4 O=3")
    if state.acting_players() == (A, B, C):
        assert state.legal_actions(C) == plays("B4")
    return state


def test_ex9_shared_grand_slam():
    state = _ex9()
    state = act(state, A=parse_card("G7"), B=parse_card("O3"), C=parse_card("B4"))
    assert state.kind is NodeKind.TERMINAL
    seen = state.observation(C)
    assert seen["winners"] == [A, B] and seen["grand_slam"] is True
    assert seen["scores"] == [5, 8, 39]  # the round is not scored
    assert state.ranks() == [1, 1, 3]
    assert state.returns() == [100.0, 100.0, 39.0]


def test_ex9_sequential_mode_first_to_empty_wins_alone():
    state = _ex9(playMode="sequential")
    assert state.acting_players() == (A,)
    state = act(state, A=parse_card("G7"))
    assert state.kind is NodeKind.TERMINAL
    assert state.observation(B)["winners"] == [A]
    assert state.returns() == [100.0, 8.0, 39.0]
    assert state.ranks() == [1, 3, 2]


def test_ex10_busting_first_rolls_are_rerolled_unseen():
    state = deal(new_state(2), *EX10_HANDS)
    state = roll(state, "R=3 G=3 B=3 O=3")
    assert state.kind is NodeKind.CHANCE and state.observation(A)["dice"]["R"] is None
    state = roll(state, "R=6 G=6 B=6 O=6")
    assert state.kind is NodeKind.CHANCE and state.observation(B)["dice"]["R"] is None
    state = roll(state, "R=4 G=4 B=4 O=4")  # the limit of 2 rerolls is reached: this one stands
    assert state.observation(A)["dice"] == {"R": 4, "G": 4, "B": 4, "O": 4}
    assert state.legal_actions(A) == plays("G4 B4 O8")
    assert state.legal_actions(B) == [LAST_CHANCE, CRASH]


def test_ex10_without_the_reroll_option_the_first_roll_stands():
    state = deal(new_state(2, rerollBustingFirstRolls=False), *EX10_HANDS)
    state = roll(state, "R=3 G=3 B=3 O=3")
    assert state.legal_actions(A) == plays("R3 B3")
    assert state.legal_actions(B) == [LAST_CHANCE, CRASH]


def test_ex10_a_deal_is_seen_by_its_seat_and_a_rerolled_roll_by_nobody():
    """The replay of EX-10's deal and rolls, as each seat and a spectator may read it (§2.3)."""
    outcomes = [*cards(" ".join(EX10_HANDS)), *(3, 3, 3, 3), *(6, 6, 6, 6), *(4, 4, 4, 4)]
    states = [new_state(2)]
    for outcome in outcomes:
        states.append(states[-1].apply_chance(outcome))
    assert states[-1].kind is NodeKind.DECISION
    views = chance_views(states[:-1], [Step(chance=o) for o in outcomes])
    assert [views[0].label_for(viewer) for viewer in (A, B, None)] == [
        "dealt red 2 to seat 0", "dealt a card to seat 0", "dealt a card to seat 0"]
    assert views[10].label_for(B) == "dealt red 12 to seat 1" and views[10].label_for(A) == "dealt a card to seat 1"
    rerolled, standing = views[20:28], views[28:]
    assert {view.label_for(viewer) for view in rerolled for viewer in (A, B, None)} == {
        "red die rolled", "green die rolled", "blue die rolled", "orange die rolled"}
    assert [view.label_for(None) for view in standing] == ["red die: 4", "green die: 4", "blue die: 4", "orange die: 4"]


def test_max_auto_rerolls_limits_the_rerolls():
    state = deal(new_state(2, maxAutoRerolls=1), *EX10_HANDS)
    state = roll(state, "R=3 G=3 B=3 O=3")
    state = roll(state, "R=6 G=6 B=6 O=6")
    assert state.legal_actions(A) == [LAST_CHANCE, CRASH]


# -- EX-11 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a_choice", "require_in", "gold"),
    [(STOP, True, False), (MORE, True, True), (STOP, False, True)],
)
def test_ex11_deferred_11_needs_its_owner_in(a_choice, require_in, gold):
    state = new_state(3, deferredPowersRequireOwnerInRound=require_in)
    state = deal(
        state,
        "O11 R1 R2 R3 G2 G3 G4 B2 B3 B4",
        "R6 R4 R5 G5 G6 G7 B5 B6 B7 O2",
        "R7 R8 R9 G8 G9 G10 B8 B9 B10 O3",
    )
    state = roll(state, "R=6 G=1 B=1 O=5")
    state = act(state, A=parse_card("O11"), B=parse_card("R6"), C=parse_card("R7"))
    state = act(state, A=ACTIVATE)
    assert state.observation(B)["pending"]["gold"] == [A]
    state = act(state, A=a_choice, B=MORE, C=MORE)
    assert state.observation(B)["gold_in_roll"] is gold
    for _ in range(4):
        state = state.apply_chance(2)
    assert (state.kind is NodeKind.CHANCE) is gold  # the fifth die is the golden one


def test_deferred_2_is_lost_when_its_owner_stops():
    state = deal(new_state(2), "R2 R3 R4 G2 G3 G4 B2 B3 B4 O2", "R6 R7 R8 G5 G6 G7 B5 B6 B7 O3")
    state = roll(state, "R=2 G=2 B=2 O=3")
    state = act(state, A=parse_card("R2"), B=parse_card("O3"))
    state = act(state, A=ACTIVATE)
    assert state.observation(B)["pending"]["reservations"]["R"] == [A]
    state = act(state, A=STOP, B=MORE)
    assert state.observation(B)["reserved_by"]["R"] == []


@pytest.mark.parametrize("require_in", [True, False])
def test_deferred_9_of_a_stopped_owner(require_in):
    state = new_state(2, deferredPowersRequireOwnerInRound=require_in)
    state = deal(state, "R9 R3 R4 G2 G3 G4 B2 B3 B4 O2", "R6 R7 R8 G5 G6 G7 B5 B6 B7 O3")
    state = roll(state, "R=6 G=3 B=2 O=3")
    state = act(state, A=parse_card("R9"), B=parse_card("O3"))
    assert state.observation(B)["pending"]["adjusters"] == [A]
    state = act(state, A=STOP, B=MORE)
    state = roll(state, "R=1 G=1 B=1 O=1")
    if require_in:  # the owner stopped: the 9 is lost
        assert state.observation(B)["phase"] == "choose"
    else:  # the stopped owner still nudges a die
        assert state.observation(B)["phase"] == "adjust_dice" and state.acting_players() == (A,)
        state = act(state, A=adjust_action(1, -1))
        assert state.observation(B)["dice"]["G"] == 6


def test_grand_slam_on_a_bonus_reveal():
    """A's last two cards are a 1 and a card the same roll allows (hands injected, as in EX-9)."""
    state = finish_deal(new_state(2))
    hands = (tuple(plays("R1 G5")), tuple(plays("B5 B6 B7")))
    rest = [c for c in state.in_deck if not any(c in h for h in hands)]
    state = inject(state, hands=hands, columns=(tuple(rest[:8]), tuple(rest[8:15])))
    state = roll(state, "R=1 G=5 B=5 O=6")
    state = act(state, A=parse_card("R1"), B=parse_card("B5"))
    assert state.observation(A)["phase"] == "bonus_choose"
    state = act(state, A=parse_card("G5"))
    assert state.kind is NodeKind.TERMINAL
    assert state.observation(B)["winners"] == [A] and state.ranks() == [1, 2]


# -- EX-12 ------------------------------------------------------------------------------------


def _ex12_hands() -> list[str]:
    """Four hands of values 3..12 (no card legal on an all-1 roll), each with one 11."""
    hands: list[list[str]] = [["R11"], ["G11"], ["B11"], ["O11"]]
    for value in (3, 4, 5, 6, 7, 8, 9, 10, 12):
        for i, colour in enumerate("RGBO"):
            hands[(i + value) % 4].append(f"{colour}{value}")
    return [" ".join(hand) for hand in hands]


def _ex12(**options):
    state = deal(new_state(4, holder=D, **options), *_ex12_hands())
    state = roll(state, "R=6 G=5 B=6 O=5")
    elevens = {"A": "R11", "B": "G11", "C": "B11", "D": "O11"}
    state = act(state, **{seat: parse_card(card) for seat, card in elevens.items()})
    order = []
    while state.observation(A)["phase"] == "powers":
        order.append(state.acting_players()[0])
        state = state.apply({order[-1]: PASS})
    assert order == [D, A, B, C]  # powers resolve clockwise from the Holder
    state = everyone(state, MORE)
    assert state.observation(A)["holder"] == A
    state = roll(state, "R=1 G=1 B=1 O=1")
    for seat in range(4):
        assert state.legal_actions(seat) == [LAST_CHANCE, CRASH]
    return everyone(state, CRASH)


def test_ex12_the_token_passes_every_turn_and_is_not_reset():
    state = _ex12()
    seen = state.observation(C)
    assert seen["phase"] == "deal" and seen["round"] == 2
    assert seen["holder"] == B and seen["scores"] == [0, 0, 0, 0]
    state = finish_deal(state)
    assert state.observation(A)["holder"] == B and state.observation(A)["turn"] == 1


def test_max_rounds_ends_the_game_with_shared_ranks():
    state = _ex12(maxRounds=1)
    assert state.kind is NodeKind.TERMINAL
    assert state.ranks() == [1, 1, 1, 1]
    assert state.observation(A)["winners"] == [A, B, C, D]
