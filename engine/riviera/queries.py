"""Questions about a Riviera state that change nothing: legality (§3), dice, powers, piles."""

from __future__ import annotations

from typing import Final

from engine.riviera.actions import (
    ACTIVATE,
    ADJUST,
    CRASH,
    DISCARD,
    GIVE,
    LAST_CHANCE,
    MORE,
    PASS,
    PLAY,
    STOP,
    SWAP_WITH,
)  # fmt: skip
from engine.riviera.components import GOLD, HAND_SIZE, NUM_COLOURS, VALUES, value_of
from engine.riviera.phases import (
    ADJUST_DICE,
    BONUS,
    CHOOSE,
    FALLBACK_DISCARD,
    IN,
    POWERS,
    STOP_OR_MORE,
    SWAP_GIVE,
)  # fmt: skip
from engine.riviera.state import RivieraData

POWER_VALUES: Final = (2, 10, 11)  # the powers decided at POWERS; 9 is queued automatically (§4.3)


def colours_in_use(s: RivieraData) -> tuple[int, ...]:
    return tuple(c for c in range(NUM_COLOURS) if s.in_use >> (c * VALUES) & 1)


def rolled_dice(s: RivieraData) -> tuple[int, ...]:
    """The dice in this turn's roll: the coloured dice in use, plus gold if an 11 switched it on."""
    return s.colours + (GOLD,) if s.gold_on else s.colours


def dice_to_roll(s: RivieraData) -> list[int]:
    """The dice of this turn's roll still to land, in rolling order (colour order, then gold)."""
    return [d for d in rolled_dice(s) if not s.dice[d]]


def dealt_to(s: RivieraData) -> int:
    """The seat the next card of the deal goes to: seat 0 gets the first 10 cards, and so on."""
    return (len(s.in_deck) - len(s.deck)) // HAND_SIZE


def in_from_holder(s: RivieraData) -> tuple[int, ...]:
    """The seats still IN, clockwise from the Holder (the order of every one-at-a-time phase)."""
    n = s.num_players
    seats = ((s.holder + i) % n for i in range(n))
    return tuple(p for p in seats if s.status[p] == IN)


def legal_cards(s: RivieraData, p: int) -> list[int]:
    """The cards of p's hand that the dice allow (§3.2): a single die, or a pair of two dice.

    Only dice available to p count: a coloured die reserved by someone else is off-limits, even
    as a partner; the golden die counts only as a partner and never supplies a colour.
    """
    dice, reserved = s.dice, s.reserved
    if any(reserved):
        avail = tuple(c for c in s.colours if not reserved[c] or reserved[c] >> p & 1)
    else:  # the common case, without a generator: nobody reserved a die this turn
        avail = s.colours
    key = (dice, avail, s.gold_on)
    ok = _PLAYABLE.get(key)
    if ok is None:
        if len(_PLAYABLE) > 50_000:  # keep the memo small over long runs
            _PLAYABLE.clear()
        ok = _PLAYABLE[key] = _playable_mask(dice, avail, s.gold_on)
    return [card for card in s.hands[p] if ok >> card & 1]


# A pure function of (dice, available colours, gold): memoised, as its inputs are few.
_PLAYABLE: dict[tuple[tuple[int, ...], tuple[int, ...], bool], int] = {}


def _playable_mask(dice: tuple[int, ...], avail: tuple[int, ...], gold_on: bool) -> int:
    """The card mask a player with these available dice may play (§3.2)."""
    partners = [dice[c] for c in avail] + ([dice[GOLD]] if gold_on else [])
    ok = 0
    for i, colour in enumerate(avail):
        value = dice[colour]
        base = colour * VALUES - 1
        ok |= 1 << (base + value)
        for j, other in enumerate(partners):
            if j != i:
                ok |= 1 << (base + value + other)
    return ok


def power_card(s: RivieraData, p: int) -> int:
    """The card 2, 10 or 11 that p played this turn, or -1 (a player has at most one, §4.0)."""
    for card in s.played[p]:
        if card % VALUES + 1 in POWER_VALUES:
            return card
    return -1


