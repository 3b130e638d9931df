"""Heuristic for Riviera: keep a playable hand, and stop when a crash costs more than it brings.

Rationale. A round is lost (crash) when no card in hand matches the next roll, so the quantity
that matters is P(hand) = the chance that some card in the hand is legal on a fresh roll of the
dice in use. It is computed exactly over every roll of the coloured dice (or a fixed sample of
them with five colours), each roll a bitmask of the cards it makes legal.

- Choose / bonus: play the legal card that leaves the most playable hand, plus a little for its
  stars (stars only count if the round is banked). A bonus card is played when the hand stays
  playable enough or when it empties the hand (Grand Slam).
- Stop or more: keep going while the expected stars of one more card outweigh the risk of losing
  the column: stop when P(no legal card next turn) x column stars > P(legal) x average stars, with
  the Last Chance card making the risk smaller. Stop at once when banking reaches the winning score.
- Last Chance when the column is worth saving; otherwise crash and keep it for later.
- Card 9: the die change that makes most of our cards legal. Cards 2 and 11: always switch on
  (a reservation shuts rivals out of a colour; the golden die adds pairs). Card 10: swap (or
  discard) when our least playable cards are worse than an average card, giving those away.
"""

from __future__ import annotations

import itertools
import random
from functools import lru_cache
from typing import Any

from bots.base import Bot

COLOURS = "RGPBO"
STARS = (2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 3, 5)
NUM_CARDS = 60  # card ids 0..59: colour * 12 + value - 1
LAST_CHANCE, CRASH, PASS, STOP, MORE, ACTIVATE = 60, 61, 62, 63, 64, 77
ADJUST_BASE, SWAP_BASE, GIVE_BASE, DISCARD_BASE = 65, 78, 84, 144
AVERAGE_STARS = sum(STARS) / len(STARS)
MAX_ROLLS = 1296  # all rolls of four dice; five dice use a fixed sample of this size
BONUS_KEEP = 0.55  # play a bonus card only if the hand stays this playable
LAST_CHANCE_WORTH = 3  # column stars worth spending the Last Chance on
SWAP_BELOW = 0.35  # give cards away whose own chance of being legal is under this


def colour_of(card: int) -> int:
    return card // 12


def value_of(card: int) -> int:
    return card % 12 + 1


def legal_mask(dice: dict[int, int], usable: set[int], gold: int | None) -> int:
    """Bitmask of card ids legal on these dice: a die of the card's colour alone, or with a partner."""
    mask = 0
    for colour in usable:
        die = dice[colour]
        partners = [dice[other] for other in usable if other != colour] + ([gold] if gold else [])
        for value in {die, *(die + partner for partner in partners)}:
            if 1 <= value <= 12:
                mask |= 1 << (colour * 12 + value - 1)
    return mask


@lru_cache(maxsize=8)
def roll_masks(colours: tuple[int, ...]) -> tuple[int, ...]:
    """The legal-card mask of every roll of these colours' dice (a fixed sample for five dice)."""
    rolls = list(itertools.product(range(1, 7), repeat=len(colours)))
    if len(rolls) > MAX_ROLLS:
        rolls = random.Random(len(colours)).sample(rolls, MAX_ROLLS)  # fixed seed: same sample always
    return tuple(legal_mask(dict(zip(colours, roll)), set(colours), None) for roll in rolls)


def playable(hand: list[int], colours: tuple[int, ...]) -> float:
    """The chance that some card of `hand` is legal on a fresh roll of these colours' dice."""
    if not hand:
        return 1.0
    return _playable_bits(sum(1 << card for card in set(hand)), colours)


@lru_cache(maxsize=8)
def rolls_by_card(colours: tuple[int, ...]) -> tuple[int, ...]:
    """Per card id, the set of rolls (bit i = roll i of `roll_masks`) on which that card is legal."""
    sets = [0] * NUM_CARDS
    for index, mask in enumerate(roll_masks(colours)):
        while mask:
            low = mask & -mask
            sets[low.bit_length() - 1] |= 1 << index
            mask ^= low
    return tuple(sets)


@lru_cache(maxsize=1 << 16)
def _playable_bits(bits: int, colours: tuple[int, ...]) -> float:
    """The share of rolls on which some card of `bits` is legal: the union of the cards' roll sets."""
    sets, rolls = rolls_by_card(colours), 0
    while bits:
        low = bits & -bits
        rolls |= sets[low.bit_length() - 1]
        bits ^= low
    return rolls.bit_count() / len(roll_masks(colours))


def card_odds(card: int, colours: tuple[int, ...]) -> float:
    return playable([card], colours)


