"""Heuristic for Gang of Dice: stake what the odds pay for; re-roll to beat the leader unharmed.

Rationale. The round's best valid result takes the whole table, so a stake of N dice is a bet:
it gains the pot and the other stakes with the chance of winning, and loses N otherwise. Both the
odds and the re-roll choices depend on the warning card, so the heuristic asks the card itself
(the engine's printed card table and predicates) over the rolls of the dice: every distinct
roll, weighted by its probability, when there are few (up to three re-rolled dice), else a fixed
sample of rolls drawn once:

- Stake: for each N, the chance that a first roll of N dice is valid and beats the leader (halved
  for every seat still to play after us), times what the table would pay; stake the N with the
  best expected gain (winning ties needs more dice, so N also breaks ties of score).
  A yellow card is checked on the first roll like a black one on the last.
- Re-roll: compare STOP with re-rolling whole faces (or all but one die of a face) by the chance
  of ending valid and ahead of the leader, the score as a small tie-break. Every plan is judged
  on the same rolls, and a plan is a pure function of the situation: cached, and the face-by-face
  PICK decisions follow one plan.
"""

from __future__ import annotations

import itertools
import math
import random
from functools import cache, lru_cache
from typing import Any, NamedTuple

from bots.base import Bot
from engine.gang_of_dice.components import CARD_BY_ID, triggered

STOP, REROLL, STAKE_BASE, PICK_BASE, PICK_STRIDE = 0, 1, 2, 164, 163
MAX_STAKE = 12  # more dice than this rarely helps and costs sampling time
STAKE_SAMPLES = 120
REROLL_SAMPLES = 60


# How ISMCTS searches this game (bots/ismcts.py): each root action judged by heuristic playouts
# alone, no tree below the root. With 200 simulations, playouts alone scored higher against this
# heuristic than a tree search and took less time (BENCHMARKS.md, "Bot strength": tuning runs).
SEARCH_DEFAULTS = {"tree": 0}

def score(faces: tuple[int, ...] | list[int]) -> int:
    return sum(value * faces[value] for value in range(1, 6))


@cache
def outcomes(n: int, samples: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Face counts [G, 1..5] of n fresh dice with their probabilities: every distinct outcome when
    there are at most `samples` of them, else `samples` draws (a fixed seed, weight 1/samples each).

    Fixed draws make every answer a pure function, and compare every plan on the same rolls."""
    if math.comb(n + 5, 5) <= samples:  # the number of distinct rolls of n dice
        total = 6**n
        return tuple((faces, math.factorial(n) / math.prod(map(math.factorial, faces)) / total)
                     for faces in _compositions(n, 6))
    rng = random.Random(n)
    drawn = []
    for _ in range(samples):
        faces = [0] * 6
        for _ in range(n):
            faces[rng.randrange(6)] += 1
        drawn.append((tuple(faces), 1 / samples))
    return tuple(drawn)


def _compositions(n: int, parts: int):  # noqa: ANN202 - a generator of tuples
    """Every way to split n dice over `parts` faces."""
    if parts == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, parts - 1):
            yield (first, *rest)


class GangOfDiceHeuristic(Bot):
    """Expected-gain staking and plan-based re-rolls, sampled from the card's predicate (module doc)."""

    name = "heuristic"

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        phase = observation["phase"]
        if phase == "stake":
            choice = self._stake(observation)
        elif phase == "decide":
            choice = REROLL if any(self._plan(observation)) else STOP
        elif phase == "pick":
            wanted = self._plan(observation)[observation["pick_face"]]
            picks = [a for a in legal_actions if a >= PICK_BASE]
            choice = min(picks, key=lambda a: abs((a - PICK_BASE) % PICK_STRIDE - wanted))
        else:
            choice = None
        return choice if choice in legal_actions else legal_actions[0]

    def _situation(self, obs: dict[str, Any]) -> Situation:
        leader, order = obs["leader"], obs["turn_order"]
        return Situation(
            card=obs["card"]["id"],
            g_distinct=obs["options"]["g_counts_as_distinct"],
            best=leader["score"] if leader else -1,
            best_dice=leader["dice"] if leader else 0,
            later=len(order) - 1 - order.index(self.seat),
        )

    def _stake(self, obs: dict[str, Any]) -> int:
        situation = self._situation(obs)
        table = obs["pot"] + sum(obs["stakes"])

        def expected_gain(n: int) -> float:
            chance = win_chance(situation, n)
            return chance * (table + n) - (1 - chance) * n

        top = min(MAX_STAKE, obs["scores"][self.seat])
        return STAKE_BASE + max(range(1, top + 1), key=lambda n: (expected_gain(n), -n)) - 1

    def _plan(self, obs: dict[str, Any]) -> tuple[int, ...]:
        return reroll_plan(self._situation(obs), tuple(obs["faces"][self.seat]))


class Situation(NamedTuple):
    """What a result is judged against: the card, the leader's result, the seats still to play."""

    card: str
    g_distinct: bool
    best: int
    best_dice: int
    later: int


def value(situation: Situation, faces: tuple[int, ...], dice: int) -> float:
    """Chance-like worth of ending a turn on `faces`: 0 when busted or not ahead of the leader."""
    card = CARD_BY_ID[situation.card]
    if triggered(card, faces, situation.g_distinct):
        return 0.0
    mine = score(faces)
    if mine < situation.best or (mine == situation.best and dice <= situation.best_dice):
        return 0.0
    return 0.5**situation.later * (0.8 + 0.2 * mine / (5 * dice))


@lru_cache(maxsize=1 << 14)
def win_chance(situation: Situation, dice: int) -> float:
    """The chance that a first roll of `dice` dice, kept as it lands, is valid and ahead."""
    return sum(p * value(situation, faces, dice) for faces, p in outcomes(dice, STAKE_SAMPLES))


@lru_cache(maxsize=1 << 14)
def reroll_plan(situation: Situation, faces: tuple[int, ...]) -> tuple[int, ...]:
    """How many dice of each face [G, 1..5] to re-roll (all zero = stop), one re-roll ahead."""
    dice = sum(faces)
    best_plan, best_value = (0,) * 6, value(situation, faces, dice)
    for plan in candidate_plans(list(faces)):
        kept = [faces[f] - plan[f] for f in range(6)]
        expected = sum(p * value(situation, tuple(k + f for k, f in zip(kept, fresh)), dice)
                       for fresh, p in outcomes(sum(plan), REROLL_SAMPLES))
        if expected > best_value + 0.02:  # re-rolling must clearly pay
            best_plan, best_value = tuple(plan), expected
    return best_plan


def candidate_plans(faces: list[int]) -> list[list[int]]:
    """Re-roll every die of some faces, or all but one die of one face; never nothing."""
    shown = [f for f in range(6) if faces[f]]
    plans = []
    for chosen in itertools.product((False, True), repeat=len(shown)):
        plan = [0] * 6
        for face, take in zip(shown, chosen):
            plan[face] = faces[face] if take else 0
        if any(plan):
            plans.append(plan)
    for face in shown:
        if faces[face] > 1:
            plan = [0] * 6
            plan[face] = faces[face] - 1
            plans.append(plan)
    return plans


def estimate_returns(observation: dict[str, Any]) -> list[float]:
    """Dice owned, with most of the table credited to this round's leader (later seats may beat it)."""
    estimates = [float(dice or 0) for dice in observation["scores"]]
    leader = observation["leader"]
    if leader is not None:
        estimates[leader["seat"]] += 0.7 * (observation["pot"] + sum(observation["stakes"]))
    return estimates