def swap_targets(s: RivieraData, p: int) -> list[int]:
    """Card 10 targets: opponents still IN (a Last Chance user this turn included, §4.4)."""
    return [q for q in range(s.num_players) if q != p and s.status[q] == IN]


def draw_pile(s: RivieraData) -> int:
    """The draw pile as a card mask: every card in use that is in no hand, column or discard."""
    placed = s.discard
    for hand in s.hands:
        for card in hand:
            placed |= 1 << card
    for column in s.columns:
        for card in column:
            placed |= 1 << card
    return s.in_use & ~placed


def draw_pile_size(s: RivieraData) -> int:
    """The number of cards in the draw pile, without listing them: every card in use is in
    exactly one place (a hand, a column, the discard pile or the draw pile), so it is what the
    others leave. Observations show it at every decision; `draw_pile` walks every card."""
    placed = sum(map(len, s.hands)) + sum(map(len, s.columns)) + s.discard.bit_count()
    return s.in_use.bit_count() - placed


def fallback_size(s: RivieraData, p: int) -> int:
    """Card 10 with no opponent IN: k = min(2, hand, draw pile) cards out and in (§4.4)."""
    return min(2, len(s.hands[p]), bin(draw_pile(s)).count("1"))


def swap_size(s: RivieraData) -> int:
    """Card 10 swap: k = min(2, own hand, target's hand) (§4.4)."""
    return min(2, len(s.hands[s.queue[0]]), len(s.hands[s.target]))


def power_available(s: RivieraData, p: int) -> bool:
    card = power_card(s, p)
    if card < 0:
        return False
    if card % VALUES + 1 != 10:
        return True
    return bool(swap_targets(s, p)) or fallback_size(s, p) > 0


def ended_by_grand_slam(s: RivieraData) -> bool:
    return s.slam


# -- what the contract asks --------------------------------------------------------------------


def legal_actions(s: RivieraData, seat: int) -> list[int]:
    """The sorted legal actions of acting `seat` (State._legal_actions, before its memo)."""
    phase = s.phase
    if phase == CHOOSE:
        cards = legal_cards(s, seat)
        if cards:
            return [PLAY + c for c in cards]
        return [LAST_CHANCE, CRASH] if not s.lc_used[seat] else [CRASH]
    if phase == BONUS:
        return [PLAY + c for c in legal_cards(s, seat)] + [PASS]
    if phase == STOP_OR_MORE:
        return [STOP, MORE]
    if phase == ADJUST_DICE:
        return _adjust_actions(s)
    if phase == POWERS:
        return _power_actions(s, seat)
    if phase == SWAP_GIVE:
        return [GIVE + c for c in s.hands[seat] if c not in s.picked]
    if phase == FALLBACK_DISCARD:
        return [DISCARD + c for c in s.hands[seat] if c not in s.picked]
    raise AssertionError(f"no decisions in phase {phase}")


def _adjust_actions(s: RivieraData) -> list[int]:
    dice = [d for d in rolled_dice(s) if not s.modified >> d & 1]
    return sorted([PASS] + [ADJUST + 2 * d for d in dice] + [ADJUST + 2 * d + 1 for d in dice])


def _power_actions(s: RivieraData, seat: int) -> list[int]:
    value = value_of(power_card(s, seat))
    if value != 10:
        return [PASS, ACTIVATE]
    targets = swap_targets(s, seat)
    if targets:
        return [PASS] + [SWAP_WITH + t for t in targets]
    return [PASS] + [DISCARD + c for c in s.hands[seat]]


def returns(s: RivieraData) -> list[float]:
    """Stars; a Grand Slam winner gets BGA's display score max(100, best other + 1) (§5.4)."""
    scores = [float(x) for x in s.scores]
    if s.winners and ended_by_grand_slam(s):
        others = [x for p, x in enumerate(scores) if not s.winners >> p & 1]
        top = max(100.0, max(others, default=0.0) + 1)
        return [top if s.winners >> p & 1 else x for p, x in enumerate(scores)]
    return scores
