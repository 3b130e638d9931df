"""What one seat sees (rules/riga.md §2.6): the public state, its own hand, recent events; how
chance outcomes read (`chance_label`) and who sees them and the actions (`chance_visibility`,
`action_visibility`).

The field list is documented in the package docstring (engine/riga/__init__.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.riga import components as t
from engine.riga import queries
from engine.riga import scoring as sc
from engine.riga.actions import card_words
from engine.riga.phases import DISCARD, KEEP, OVER, PHASE_NAMES, SEASON_NAMES
from engine.riga.state import RigaData

# Observations are built once per decision by the match runner, so the helpers below index
# tuples in comprehensions (cheaper than calls per item, or map over a bound __getitem__) and
# zip; every list and dict they return is new, so a caller may change what it gets.
_CODES = tuple(card.code for card in t.CARDS)
_GOOD_NAMES = t.GOOD_NAMES
_TILE_NAMES = t.TILE_NAMES
# The codes of the spent credits for each bit mask of `used` (CREDIT_CARDS order).
_USED_CODES = tuple(
    tuple(t.CARDS[c].code for i, c in enumerate(t.CREDIT_CARDS) if used >> i & 1) for used in range(16)
)


def _codes(cards: tuple[int, ...]) -> list[str]:
    return [_CODES[c] for c in cards]


def _goods(counts: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(t.GOOD_NAMES, counts))


def _events(log: tuple[tuple[Any, ...], ...]) -> list[list[Any]]:
    """Log events are flat tuples whose items may be tuples of strings (one level deep): the
    goods of "take_row" (seat, slot, goods), the goods and credits of "build" (seat, card, goods,
    credits), as flow.py logs them; every other event is flat."""
    return [
        [e[0], e[1], e[2], list(e[3]), list(e[4])] if e[0] == "build"
        else [e[0], e[1], e[2], list(e[3])] if e[0] == "take_row"
        else list(e)
        for e in log
    ]  # fmt: skip


def observation(s: RigaData, seat: int) -> dict[str, Any]:
    """The information state of `seat`: everything public plus its own secrets."""
    over = s.phase == OVER
    obs: dict[str, Any] = {
        "seat": seat,
        "phase": PHASE_NAMES[s.phase],
        "season": SEASON_NAMES[s.season],
        "year": s.year,
        "years": s.years,
        "start_player": s.start,
        "turn_queue": list(s.queue),
        "active": s.active,
        "builds_this_turn": s.builds,
        "scores": queries.totals(s) if over else queries.public_scores(s),
        "options": {"use_riga_buildings": s.use_riga, "use_grand_master": s.use_gm},
        "rows": [[_GOOD_NAMES[g] for g in row] for row in s.rows],
        "display_new": _codes(s.dnew),
        "display_old": _codes(s.dold),
        "removed_buildings": _codes(s.removed),
        "goods_deck_size": sum(s.gdeck),
        "building_deck_size": len(s.bpool) + len(s.bbottom),
        "building_deck_bottom_owners": [owner for _, owner in s.bbottom],
        "goods_discard": _goods(s.gdisc),
        "tiles": [
            {"tile": t.TILE_NAMES[tile], "side": t.SIDE_NAMES[side], "holder": holder}
            for tile, side, holder in s.tiles
        ],
        "players": [_player(s, p, over) for p in range(s.num_players)],
        "hand_goods": _goods(s.hgoods[seat]),
        "hand_buildings": _codes(s.hbuild[seat]),
        "my_cards_under_deck": [_CODES[c] for c, owner in s.bbottom if owner == seat],
        "start_choice": _codes(s.choice) if s.choice and s.queue and s.queue[0] == seat else [],
        "start_choice_size": len(s.choice),
        "draws_pending": s.need,
        "tiles_turned_over": [_TILE_NAMES[tile] for tile in s.flipped],
        "tiles_drawn": [_TILE_NAMES[tile] for tile in s.drawn],
        "pending_build": _pending(s),
        "recent_events": _events(s.log),
    }
    if s.phase == DISCARD and s.queue:
        active = s.queue[0]
        obs["discards_left"] = queries.hand_size(s, active) - sc.hand_limit(s.tableau[active])
    if over:
        money = [queries.money(s, p) for p in range(s.num_players)]
        obs["final"] = {"totals": queries.totals(s), "money": money, "ranks": queries.ranks(s)}
    return obs


def _player(s: RigaData, p: int, over: bool) -> dict[str, Any]:
    tableau, hand = s.tableau[p], s.hbuild[p]
    cities, symbols, vp = sc.tableau_counts(tableau)
    secret = s.sbuild[p]
    public_buildings = tuple(c for c in hand if c not in secret) if secret else hand
    info: dict[str, Any] = {
        "seat": p,
        "tableau": _codes(tableau),
        "credits_used": list(_USED_CODES[s.used[p]]),
        "riga_supply": _codes(s.rsupply[p]),
        "city_counts": dict(zip(t.CITY_NAMES, cities)),
        "knights": symbols[t.KNIGHT],
        "merchants": symbols[t.MERCHANT],
        "building_vp": vp,
        "hand_limit": sc.hand_limit(tableau),
        "goods_in_hand": sum(s.hgoods[p]),
        "buildings_in_hand": len(hand),
        "known_goods": _goods(s.hgoods[p] if over else s.kgoods[p]),
        "known_buildings": _codes(hand if over else public_buildings),
    }
    if over:
        info["money"] = queries.money(s, p)
    return info


def _pending(s: RigaData) -> dict[str, Any] | None:
    if s.pending is None:
        return None
    card, paid = s.pending
    seat = s.queue[0]
    return {
        "card": t.CARDS[card].code,
        "cost": sc.build_cost(s.tableau[seat], card),
        "paid_goods": _goods(paid[:4]),
        "paid_credits": [t.CARDS[t.CREDIT_CARDS[i]].code for i in range(4) if paid[4 + i]],
    }


# -- chance labels and visibility --------------------------------------------------------------


def _seat(seat: int) -> str:
    return f"seat {seat}"


# What each chance node draws, by phase name: what the label says and how the outcome is named.
_CHANCE_NODES: dict[str, tuple[str, Callable[[int], str]]] = {
    "start_player": ("start player", _seat),
    "tile_flip": ("Grand Master tile turned over", t.TILE_NAMES.__getitem__),
    "tile_draw": ("Grand Master tile to the supply", t.TILE_NAMES.__getitem__),
    "setup_goods": ("starting goods card", t.GOOD_NAMES.__getitem__),
    "spring_rows": ("goods card for a row", t.GOOD_NAMES.__getitem__),
    "extra_draw": ("extra goods card", t.GOOD_NAMES.__getitem__),
    "setup_buildings": ("start building card", card_words),
    "spring_display": ("building card", card_words),
}


# The chance nodes whose card goes face down to the drawing seat's hand (rules §2.6).
PRIVATE_DRAWS = frozenset({"setup_buildings", "extra_draw"})


def hidden_chance_label(s: RigaData) -> str:
    """A chance node without its outcome, for a viewer who may not see it: "start building card
    for seat 1" (the seat drawing, where a seat draws)."""
    phase, seat = PHASE_NAMES[s.phase], s.active
    what = _CHANCE_NODES[phase][0]
    return f"{what} for seat {seat}" if phase in PRIVATE_DRAWS or phase == "setup_goods" else f"{what} drawn"


def chance_label(s: RigaData, outcome: int) -> str:
    """A short stable label for a chance outcome at this node: "goods card for a row: wine"."""
    what, name = _CHANCE_NODES[PHASE_NAMES[s.phase]]
    return f"{what}: {name(outcome)}"


def chance_visibility(s: RigaData, outcome: int) -> frozenset[int] | None:
    return frozenset({s.queue[0]}) if PHASE_NAMES[s.phase] in PRIVATE_DRAWS else None


def action_visibility(s: RigaData, seat: int, action: int) -> frozenset[int] | None:
    return frozenset({seat}) if s.phase == KEEP else None  # which start building: §2.6


def hidden_action_label(s: RigaData, seat: int) -> str:
    return f"seat {seat} keeps a start building card"
