"""Riviera: the worked examples EX-1 … EX-12 of rules/riviera.md §8, and the rules around them.

Positions are reached through explicit chance outcomes (the removed colour and the Holder are
fixed by options, each dealt card and each die is a chance outcome) and actions. Seat 0 is A,
seat 1 is B, and so on. Where an example's position cannot arise from a deal (hands shorter
than play allows, scores carried from earlier rounds), the test says so and injects just that.
"""

from __future__ import annotations

import random

import pytest

from engine import registry
from engine.core import IllegalActionError, NodeKind, Step, sample_chance
from engine.riviera import Riviera
from engine.riviera.actions import (
    ACTIVATE, CRASH, DISCARD, GIVE, LAST_CHANCE, MORE, NUM_ACTIONS, PASS, STOP, SWAP_WITH,
    action_label, adjust_action,
)
from engine.riviera.components import STARS, parse_card
from engine.riviera import queries
from engine.riviera.phases import DRAW
from engine.riviera.state import _KIND_BY_PHASE
from engine.visibility import chance_views

A, B, C, D = 0, 1, 2, 3


def cards(text: str) -> list[int]:
    return [parse_card(name) for name in text.split()]


def plays(text: str) -> list[int]:
    """The sorted play-action ids of the named cards."""
    return sorted(cards(text))


def new_state(players: int, holder: int = A, removed: str = "P", **options):
    game = Riviera(players, startPlayer=holder, removedColour=removed, **options)
    return game.initial_state()


def deal(state, *hands: str):
    """Deal the given 10-card hands (seat 0 first) as chance outcomes."""
    for hand in hands:
        names = hand.split()
        assert len(names) == 10, hand
        for card in cards(hand):
            state = state.apply_chance(card)
    return state


def roll(state, dice: str):
    """Roll `R=3 G=5 ...` (Au for gold), one chance outcome per die in the engine's die order."""
    values = dict(item.split("=") for item in dice.split())
    order = [name for name in ("R", "G", "P", "B", "O") if name in state.observation(0)["colours"]]
    order += ["Au"] if "Au" in values else []
    assert set(values) == set(order), (values, order)
    for name in order:
        assert state.kind is NodeKind.CHANCE
        state = state.apply_chance(int(values[name]))
    return state


def act(state, **by_seat: int):
    """Apply actions given as A=..., B=... (seat letters)."""
    return state.apply({"ABCDEF".index(seat): action for seat, action in by_seat.items()})


def everyone(state, action: int):
    return state.apply({seat: action for seat in state.acting_players()})


def inject(state, **fields):
    """Set fields of a copy of `state` directly: only for what play cannot reach."""
    new = state.copy()
    for name, value in fields.items():
        setattr(new, name, value)
    return new


def finish_deal(state, seed: int = 0):
    rng = random.Random(seed)
    while state.observation(0)["phase"] in ("setup", "deal"):
        state = state.apply_chance(sample_chance(state, rng))
    return state


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


# -- EX-2 -------------------------------------------------------------------------------------

EX2_A = "O6 R11 B10 O9 G12 R6 G8 B4 R7 R3"  # R7 is played on turn 1, R3 is never legal
EX2_B = "O11 G2 G3 G4 G5 B2 B3 O2 O3 R2"


def _ex2_turn2(activate: bool):
    state = deal(new_state(2), EX2_A, EX2_B)
    state = roll(state, "R=6 G=1 B=1 O=5")
    state = act(state, A=parse_card("R7"), B=parse_card("O11"))
    assert state.acting_players() == (B,) and state.observation(A)["phase"] == "powers"
    state = act(state, B=ACTIVATE if activate else PASS)
    state = everyone(state, MORE)
    return state


def test_ex2_golden_die_counts_only_in_a_pair_without_colour():
    state = _ex2_turn2(activate=True)
    assert state.observation(A)["gold_in_roll"] is True
    state = roll(state, "R=5 G=5 B=4 O=3 Au=6")
    assert state.observation(B)["gold"] == 6
    assert state.legal_actions(A) == plays("R11 B10 O9 G8 B4")


def test_ex2_without_the_golden_die():
    state = _ex2_turn2(activate=False)
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


# -- EX-10 ------------------------------------------------------------------------------------

EX10_HANDS = ("R2 R3 G4 G5 B3 B4 O7 O8 R9 G10", "R12 G12 B12 O12 R11 G11 B11 O11 R1 G1")


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
    state = _ex2_turn2(activate=True)
    assert state.chance_label(5) == "red die: 5"
    for outcome in (5, 5, 4):  # R, G, B land; O and the golden die are still to roll
        state = state.apply_chance(outcome)
    assert state.chance_label(3) == "orange die: 3"
    assert state.apply_chance(3).chance_label(6) == "golden die: 6"


# -- invariants over random games; hidden information ---------------------------------------------


def _check_invariants(state) -> None:
    """Every card in use is in exactly one place; knowledge is true; hands + columns = 10."""
    places = [c for hand in state.hands for c in hand] + [c for col in state.columns for c in col]
    places += [c for c in range(60) if state.discard >> c & 1]
    assert len(places) == len(set(places))
    assert set(places) <= set(state.in_deck)
    assert queries.draw_pile_size(state) == bin(queries.draw_pile(state)).count("1")
    assert state.kind is _KIND_BY_PHASE[state.phase], "the stored kind follows the phase"
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
