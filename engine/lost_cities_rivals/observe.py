"""Observations of Lost Cities: Rivals, and the state rebuilt from one (rules §5).

Everything is public except the order of the undrawn cards, which nobody knows (the engine draws
them at chance nodes), so every seat sees the whole state and `state_from_observation` rebuilds it
exactly. The field list is in the package docstring.
"""

from __future__ import annotations

from typing import Any

from engine.lost_cities_rivals import cards as C
from engine.lost_cities_rivals import state as S


_LABELS = C.LABELS
_COLOURS = C.COLOURS


def observation(state: S.RivalsState, seat: int) -> dict[str, Any]:
    """The JSON-able view of `state` for `seat` (identical for every seat but the "seat" field).

    Built for speed (the match runner asks for one per decision): tuples indexed in
    comprehensions and zips instead of per-item calls; every list and dict is new, so a caller
    may change what it gets.
    """
    pile = min(state.revealed // C.PILE_SIZE, C.NUM_PILES - 1)
    return {
        "seat": seat,
        "phase": S.PHASE_NAMES[state.phase],
        "num_players": state.num_players,
        "display_limit": state.display_limit,
        "start_player": state.start_player,
        "turn_player": state.turn,
        "to_act": state.actor() if state.kind is S.NodeKind.DECISION else None,
        "coins": list(state.coins),
        "centre": state.centre,
        "scores": state.scores(),
        "cards_revealed": state.revealed,
        "pile": pile + 1,
        "pile_cards_left": (pile + 1) * C.PILE_SIZE - state.revealed,
        "piles_to_come": C.NUM_PILES - 1 - pile,
        "display": [_LABELS[k] for k in state.display],
        "box": [_LABELS[k] for k in state.box],
        "expeditions": [_expeditions(state, p) for p in range(state.num_players)],
        "starting_wagers": [[_COLOURS[c] for c in got] for got in state.starting],
        "starting_wager_bottom": [_COLOURS[c] for c in state.wager_bottom],
        "unseen": dict(_unseen_labels(state)),
        "auction": _auction(state),
        "winners": state.winners() if state.phase == S.OVER else None,
    }


def _expeditions(state: S.RivalsState, seat: int) -> dict[str, dict[str, Any]]:
    base = seat * C.NUM_COLOURS
    wagers = state.wagers[base : base + C.NUM_COLOURS]
    numbers = state.numbers[base : base + C.NUM_COLOURS]
    return {
        colour: {"wagers": count, "numbers": list(values)}
        for colour, count, values in zip(C.COLOURS, wagers, numbers)
    }


def _unseen_labels(state: S.RivalsState) -> dict[str, int]:
    """{card: count} of the unseen cards, made once per reveal: states between two reveals share
    the `unseen` tuple, and the memo (copied along with the state) holds it to check that."""
    memo = state.unseen_memo
    if memo is None or memo[0] is not state.unseen:
        memo = state.unseen_memo = (state.unseen, {label: n for label, n in zip(C.LABELS, state.unseen) if n})
    return memo[1]


def _auction(state: S.RivalsState) -> dict[str, Any] | None:
    if state.starter == S.NO_SEAT:
        return None
    return {
        "starter": state.starter,
        "high_bid": state.high_bid,
        "high_bidder": state.high_bidder,
        "in": list(state.still_in),
    }


def state_from_observation(obs: dict[str, Any]) -> S.RivalsState:
    """The exact state an observation describes (nothing is hidden from a seat, see above)."""
    players = obs["num_players"]
    state = S.RivalsState(players, obs["display_limit"], obs["start_player"])
    state.phase = S.PHASE_NAMES.index(obs["phase"])
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
        state.to_act = obs["to_act"] if state.phase == S.BID else S.NO_SEAT
    state.count_points()
    return state._settle_kind()
