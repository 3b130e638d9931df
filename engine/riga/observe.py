"""What one seat sees (rules/riga.md §2.6): the public state, its own hand, recent events.

The field list is documented in the package docstring (engine/riga/__init__.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.riga import scoring as sc
from engine.riga import tables as t
from engine.riga.phases import DISCARD, OVER, PHASE_NAMES, SEASON_NAMES

if TYPE_CHECKING:
    from engine.riga.state import RigaState

# Observations are built once per decision by the match runner, so the helpers below map through
# bound `__getitem__`s and zips instead of calling per item; every list and dict they return is
# new, so a caller may change what it gets.
_code = tuple(card.code for card in t.CARDS).__getitem__
_good_name = t.GOOD_NAMES.__getitem__
_tile_name = t.TILE_NAMES.__getitem__
# The codes of the spent credits for each bit mask of `used` (CREDIT_CARDS order).
_USED_CODES = tuple(
    tuple(t.CARDS[c].code for i, c in enumerate(t.CREDIT_CARDS) if used >> i & 1) for used in range(16)
)
# How the log events that hold tuples of names (goods taken or paid, credits paid) become JSON
# lists, by event name (state.py logs them); every other event is flat.
_NESTED_EVENTS = {
    "take_row": lambda e: [e[0], e[1], e[2], list(e[3])],  # seat, row slot, goods
    "build": lambda e: [e[0], e[1], e[2], list(e[3]), list(e[4])],  # seat, card, goods, credits
}


def _codes(cards: tuple[int, ...]) -> list[str]:
    return list(map(_code, cards))


def _goods(counts: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(t.GOOD_NAMES, counts))


def _events(log: tuple[tuple, ...]) -> list[list[Any]]:
    """Log events are flat tuples whose items may be tuples of strings (one level deep)."""
    return [_NESTED_EVENTS.get(event[0], list)(event) for event in log]


def observation(s: RigaState, seat: int) -> dict[str, Any]:
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
        "scores": s.totals() if over else s.public_scores(),
        "options": {"use_riga_buildings": s.use_riga, "use_grand_master": s.use_gm},
        "rows": [list(map(_good_name, row)) for row in s.rows],
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
        "my_cards_under_deck": [_code(c) for c, owner in s.bbottom if owner == seat],
        "start_choice": _codes(s.choice) if s.choice and s.queue and s.queue[0] == seat else [],
        "start_choice_size": len(s.choice),
        "draws_pending": s.need,
        "tiles_turned_over": list(map(_tile_name, s.flipped)),
        "tiles_drawn": list(map(_tile_name, s.drawn)),
        "pending_build": _pending(s),
        "recent_events": _events(s.log),
    }
    if s.phase == DISCARD and s.queue:
        active = s.queue[0]
        obs["discards_left"] = s.hand_size(active) - sc.hand_limit(s.tableau[active])
    if over:
        obs["final"] = {"totals": s.totals(), "money": [s.money(p) for p in range(s.num_players)], "ranks": s._ranks()}
    return obs


def _player(s: RigaState, p: int, over: bool) -> dict[str, Any]:
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
        info["money"] = s.money(p)
    return info


def _pending(s: RigaState) -> dict[str, Any] | None:
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
