"""Hidden information in Lost Cities: Rivals (rules §5): there is none that exists yet.

Everything is public except the order of the undrawn cards, which nobody knows (the engine draws
them at chance nodes): `resample` (State.resample) returns the state itself, and `sample_state`
(LostCitiesRivals.sample_state) rebuilds the exact state from any seat's observation.

The state to fill in comes from the caller, game.py (a new RivalsState): this module works on the
data of state.py and never names the class above it.
"""

from __future__ import annotations

import random
from typing import Any

from engine.lost_cities_rivals import components as C
from engine.lost_cities_rivals import flow
from engine.lost_cities_rivals.phases import BID, NO_SEAT, PHASE_NAMES
from engine.lost_cities_rivals.state import RivalsData


def resample(state: RivalsData, known_to: frozenset[int], rng: random.Random) -> RivalsData:
    return state  # nothing is hidden from one seat that another knows: future draws are chance


def sample_state(initial: RivalsData, obs: dict[str, Any], rng: random.Random) -> RivalsData:
    """The exact state an observation describes (nothing is hidden from a seat, see above):
    `initial`, a new game of the observation's seats and options, filled in (`rng` is unused)."""
    state = initial
    state.phase = PHASE_NAMES.index(obs["phase"])
    state.turn = obs["turn_player"]
    state.coins = tuple(obs["coins"])
    state.centre = obs["centre"]
    state.revealed = obs["cards_revealed"]
    unseen = [0] * C.NUM_KINDS
    for label, count in obs["unseen"].items():
        unseen[C.parse_card(label)] = count
    state.unseen = tuple(unseen)
    state.display = tuple(C.parse_card(label) for label in obs["display"])
    state.box = tuple(C.parse_card(label) for label in obs["box"])
    state.wagers = tuple(e[c]["wagers"] for e in obs["expeditions"] for c in C.COLOURS)
    state.numbers = tuple(tuple(e[c]["numbers"]) for e in obs["expeditions"] for c in C.COLOURS)
    state.starting = tuple(tuple(map(C.COLOURS.index, got)) for got in obs["starting_wagers"])
    state.wager_bottom = tuple(map(C.COLOURS.index, obs["starting_wager_bottom"]))
    auction = obs["auction"]
    if auction is not None:
        state.starter, state.high_bid = auction["starter"], auction["high_bid"]
        state.high_bidder, state.still_in = auction["high_bidder"], tuple(auction["in"])
        state.to_act = obs["to_act"] if state.phase == BID else NO_SEAT
    flow.count_points(state)
    return state._settle_kind()