class RivieraHeuristic(Bot):
    """Hand playability and crash risk, computed over the rolls of the dice (module doc)."""

    name = "heuristic"

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        handler = {
            "choose": self._choose,
            "bonus_choose": self._bonus,
            "stop_or_more": self._stop_or_more,
            "adjust_dice": self._adjust,
            "powers": self._powers,
            "swap_give": self._give,
            "fallback_discard": self._give,
        }.get(observation["phase"])
        choice = handler(observation, legal_actions) if handler else None
        return choice if choice in legal_actions else legal_actions[0]

    def _masks(self, obs: dict[str, Any]) -> tuple[int, ...]:
        """The colours in use, as die indexes: what the roll odds depend on."""
        return tuple(COLOURS.index(c) for c in obs["colours"])

    def _best_play(self, obs: dict[str, Any], cards: list[int]) -> tuple[int, float]:
        """The card to play that leaves the most playable hand (stars as a small bonus)."""
        masks, hand = self._masks(obs), obs["hand"]

        def worth(card: int) -> float:
            rest = [c for c in hand if c != card]
            return playable(rest, masks) + 0.02 * STARS[value_of(card) - 1] + (10 if not rest else 0)

        best = max(cards, key=worth)
        return best, playable([c for c in hand if c != best], masks)

    def _choose(self, obs: dict[str, Any], legal: list[int]) -> int:
        cards = [a for a in legal if a < 60]
        if cards:
            return self._best_play(obs, cards)[0]
        column = obs["column_stars"][self.seat]
        return LAST_CHANCE if LAST_CHANCE in legal and column >= LAST_CHANCE_WORTH else CRASH

    def _bonus(self, obs: dict[str, Any], legal: list[int]) -> int:
        cards = [a for a in legal if a < 60]
        if not cards:
            return PASS
        card, left = self._best_play(obs, cards)
        return card if len(obs["hand"]) == 1 or left >= BONUS_KEEP else PASS

    def _stop_or_more(self, obs: dict[str, Any], legal: list[int]) -> int:
        seat, column = self.seat, obs["column_stars"][self.seat]
        if obs["scores"][seat] + column >= obs["winning_score"]:
            return STOP
        fail = 1.0 - playable(obs["hand"], self._masks(obs))
        if not obs["last_chance_used"][seat]:
            fail *= fail  # the Last Chance card absorbs one miss
        gain = (1.0 - fail) * AVERAGE_STARS
        return STOP if fail * column > gain else MORE

    def _adjust(self, obs: dict[str, Any], legal: list[int]) -> int:
        dice = {COLOURS.index(c): v for c, v in obs["dice"].items() if v is not None}
        gold = obs["gold"] if obs["gold_in_roll"] else None
        reserved = {COLOURS.index(c) for c, seats in obs["reserved_by"].items() if seats and self.seat not in seats}
        bits = sum(1 << c for c in obs["hand"])

        def legal_count(action: int) -> int:
            changed, gold_now = dict(dice), gold
            if action != PASS:
                die, delta = divmod(action - ADJUST_BASE, 2)
                step = 1 if delta == 0 else -1
                if die == 5:
                    gold_now = (gold_now - 1 + step) % 6 + 1 if gold_now else gold_now
                else:
                    changed[die] = (changed[die] - 1 + step) % 6 + 1
            mask = legal_mask(changed, set(changed) - reserved, gold_now)
            return bin(mask & bits).count("1")

        return max(legal, key=lambda a: (legal_count(a), a == PASS))

    def _powers(self, obs: dict[str, Any], legal: list[int]) -> int:
        if ACTIVATE in legal:
            return ACTIVATE
        masks, hand = self._masks(obs), obs["hand"]
        weak = sorted(card_odds(c, masks) for c in hand)[:2]
        if not weak or sum(weak) / len(weak) >= SWAP_BELOW:
            return PASS
        targets = [a for a in legal if SWAP_BASE <= a < GIVE_BASE]
        if targets:  # the rival with the best column: our weak cards hurt it most
            return max(targets, key=lambda a: obs["column_stars"][a - SWAP_BASE])
        return self._give(obs, legal)

    def _give(self, obs: dict[str, Any], legal: list[int]) -> int:
        """Give away (or discard) the card least likely to be legal."""
        masks = self._masks(obs)
        cards = [a for a in legal if a >= GIVE_BASE]
        if not cards:
            return PASS
        base = DISCARD_BASE if cards[0] >= DISCARD_BASE else GIVE_BASE
        return min(cards, key=lambda a: (card_odds(a - base, masks), -a))


def estimate_returns(observation: dict[str, Any]) -> list[float]:
    """Banked stars, plus the column of a stopped seat, half the column of a seat still IN."""
    share = {"STOPPED": 1.0, "IN": 0.5, "CRASHED": 0.0}
    return [
        score + share[status] * stars
        for score, status, stars in zip(observation["scores"], observation["status"], observation["column_stars"])
    ]
