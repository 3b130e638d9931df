"""Heuristic for Lost Cities: Rivals: value the display per seat, bid up to what it is worth.

Rationale. Points come from footprints times (1 + wagers), +8 for four numbers, and 1 per coin;
nothing scores negative, so every card one can place is worth something *now*, and the cost of a
number card is what it shuts out: the unseen lower cards of its colour that could still have come.
So a card's value for a seat is its immediate gain minus that blocking cost (a wager: the
footprints still to come in its colour), the future scaled by the share of the deck left and
divided among the seats. The display is worth the sum over a greedy take (wagers first, then
numbers in ascending order, only cards of positive value).

- Turn: open an auction when the display is worth enough to us (and more than the opening bid);
  otherwise uncover, letting the display grow. Open just above what the best rival would pay.
- Bidding: raise by one while the price stays under our ceiling: our value plus part of the best
  rival's value (denying it is worth something), minus a margin; a coin paid is a point lost.
- Take: place the greedy plan card by card, then end. Box: remove the card worth most to a
  rival (less its worth to us) when that is worth anything.
"""

from __future__ import annotations

from typing import Any

from bots.base import Bot

COLOURS = "RGBYW"
UNCOVER, PASS, BID_BASE, PLACE_BASE, END_TAKE, BOX_BASE, SKIP_BOX = 0, 1, 2, 38, 88, 89, 139
DECK_SIZE = 80
OPEN_THRESHOLD = 3.0  # display value below which we let it grow
DENIAL_SHARE = 0.4  # how much of a rival's gain we pay to deny it
MARGIN = 1.0  # never pay all a lot is worth


# How ISMCTS searches this game (bots/ismcts.py): each root action judged by heuristic playouts
# alone, no tree below the root. With 200 simulations, playouts alone scored higher against this
# heuristic than a tree search and took less time (BENCHMARKS.md, "Bot strength": tuning runs).
SEARCH_DEFAULTS = {"tree": 0}

def kind_of(card: str) -> int:
    """The engine's card kind: 10 * colour + (0 for a wager, value - 1 for a number)."""
    rank = 0 if card[1:] == "*" else int(card[1:]) - 1
    return 10 * COLOURS.index(card[0]) + rank


def footprints(value: int) -> int:
    return 1 if value <= 5 else 2


