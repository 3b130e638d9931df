"""Action ids of Lost Cities: Rivals and their labels (the table is in the package docstring)."""

from __future__ import annotations

from engine.core import UnknownActionError
from engine.lost_cities_rivals.components import NUM_KINDS, TOTAL_COINS, card_words

UNCOVER = 0
PASS = 1
BID_BASE = 2  # BID(b) = BID_BASE + b - 1 for b in 1..36: opening bid or raise to b coins
MAX_BID = TOTAL_COINS
PLACE_BASE = BID_BASE + MAX_BID  # 38: PLACE(kind) = 38 + kind
END_TAKE = PLACE_BASE + NUM_KINDS  # 88
BOX_BASE = END_TAKE + 1  # 89: BOX(kind) = 89 + kind
SKIP_BOX = BOX_BASE + NUM_KINDS  # 139
NUM_ACTIONS = SKIP_BOX + 1  # 140


def bid_action(coins: int) -> int:
    """The action id of bidding `coins` (opening an auction or raising to that amount)."""
    return BID_BASE + coins - 1


def action_label(action: int) -> str:
    """Stable label of an action id in words: "uncover a card", "bid 3", "place red 7", ..."""
    if action == UNCOVER:
        return "uncover a card"
    if action == PASS:
        return "pass"
    if BID_BASE <= action < PLACE_BASE:
        return f"bid {action - BID_BASE + 1}"
    if PLACE_BASE <= action < END_TAKE:
        return f"place {card_words(action - PLACE_BASE)}"
    if action == END_TAKE:
        return "take no more cards"
    if BOX_BASE <= action < SKIP_BOX:
        return f"box {card_words(action - BOX_BASE)}"
    if action == SKIP_BOX:
        return "box nothing"
    raise UnknownActionError(f"action {action!r} is not in range(0, {NUM_ACTIONS})")
