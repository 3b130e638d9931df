"""Riviera test helpers: positions reached through explicit chance outcomes and actions.

The tests are the worked examples EX-1 … EX-12 of rules/riviera.md §8 and the rules around them.
Positions are reached through explicit chance outcomes (the removed colour and the Holder are
fixed by options, each dealt card and each die is a chance outcome) and actions. Seat 0 is A,
seat 1 is B, and so on. Where an example's position cannot arise from a deal (hands shorter
than play allows, scores carried from earlier rounds), the test says so and injects just that.
"""

from __future__ import annotations

import random

from engine.core import NodeKind, sample_chance
from engine.riviera import Riviera
from engine.riviera.actions import ACTIVATE, MORE, PASS
from engine.riviera.components import parse_card

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


# -- EX-2 -------------------------------------------------------------------------------------

EX2_A = "O6 R11 B10 O9 G12 R6 G8 B4 R7 R3"  # R7 is played on turn 1, R3 is never legal


EX2_B = "O11 G2 G3 G4 G5 B2 B3 O2 O3 R2"


def ex2_turn2(activate: bool):
    state = deal(new_state(2), EX2_A, EX2_B)
    state = roll(state, "R=6 G=1 B=1 O=5")
    state = act(state, A=parse_card("R7"), B=parse_card("O11"))
    assert state.acting_players() == (B,) and state.observation(A)["phase"] == "powers"
    state = act(state, B=ACTIVATE if activate else PASS)
    state = everyone(state, MORE)
    return state


# -- EX-10 ------------------------------------------------------------------------------------

EX10_HANDS = ("R2 R3 G4 G5 B3 B4 O7 O8 R9 G10", "R12 G12 B12 O12 R11 G11 B11 O11 R1 G1")