class RivalsHeuristic(Bot):
    """Values lots by placement gain minus blocking cost; bids up to a ceiling (module doc)."""

    name = "heuristic"

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        phase = observation["phase"]
        if phase == "turn":
            return self._turn(observation, legal_actions)
        if phase == "bidding":
            return self._bid(observation, legal_actions)
        if phase == "take":
            plan = self._plan(observation, self.seat)
            action = PLACE_BASE + kind_of(plan[0][0]) if plan else END_TAKE
            return action if action in legal_actions else END_TAKE
        if phase == "box":
            return self._box(observation, legal_actions)
        return legal_actions[0]

    # -- values ----------------------------------------------------------------------------

    def _future_weight(self, obs: dict[str, Any]) -> float:
        """Chance-like weight that an unseen card still comes to us: deck left over seats."""
        return (DECK_SIZE - obs["cards_revealed"]) / DECK_SIZE / obs["num_players"]

    def _card_value(self, expedition: dict[str, Any], card: str, obs: dict[str, Any]) -> float | None:
        """Worth of placing `card` on `expedition` now; None when it may not be placed."""
        colour, numbers, wagers = card[0], expedition["numbers"], expedition["wagers"]
        unseen = obs["unseen"]
        weight = self._future_weight(obs)
        if card[1:] == "*":
            if numbers:
                return None
            to_come = sum(footprints(v) * unseen.get(f"{colour}{v}", 0) for v in range(2, 11))
            return weight * to_come
        value, top = int(card[1:]), max(numbers, default=0)
        if value < top:
            return None
        gain = (1 + wagers) * footprints(value) + (8 if len(numbers) == 3 else 0)
        blocked = sum(footprints(v) * unseen.get(f"{colour}{v}", 0) for v in range(max(top, 2), value))
        return gain - (1 + wagers) * weight * blocked

    def _plan(self, obs: dict[str, Any], seat: int) -> list[tuple[str, float]]:
        """Greedy take from the display: wagers, then ascending numbers, positive values only."""
        expeditions = {c: dict(e, numbers=list(e["numbers"])) for c, e in obs["expeditions"][seat].items()}
        left = sorted(obs["display"], key=lambda c: (c[1:] != "*", 0 if c[1:] == "*" else int(c[1:])))
        plan = []
        for card in left:
            expedition = expeditions[card[0]]
            value = self._card_value(expedition, card, obs)
            if value is None or value <= 0:
                continue
            plan.append((card, value))
            if card[1:] == "*":
                expedition["wagers"] += 1
            else:
                expedition["numbers"].append(int(card[1:]))
        return plan

    def _lot_value(self, obs: dict[str, Any], seat: int) -> float:
        return sum(value for _, value in self._plan(obs, seat))

    def _ceiling(self, obs: dict[str, Any]) -> tuple[int, float]:
        """The most we pay for the display, and the best rival's value of it."""
        rivals = [self._lot_value(obs, s) for s in range(obs["num_players"]) if s != self.seat]
        best_rival = max(rivals, default=0.0)
        worth = self._lot_value(obs, self.seat) + DENIAL_SHARE * best_rival - MARGIN
        return min(int(worth), obs["coins"][self.seat]), best_rival

    # -- decisions -------------------------------------------------------------------------

    def _turn(self, obs: dict[str, Any], legal: list[int]) -> int:
        bids = [a for a in legal if BID_BASE <= a < PLACE_BASE]
        if not bids:
            return UNCOVER
        ceiling, best_rival = self._ceiling(obs)
        mine = self._lot_value(obs, self.seat)
        opening = max(1, min(ceiling, int(best_rival * (1 - DENIAL_SHARE)) + 1))
        wants = mine >= OPEN_THRESHOLD and ceiling >= opening
        if wants or UNCOVER not in legal:  # display_limit may force an auction
            return BID_BASE + opening - 1 if BID_BASE + opening - 1 in bids else bids[0]
        return UNCOVER

    def _bid(self, obs: dict[str, Any], legal: list[int]) -> int:
        ceiling, _ = self._ceiling(obs)
        raise_to = obs["auction"]["high_bid"] + 1
        action = BID_BASE + raise_to - 1
        return action if raise_to <= ceiling and action in legal else PASS

    def _box(self, obs: dict[str, Any], legal: list[int]) -> int:
        best, best_gap = SKIP_BOX, 0.5
        for card in sorted(set(obs["display"])):
            mine = self._card_value(obs["expeditions"][self.seat][card[0]], card, obs) or 0.0
            rival = max(
                (self._card_value(obs["expeditions"][s][card[0]], card, obs) or 0.0)
                for s in range(obs["num_players"]) if s != self.seat
            )
            if rival - mine > best_gap and BOX_BASE + kind_of(card) in legal:
                best, best_gap = BOX_BASE + kind_of(card), rival - mine
        return best


def estimate_returns(observation: dict[str, Any]) -> list[float]:
    """Every seat's points as they stand, its share of the centre, and its expeditions' promise.

    The promise of an expedition is what the unseen cards it can still take would add, at the
    heuristic's future weight (the deck left, shared among the seats).
    """
    players, unseen = observation["num_players"], observation["unseen"]
    weight = (DECK_SIZE - observation["cards_revealed"]) / DECK_SIZE / players
    share = observation["centre"] / players if observation["piles_to_come"] else 0.0
    estimates = []
    for seat, score in enumerate(observation["scores"]):
        promise = 0.0
        for colour, expedition in observation["expeditions"][seat].items():
            if not expedition["wagers"] and not expedition["numbers"]:
                continue
            top = max(expedition["numbers"], default=2)
            to_come = sum(footprints(v) * unseen.get(f"{colour}{v}", 0) for v in range(top, 11))
            promise += (1 + expedition["wagers"]) * weight * to_come
        estimates.append(score + share + promise)
    return estimates
