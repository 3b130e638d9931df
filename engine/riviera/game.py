"""The Riviera `Game`: options (rules §6.1), static facts, and the initial state."""

from __future__ import annotations

import random
from typing import Any

from engine.core import AnyState, Game, GameInfo, InvalidOptionError, OptionSpec
from engine.description import GameDescription
from engine.implementation import c_state_class
from engine.riviera import phases
from engine.riviera.actions import NUM_ACTIONS, action_label
from engine.riviera.components import COLOURS, DIE_NAMES, MAX_SEATS
from engine.riviera.contract import RivieraState
from engine.riviera.hidden import sample_state
from engine.riviera.state import Rules

# A game has no round limit in the rules (§5.6), but the contract needs a finite
# max_decisions: with maxRounds = 0 ("off") this cap still ends a game that no one can win.
HARD_ROUND_CAP = 100
# Bounds behind max_decisions. A turn: ≤ 5 die changes (one per 9), ≤ 6 choose nodes
# (sequential), ≤ 10 bonus nodes (5 cards 1, plus one pass per player who played a 1),
# ≤ 3 power nodes per player (swap: target + 2 cards), ≤ 6 stop-or-more nodes.
# A round: every IN player plays a card, uses Last Chance (once) or crashes each turn, and
# the 10th card played ends the game (Grand Slam), so a round has at most 11 turns.
MAX_NODES_PER_TURN = 5 + MAX_SEATS + 10 + 3 * MAX_SEATS + MAX_SEATS
MAX_TURNS_PER_ROUND = 11
# The compiled engine plays with the C state (c_state.pyx) when the build made it: the same rules,
# every option, over fixed arrays and card masks; else None.
C_STATE = c_state_class("riviera")

OPTIONS = {
    "playMode": OptionSpec(
        "simultaneous", ("simultaneous", "sequential"),
        "simultaneous = BGA (secret choices revealed together); sequential = physical rulebook "
        "(one at a time clockwise from the Holder, §6.3)",
    ),
    "rerollBustingFirstRolls": OptionSpec(
        True, (True, False),
        "first roll of a round: reroll (unseen) while some player has no legal card (§6.2)",
    ),
    "maxAutoRerolls": OptionSpec(2, (2, 0, 1, 3), "most automatic rerolls of a first roll"),
    "deferredPowersRequireOwnerInRound": OptionSpec(
        True, (True, False),
        "a pending 2/9/11 works at the next roll only if its owner is still IN (§4.0)",
    ),
    "removedColour": OptionSpec(
        "random", ("random",) + COLOURS,
        "colour left out with 2-4 players (random = a chance node); ignored with 5-6 players",
    ),
    "startPlayer": OptionSpec(
        -1, tuple(range(-1, MAX_SEATS)), "seat holding the Start token first (-1 = chance node)"
    ),
    "maxSameColourInHand": OptionSpec(
        6, (6, 5, 7, 10), "a deal giving a hand more cards of one colour is silently redone"
    ),
    "winningScore": OptionSpec(40, (40, 20, 30, 50), "the game ends at a round end with this"),
    "allowChangeCommitment": OptionSpec(
        True, (True, False),
        "UI only: a seat may replace its secret commitment until the phase closes; the engine "
        "takes all simultaneous commitments in one step, so rules are the same either way",
    ),
    "maxRounds": OptionSpec(
        0, (0, 1, 3, 5, 10, 20, 50),
        f"end after this many rounds, highest score wins (0 = off; a hard cap of "
        f"{HARD_ROUND_CAP} rounds still applies)",
    ),
}


class Riviera(Game):
    """Riviera for 2 to 6 players; see the package docstring for actions and observations."""

    info = GameInfo(
        id="riviera",
        name="Riviera",
        version="1",
        min_players=2,
        max_players=MAX_SEATS,
        simultaneous=True,
        hidden_info=True,
        num_actions=NUM_ACTIONS,
        max_decisions=HARD_ROUND_CAP * MAX_TURNS_PER_ROUND * MAX_NODES_PER_TURN,
        options=OPTIONS,
    )

    def __init__(self, num_players: Any, **options: Any) -> None:  # Any: see Game.__init__
        super().__init__(num_players, **options)
        start = self.options["startPlayer"]
        if start >= num_players:
            raise InvalidOptionError(f"riviera option startPlayer={start} needs a seat below {num_players}")
        removed = self.options["removedColour"]
        if num_players >= 5:
            removed_colour = -2
        else:
            removed_colour = -1 if removed == "random" else COLOURS.index(removed)
        cap = self.options["maxRounds"] or HARD_ROUND_CAP
        self.rules = Rules(
            num_players=num_players,
            sequential=self.options["playMode"] == "sequential",
            reroll=self.options["rerollBustingFirstRolls"],
            max_rerolls=self.options["maxAutoRerolls"],
            require_in=self.options["deferredPowersRequireOwnerInRound"],
            removed=removed_colour,
            start=start,
            max_same=self.options["maxSameColourInHand"],
            winning_score=self.options["winningScore"],
            max_rounds=min(cap, HARD_ROUND_CAP),
        )

    def initial_state(self) -> AnyState:
        if C_STATE is not None:
            return C_STATE.initial(self.rules)
        return RivieraState(self.rules)

    def action_label(self, action: int) -> str:
        return action_label(action)

    def sample_state(self, observation: dict[str, Any], rng: random.Random) -> AnyState:
        """A state that gives `observation` to its seat, with every hidden card drawn by `rng`."""
        state = sample_state(RivieraState(self.rules), observation, rng)
        return state if C_STATE is None else C_STATE.from_reference(state)


# engine/riviera/__init__.py, "events": observe.py spells these where it writes the log
EVENT_TYPES = ("play", "bonus", "bonus_pass", "last_chance", "crash", "adjust", "power", "swap", "fallback",
               "stop", "more")

DESCRIPTION = GameDescription(
    Riviera,
    max_chance_outcomes=60,  # card ids 0..59 (colours 0..4, seats, die faces 1..6)
    observation_names={
        "phase": phases.PHASE_NAMES,
        "mode": ("sequential", "simultaneous"),
        "status[]": phases.STATUS_NAMES,
        "colours[]": COLOURS,
        "removed_colour": COLOURS,
        "modified_dice[]": DIE_NAMES,
        "events[].die": DIE_NAMES,
        "events[].type": EVENT_TYPES,
    },
    turn_based_option=("playMode", "sequential"),  # the physical rulebook's mode
    heuristic="bots.heuristic.riviera:RivieraHeuristic",
    board_script="games/riviera.js",
    board_style="games/riviera.css",
)
