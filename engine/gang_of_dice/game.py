"""The Gang of Dice `Game`: options (the variants), static facts, the initial state."""

from __future__ import annotations

import random
from typing import Any

from engine.core import AnyState, Game, GameInfo, OptionSpec
from engine.description import GameDescription
from engine.gang_of_dice import actions, phases
from engine.gang_of_dice.components import CARDS, ROUNDS
from engine.gang_of_dice.contract import GangOfDiceState
from engine.gang_of_dice.hidden import sample_state
from engine.gang_of_dice.state import Config
from engine.implementation import c_state_class

START_POOL = {2: 48, 3: 48, 4: 36}  # dice (or dice-equivalents) each (rules §1.1, §1.2)
PHYSICAL_DEFAULTS = {"deck_mode": "two_deck", "hide_pools": True}
# Per turn: stake, then twice (REROLL + one PICK per face) = 1 + 2 * (1 + 6).
MAX_DECISIONS_PER_TURN = 15
# The compiled engine plays with the C state (c_state.pyx) when the build made it: the same rules
# over fixed arrays, 2.5x the seat decisions/s of the mypyc state (BENCHMARKS.md); else None.
C_STATE = c_state_class("gang_of_dice")


class GangOfDice(Game):
    """Gang of Dice: `registry.make("gang_of_dice", num_players, **options)`."""

    info = GameInfo(
        id="gang_of_dice",
        name="Gang of Dice",
        version="1",
        min_players=2,
        max_players=4,
        simultaneous=False,
        hidden_info=False,
        num_actions=actions.NUM_ACTIONS,
        max_decisions=ROUNDS * 4 * MAX_DECISIONS_PER_TURN,
        options={
            "variant": OptionSpec("bga", ("bga", "physical"),
                                  "bga (default) or the physical box; physical implies "
                                  "deck_mode=two_deck and hide_pools=True unless given"),
            "deck_mode": OptionSpec("uniform", ("uniform", "two_deck"),
                                    "uniform: 12 of 18 cards at random; two_deck: 9 bright then 3 dark"),
            "hide_pools": OptionSpec(False, (False, True), "hide other seats' dice counts"),
            "g_counts_as_distinct": OptionSpec(False, (False, True),
                                               "each G counts as a different value (W08/W09)"),
            "start_rule": OptionSpec("rotate", ("rotate", "winner_starts", "fixed"),
                                     "who starts the next round"),
        },
    )

    def __init__(self, num_players: int, **options: Any) -> None:
        super().__init__(num_players, **options)
        if self.options["variant"] == "physical":
            for name, value in PHYSICAL_DEFAULTS.items():
                if name not in options:
                    self.options[name] = value
        self.config = Config(
            num_players=self.num_players,
            start_pool=START_POOL[self.num_players],
            deck_mode=self.options["deck_mode"],
            hide_pools=self.options["hide_pools"],
            g_distinct=self.options["g_counts_as_distinct"],
            start_rule=self.options["start_rule"],
            options=tuple(sorted(self.options.items())),
        )

    def initial_state(self) -> AnyState:
        """Round 1, before its warning card is revealed (a chance node)."""
        if C_STATE is not None:
            return C_STATE.initial(self.config)
        return GangOfDiceState.initial(self.config)

    def sample_state(self, observation: dict[str, Any], rng: random.Random) -> AnyState:
        """The state an observation describes: Gang of Dice hides nothing that exists yet."""
        state = sample_state(GangOfDiceState.initial(self.config), observation, rng)
        return state if C_STATE is None else C_STATE.from_reference(state)

    def action_label(self, action: int) -> str:
        """"stops", "re-rolls some dice", "stakes 7 dice" or "re-rolls 2 dice showing 5"."""
        return actions.label(action)


STATUS_NAMES = (*phases.STATUS_NAMES, "rolling")  # observe.py: the seat whose dice are rolling
CARD_IDS = tuple(card.id for card in CARDS)

DESCRIPTION = GameDescription(
    GangOfDice,
    max_chance_outcomes=19,  # warning cards 1..18, die faces 0..5
    observation_names={
        "phase": phases.PHASE_NAMES,
        "status[]": STATUS_NAMES,
        "history[].status[]": STATUS_NAMES,
        "card.id": CARD_IDS,
        "card.art": tuple(card.art for card in CARDS),
        "card.colour": tuple(card.colour for card in CARDS),
        "card.predicate": tuple(card.predicate for card in CARDS),
        "cards_revealed[]": CARD_IDS,
        "history[].card": CARD_IDS,
    },
    heuristic="bots.heuristic.gang_of_dice:GangOfDiceHeuristic",
    board_script="games/gang_of_dice.js",
    board_style="games/gang_of_dice.css",
)
