"""What a seat sees in Lost Cities: Rivals (rules §5): observations, chance labels, visibility.

Everything is public except the order of the undrawn cards, which nobody knows (the engine draws
them at chance nodes), so every seat sees the whole state (hidden.py rebuilds it exactly from an
observation). The field list is in the package docstring.
"""

from __future__ import annotations

from typing import Any

from engine.core import NodeKind
from engine.lost_cities_rivals import components as C
from engine.lost_cities_rivals import queries
from engine.lost_cities_rivals.phases import DEAL, NO_SEAT, OVER, PHASE_NAMES
from engine.lost_cities_rivals.state import RivalsData

_LABELS = C.LABELS
_COLOURS = C.COLOURS


def observation(state: RivalsData, seat: int) -> dict[str, Any]:
    """The JSON-able view of `state` for `seat` (identical for every seat but the "seat" field).

    Built for speed (the match runner asks for one per decision): tuples indexed in
    comprehensions and zips instead of per-item calls; every list and dict is new, so a caller
    may change what it gets.
    """
    pile = min(state.revealed // C.PILE_SIZE, C.NUM_PILES - 1)
    return {
        "seat": seat,
        "phase": PHASE_NAMES[state.phase],
        "num_players": state.num_players,
        "display_limit": state.display_limit,
        "start_player": state.start_player,
        "turn_player": state.turn,
        "to_act": queries.actor(state) if state.kind is NodeKind.DECISION else None,
        "coins": list(state.coins),
        "centre": state.centre,
        "scores": queries.scores(state),
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
        "winners": queries.winners(state) if state.phase == OVER else None,
    }


def _expeditions(state: RivalsData, seat: int) -> dict[str, dict[str, Any]]:
    base = seat * C.NUM_COLOURS
    wagers = state.wagers[base : base + C.NUM_COLOURS]
    numbers = state.numbers[base : base + C.NUM_COLOURS]
    return {
        colour: {"wagers": count, "numbers": list(values)}
        for colour, count, values in zip(C.COLOURS, wagers, numbers)
    }


def _unseen_labels(state: RivalsData) -> dict[str, int]:
    """{card: count} of the unseen cards, made once per reveal: states between two reveals share
    the `unseen` tuple, and the memo (copied along with the state) holds it to check that."""
    memo = state.unseen_memo
    if memo is None or memo[0] is not state.unseen:
        memo = state.unseen_memo = (state.unseen, {label: n for label, n in zip(C.LABELS, state.unseen) if n})
    return memo[1]


def _auction(state: RivalsData) -> dict[str, Any] | None:
    if state.starter == NO_SEAT:
        return None
    return {
        "starter": state.starter,
        "high_bid": state.high_bid,
        "high_bidder": state.high_bidder,
        "in": list(state.still_in),
    }


def chance_label(state: RivalsData, outcome: int) -> str:
    if state.phase == DEAL:
        return f"seat {queries.seat_dealt_to(state)} draws the {C.COLOUR_WORDS[outcome]} starting wager"
    return f"revealed {C.card_words(outcome)}"


def chance_visibility(state: RivalsData, outcome: int) -> frozenset[int] | None:
    return None  # rules §5: starting wagers lie face up, drawn cards go to the open display


def hidden_chance_label(state: RivalsData) -> str:
    return f"seat {queries.seat_dealt_to(state)} draws a starting wager" if state.phase == DEAL else "a card revealed"
