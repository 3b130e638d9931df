"""Heuristic for Gang of Dice: stake what the odds pay for; re-roll to beat the leader unharmed.

Rationale. The round's best valid result takes the whole table, so a stake of N dice is a bet:
it gains the pot and the other stakes with the chance of winning, and loses N otherwise. Both the
odds and the re-roll choices depend on the warning card, so the heuristic asks the card itself
(the engine's printed card table and predicates) over a small fixed sample of dice rolls:

- Stake: for each N, the chance that a first roll of N dice is valid and beats the leader (halved
  for every seat still to play after us), times what the table would pay; stake the N with the
  best expected gain (winning ties needs more dice, so N also breaks ties of score).
- Re-roll: compare STOP with re-rolling whole faces (or all but one die of a face) by the chance
  of ending valid and ahead of the leader, the score as a small tie-break; the plan is a pure
  function of the observation, so the face-by-face PICK decisions follow one plan.
"""

from __future__ import annotations

import itertools
import random
import zlib
from typing import Any

from bots.base import Bot
from engine.gang_of_dice.cards import CARD_BY_ID, triggered

STOP, REROLL, STAKE_BASE, PICK_BASE, PICK_STRIDE = 0, 1, 2, 164, 163
MAX_STAKE = 12  # more dice than this rarely helps and costs sampling time
STAKE_SAMPLES = 120
REROLL_SAMPLES = 60


def score(faces: list[int]) -> int:
    return sum(value * faces[value] for value in range(1, 6))


def roll(n: int, rng: random.Random) -> list[int]:
    """Face counts [G, 1..5] of n fresh dice."""
    faces = [0] * 6
    for _ in range(n):
        faces[rng.randrange(6)] += 1
    return faces


class GangOfDiceHeuristic(Bot):
    """Expected-gain staking and plan-based re-rolls, sampled from the card's predicate (module doc)."""

    name = "heuristic"

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        phase = observation["phase"]
        if phase == "stake":
            choice = self._stake(observation, legal_actions)
        elif phase == "decide":
            choice = REROLL if any(self._plan(observation)) else STOP
        elif phase == "pick":
            choice = self._pick(observation, legal_actions)
        else:
            choice = None
        return choice if choice in legal_actions else legal_actions[0]

    # -- judging a result --------------------------------------------------------------------

    def _context(self, obs: dict[str, Any]) -> tuple[Any, bool, int, int, int]:
        card = CARD_BY_ID[obs["card"]["id"]]
        leader = obs["leader"]
        order = obs["turn_order"]
        later = len(order) - 1 - order.index(self.seat)
        return card, obs["options"]["g_counts_as_distinct"], (leader["score"] if leader else -1), \
            (leader["dice"] if leader else 0), later

    def _value(self, faces: list[int], dice: int, obs: dict[str, Any], final_check: bool) -> float:
        """Chance-like worth of ending with `faces`: 0 when busted or behind the leader."""
        card, g_distinct, best, best_dice, later = self._context(obs)
        if (final_check or card.colour == "yellow") and triggered(card, tuple(faces), g_distinct):
            return 0.0
        mine = score(faces)
        if mine < best or (mine == best and dice <= best_dice):
            return 0.0
        return 0.5 ** later * (0.8 + 0.2 * mine / (5 * dice))

    # -- staking -----------------------------------------------------------------------------

    def _stake(self, obs: dict[str, Any], legal: list[int]) -> int:
        rng = random.Random(self._plan_seed(obs))
        table = obs["pot"] + sum(obs["stakes"])
        top = min(MAX_STAKE, obs["scores"][self.seat])

        def expected_gain(n: int) -> float:
            wins = sum(self._value(roll(n, rng), n, obs, final_check=True) for _ in range(STAKE_SAMPLES))
            chance = wins / STAKE_SAMPLES
            return chance * (table + n) - (1 - chance) * n

        best = max(range(1, top + 1), key=lambda n: (expected_gain(n), -n))
        return STAKE_BASE + best - 1

    # -- re-rolling --------------------------------------------------------------------------

    def _plan_seed(self, obs: dict[str, Any]) -> int:
        text = f"{self.seat}:{obs['round']}:{obs['rolls']}:{obs['faces'][self.seat]}:{obs['stakes']}"
        return zlib.crc32(text.encode())

    def _plan(self, obs: dict[str, Any]) -> list[int]:
        """How many dice of each face [G, 1..5] to re-roll (all zero = stop)."""
        faces = obs["faces"][self.seat]
        dice = sum(faces)
        rng = random.Random(self._plan_seed(obs))
        best_plan, best_value = [0] * 6, self._value(faces, dice, obs, final_check=True)
        for plan in candidate_plans(faces):
            total = 0.0
            for _ in range(REROLL_SAMPLES):
                fresh = roll(sum(plan), rng)
                after = [faces[f] - plan[f] + fresh[f] for f in range(6)]
                total += self._value(after, dice, obs, final_check=True)
            if total / REROLL_SAMPLES > best_value + 0.02:  # re-rolling must clearly pay
                best_plan, best_value = plan, total / REROLL_SAMPLES
        return best_plan

    def _pick(self, obs: dict[str, Any], legal: list[int]) -> int:
        face = obs["pick_face"]
        wanted = self._plan(obs)[face]
        picks = [a for a in legal if PICK_BASE <= a]
        return min(picks, key=lambda a: abs((a - PICK_BASE) % PICK_STRIDE - wanted))


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
