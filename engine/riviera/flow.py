"""Riviera's phase transitions (rules §2.2, §4, §5), applied to a fresh copy of a state.

Every function here takes a state `s` that the caller has just copied and replaces its fields;
no field value (tuples, ints) is ever mutated in place, so the original state stays intact.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping
from typing import Any, Final

# The module is near the 500-line bound: its imports stay packed.
# isort: off
from engine.riviera.actions import (
    ACTIVATE, ADJUST, CRASH, DISCARD, GIVE, LAST_CHANCE, PASS, PLAY, STOP, SWAP_WITH,
)  # fmt: skip
from engine.riviera.components import HAND_SIZE, NUM_COLOURS, STARS, VALUES, mask_of, turned
from engine.riviera.phases import (
    ADJUST_DICE, BONUS, CHOOSE, CRASHED, DEAL, DRAW, FALLBACK_DISCARD, GAME_OVER, HOLDER_DRAW, IN,
    POWERS, REMOVED_DRAW, ROLL, STOPPED, STOP_OR_MORE, SWAP_GIVE, SWAP_PICK,
)  # fmt: skip
from engine.riviera.queries import (
    colours_in_use, dice_to_roll, draw_pile, fallback_size, in_from_holder, legal_cards,
    power_available, power_card, swap_size,
)  # fmt: skip
from engine.riviera.state import RivieraData
# isort: on

COLOUR_MASK: Final = (1 << VALUES) - 1
ALL_CARDS: Final = (1 << (NUM_COLOURS * VALUES)) - 1


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _cards_mask(cards: Iterable[int]) -> int:
    return mask_of(cards)


# -- chance -------------------------------------------------------------------------------------


def chance_options(s: RivieraData) -> list[int]:
    phase = s.phase
    if phase == DEAL:
        return list(s.deck)
    if phase == ROLL:
        return [1, 2, 3, 4, 5, 6]
    if phase == SWAP_PICK:
        return [c for c in s.hands[s.target] if c not in s.taken]
    if phase == DRAW:
        return _bit_list(draw_pile(s))
    if phase == REMOVED_DRAW:
        return list(range(NUM_COLOURS))
    if phase == HOLDER_DRAW:
        return list(range(s.num_players))
    raise AssertionError(f"phase {phase} is not a chance node")


def _bit_list(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def apply_chance(s: RivieraData, outcome: int) -> None:
    phase = s.phase
    if phase == DEAL:
        deal_card(s, outcome)
    elif phase == ROLL:
        roll_die(s, outcome)
    elif phase == SWAP_PICK:
        s.taken += (outcome,)
        if len(s.taken) == swap_size(s):
            execute_swap(s)
    elif phase == DRAW:
        p = s.queue[0]
        s.hands = _set(s.hands, p, tuple(sorted(s.hands[p] + (outcome,))))
        s.draws_left -= 1
        if not s.draws_left:
            end_power(s)
    elif phase == REMOVED_DRAW:
        remove_colour(s, outcome)
        after_colours(s)
    else:  # HOLDER_DRAW
        s.holder = outcome
        begin_round(s)


# -- game and round setup (§1.4, §1.5) ----------------------------------------------------------


def start_game(s: RivieraData) -> None:
    rules = s.rules
    if rules.removed == -2:
        s.in_use = ALL_CARDS
        s.colours = colours_in_use(s)
        s.in_deck = tuple(_bit_list(s.in_use))
        after_colours(s)
    elif rules.removed >= 0:
        remove_colour(s, rules.removed)
        after_colours(s)
    else:
        s.colours = ()
        s.phase = REMOVED_DRAW


def remove_colour(s: RivieraData, colour: int) -> None:
    s.removed = colour
    s.in_use = ALL_CARDS & ~(COLOUR_MASK << (colour * VALUES))
    s.colours = colours_in_use(s)
    s.in_deck = tuple(_bit_list(s.in_use))


def after_colours(s: RivieraData) -> None:
    if s.rules.start >= 0:
        s.holder = s.rules.start
        begin_round(s)
    else:
        s.phase = HOLDER_DRAW


def begin_round(s: RivieraData) -> None:
    """Collect every card, clear the round state; the Token and Last Chance use carry over."""
    n = s.num_players
    s.round_no += 1
    s.turn_no = 0
    s.hands = s.columns = s.played = ((),) * n
    s.status = (IN,) * n
    s.discard = 0
    s.known = (0,) * (n * n)
    s.known_disc = (0,) * n
    s.pend_gold, s.pend_res, s.pend_adj = 0, (0,) * NUM_COLOURS, 0
    s.dice, s.gold_on, s.reserved, s.modified = (0,) * 6, False, (0,) * NUM_COLOURS, 0
    s.adjusters, s.queue, s.eligible, s.events = (), (), 0, ()
    s.deck = s.in_deck
    s.phase = DEAL


def deal_card(s: RivieraData, card: int) -> None:
    """Deal the next card: seat 0 gets the first 10, seat 1 the next 10, and so on. When the
    deal is complete and some hand holds more than `maxSameColourInHand` cards of one colour,
    the whole deal is silently redone (§1.5 step 3)."""
    # Most nodes of a game are dealt cards: written for speed (no helper calls; tuples changed
    # through lists, two new objects each where slicing and joining made more).
    rest = list(s.deck)
    del rest[bisect_left(rest, card)]  # the deck is sorted
    s.deck = tuple(rest)
    dealt = len(s.in_deck) - len(rest)  # this card included
    seat = (dealt - 1) // HAND_SIZE  # queries.dealt_to before this card
    hands, hand = list(s.hands), list(s.hands[seat])
    insort(hand, card)  # sorted(hand + (card,))
    hands[seat] = tuple(hand)
    s.hands = tuple(hands)
    if dealt < HAND_SIZE * s.num_players:
        return
    s.deck = ()
    if all(_spread_ok(hand, s.rules.max_same) for hand in s.hands):
        begin_turn(s)
    else:
        s.hands = ((),) * s.num_players
        s.deck = s.in_deck


def _spread_ok(hand: tuple[int, ...], limit: int) -> bool:
    counts = [0] * NUM_COLOURS
    for card in hand:
        counts[card // VALUES] += 1
    return max(counts) <= limit


# -- the turn (§2.2) ----------------------------------------------------------------------------


def begin_turn(s: RivieraData) -> None:
    """ROLL step (a): apply the pending 2/9/11 effects whose owner is IN, then clear them."""
    n = s.num_players
    s.turn_no += 1
    live = sum(1 << p for p in range(n) if s.status[p] == IN or not s.rules.require_in)
    s.gold_on = bool(s.pend_gold & live)
    s.reserved = tuple(m & live for m in s.pend_res)
    order = ((s.holder + i) % n for i in range(n))
    s.adjusters = tuple(p for p in order if (s.pend_adj & live) >> p & 1)
    s.pend_gold, s.pend_res, s.pend_adj = 0, (0,) * NUM_COLOURS, 0
    s.dice, s.modified, s.rerolls = (0,) * 6, 0, 0
    s.played = ((),) * n
    s.eligible, s.queue, s.events = 0, (), ()
    s.phase = ROLL


def roll_die(s: RivieraData, value: int) -> None:
    """Set the next unrolled die; after the last one, maybe reroll (§6.2), else go on."""
    pending = dice_to_roll(s)
    s.dice = _set(s.dice, pending[0], value)
    if len(pending) > 1:
        return
    if _reroll_needed(s):
        s.rerolls += 1
        s.dice = (0,) * 6
        return
    if s.adjusters:
        s.phase = ADJUST_DICE
    else:
        start_choose(s)


def _reroll_needed(s: RivieraData) -> bool:
    rules = s.rules
    if s.turn_no != 1 or not rules.reroll or s.rerolls >= rules.max_rerolls:
        return False
    return any(not legal_cards(s, p) for p in range(s.num_players) if s.status[p] == IN)


def adjust(s: RivieraData, p: int, action: int) -> None:
    """Card 9 (§4.3): turn one unchanged die by ±1 (wrapping 6↔1), or pass."""
    if action == PASS:
        s.events += (("adjust", p, -1, 0),)
    else:
        die, down = divmod(action - ADJUST, 2)
        delta = -1 if down else 1
        s.dice = _set(s.dice, die, turned(s.dice[die], delta))
        s.modified |= 1 << die
        s.events += (("adjust", p, die, delta),)
    s.adjusters = s.adjusters[1:]
    if not s.adjusters:
        start_choose(s)


def start_choose(s: RivieraData) -> None:
    s.phase = CHOOSE
    if s.rules.sequential:
        s.queue = in_from_holder(s)


def apply_actions(s: RivieraData, actions: Mapping[int, int]) -> None:
    phase = s.phase
    if phase == CHOOSE:
        choose(s, actions)
    elif phase == BONUS:
        bonus(s, actions)
    elif phase == STOP_OR_MORE:
        stop_or_more(s, actions)
    else:
        ((p, action),) = actions.items()
        if phase == ADJUST_DICE:
            adjust(s, p, action)
        elif phase == POWERS:
            power(s, p, action)
        elif phase == SWAP_GIVE:
            give(s, action - GIVE)
        else:  # FALLBACK_DISCARD
            pick_discard(s, action - DISCARD)


def choose(s: RivieraData, actions: Mapping[int, int]) -> None:
    """REVEAL (§2.2 phase 4): cards, Last Chance and crashes take effect together."""
    slam = eligible = 0
    for p in sorted(actions):
        action = actions[p]
        if action == LAST_CHANCE:
            s.lc_used = _set(s.lc_used, p, True)
            s.events += (("last_chance", p),)
        elif action == CRASH:
            crash(s, p)
        else:
            play_card(s, p, action - PLAY, "play")
            slam |= (not s.hands[p]) << p
            eligible |= (action % VALUES == 0) << p  # a 1 was revealed
    if slam:
        grand_slam(s, slam)
    elif eligible:
        s.eligible = eligible
        s.phase = BONUS
    elif s.rules.sequential:
        after_go(s)
    else:
        start_powers(s)


def bonus(s: RivieraData, actions: Mapping[int, int]) -> None:
    """BONUS_REVEAL (§4.1): extra cards after a 1; a further 1 keeps its owner eligible."""
    slam = eligible = 0
    for p in sorted(actions):
        action = actions[p]
        if action == PASS:
            s.events += (("bonus_pass", p),)
            continue
        play_card(s, p, action - PLAY, "bonus")
        slam |= (not s.hands[p]) << p
        eligible |= (action % VALUES == 0) << p
    s.eligible = eligible
    if slam:
        grand_slam(s, slam)
    elif eligible:
        return
    elif s.rules.sequential:
        after_go(s)
    else:
        start_powers(s)


def play_card(s: RivieraData, p: int, card: int, how: str) -> None:
    s.hands = _set(s.hands, p, tuple(c for c in s.hands[p] if c != card))
    s.columns = _set(s.columns, p, s.columns[p] + (card,))
    s.played = _set(s.played, p, s.played[p] + (card,))
    n = s.num_players
    if any(s.known[q * n + p] >> card & 1 for q in range(n)):  # a played card is public
        s.known = tuple(m & ~(1 << card) if i % n == p else m for i, m in enumerate(s.known))
    if card % VALUES == 8:  # a 9 queues its owner for the next ADJUST_DICE (§4.3)
        s.pend_adj |= 1 << p
    s.events += ((how, p, card),)


def crash(s: RivieraData, p: int) -> None:
    """§5.1: the hand and the column go face down to the discard pile; status CRASHED."""
    n = s.num_players
    column = _cards_mask(s.columns[p])
    lost = _cards_mask(s.hands[p]) | column
    s.discard |= lost
    known_disc = list(s.known_disc)
    known = list(s.known)
    for q in range(n):
        if q == p:
            known_disc[q] |= lost
        else:
            known_disc[q] |= known[q * n + p] | column
            known[q * n + p] = 0
    s.known_disc, s.known = tuple(known_disc), tuple(known)
    s.hands = _set(s.hands, p, ())
    s.columns = _set(s.columns, p, ())
    s.status = _set(s.status, p, CRASHED)
    s.events += (("crash", p),)


def grand_slam(s: RivieraData, winners: int) -> None:
    """§5.4: the players who emptied their hands in this reveal win; the round is not scored."""
    s.winners = winners
    s.slam = True
    s.phase = GAME_OVER


# -- powers (§4.2, §4.4, §4.5) ------------------------------------------------------------------


def start_powers(s: RivieraData) -> None:
    """Simultaneous mode: the owners of 2, 10, 11 decide one at a time, clockwise from the Holder."""
    s.queue = tuple(p for p in in_from_holder(s) if power_card(s, p) >= 0)
    next_power(s)


def next_power(s: RivieraData) -> None:
    while s.queue and not power_available(s, s.queue[0]):
        s.queue = s.queue[1:]
    if s.queue:
        s.phase = POWERS
    else:
        start_stop(s)


def after_go(s: RivieraData) -> None:
    """Sequential mode: the player whose go it is settles their power, then the next one plays."""
    if power_available(s, s.queue[0]):
        s.phase = POWERS
    else:
        next_player(s)


def next_player(s: RivieraData) -> None:
    s.queue = s.queue[1:]
    if s.queue:
        s.phase = CHOOSE
    else:
        start_stop(s)


def end_power(s: RivieraData) -> None:
    s.target, s.picked, s.taken, s.draws_left = -1, (), (), 0
    if s.rules.sequential:
        next_player(s)
    else:
        s.queue = s.queue[1:]
        next_power(s)


def power(s: RivieraData, p: int, action: int) -> None:
    card = power_card(s, p)
    if action == PASS:
        s.events += (("power", p, card, False),)
        end_power(s)
    elif action == ACTIVATE:
        if card % VALUES == 1:  # card 2: reserve the die of its colour for the next roll
            colour = card // VALUES
            s.pend_res = _set(s.pend_res, colour, s.pend_res[colour] | 1 << p)
        else:  # card 11: the golden die joins the next roll
            s.pend_gold |= 1 << p
        s.events += (("power", p, card, True),)
        end_power(s)
    elif action < GIVE:  # SWAP_WITH + target
        s.target = action - SWAP_WITH
        s.picked = ()
        s.phase = SWAP_GIVE
    else:  # DISCARD + card: the first card of the fallback
        s.picked = ()
        pick_discard(s, action - DISCARD)


def give(s: RivieraData, card: int) -> None:
    s.picked += (card,)
    if len(s.picked) == swap_size(s):
        s.taken = ()
        s.phase = SWAP_PICK
    else:
        s.phase = SWAP_GIVE


def execute_swap(s: RivieraData) -> None:
    """Both sets move at once; the swapper and the target learn what the other now holds."""
    p, t, n = s.queue[0], s.target, s.num_players
    given, taken = s.picked, s.taken
    s.hands = _set(s.hands, p, tuple(sorted([c for c in s.hands[p] if c not in given] + list(taken))))
    s.hands = _set(s.hands, t, tuple(sorted([c for c in s.hands[t] if c not in taken] + list(given))))
    g, k = _cards_mask(given), _cards_mask(taken)
    known = list(s.known)
    for q in range(n):
        if q == p:
            known[p * n + t] = (known[p * n + t] & ~k) | g
        elif q == t:
            known[t * n + p] = (known[t * n + p] & ~g) | k
        else:  # a third party no longer knows which cards p and t hold
            known[q * n + p] = known[q * n + t] = 0
    s.known = tuple(known)
    s.events += (("swap", p, t, given, taken),)
    end_power(s)


def pick_discard(s: RivieraData, card: int) -> None:
    p = s.queue[0]
    s.picked += (card,)
    if len(s.picked) < fallback_size(s, p):
        s.phase = FALLBACK_DISCARD
        return
    discards = _cards_mask(s.picked)
    s.hands = _set(s.hands, p, tuple(c for c in s.hands[p] if c not in s.picked))
    s.discard |= discards
    n = s.num_players
    s.known_disc = _set(s.known_disc, p, s.known_disc[p] | discards)
    s.known = tuple(0 if i % n == p and i // n != p else m for i, m in enumerate(s.known))
    s.events += (("fallback", p, len(s.picked)),)
    s.draws_left = len(s.picked)
    s.picked = ()
    s.phase = DRAW


# -- stop or more, the Token, round end (§2.2 phases 8-11, §5) ------------------------------


def start_stop(s: RivieraData) -> None:
    order = in_from_holder(s)
    if not order:
        end_turn(s)
        return
    s.phase = STOP_OR_MORE
    if s.rules.sequential:
        s.queue = order


def stop_or_more(s: RivieraData, actions: Mapping[int, int]) -> None:
    for p in sorted(actions):
        stopped = actions[p] == STOP
        if stopped:
            s.status = _set(s.status, p, STOPPED)
        s.events += (("stop" if stopped else "more", p),)
    if s.rules.sequential:
        s.queue = s.queue[1:]
        if s.queue:
            return
    end_turn(s)


def end_turn(s: RivieraData) -> None:
    """PASS_TOKEN: the Token moves on every turn, whatever the statuses (§2.2 phase 9)."""
    s.holder = (s.holder + 1) % s.num_players
    if IN in s.status:
        begin_turn(s)
    else:
        end_round(s)


def end_round(s: RivieraData) -> None:
    """ROUND_END: STOPPED players bank their column; the game ends at the winning score."""
    s.scores = tuple(
        score + (sum(STARS[c] for c in s.columns[p]) if s.status[p] == STOPPED else 0)
        for p, score in enumerate(s.scores)
    )
    top = max(s.scores)
    if top >= s.rules.winning_score or s.round_no >= s.rules.max_rounds:
        s.winners = sum(1 << p for p, score in enumerate(s.scores) if score == top)
        s.phase = GAME_OVER
    else:
        begin_round(s)
