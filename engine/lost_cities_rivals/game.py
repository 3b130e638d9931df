"""The Lost Cities: Rivals `Game`: options, static facts, the initial state and sample_state."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.core import AnyState, Game, GameInfo, IllegalChanceOutcomeError, InvalidOptionError, OptionSpec
from engine.description import GameDescription
from engine.implementation import c_state_class
from engine.lost_cities_rivals import phases
from engine.lost_cities_rivals.actions import MAX_BID, NUM_ACTIONS, action_label
from engine.lost_cities_rivals.components import COLOURS, DECK_SIZE, LABELS
from engine.lost_cities_rivals.contract import RivalsState
from engine.lost_cities_rivals.hidden import sample_state

# Per turn at most: the opening bid and raises (bids rise from 1 to at most 36), 3 passes,
# END_TAKE and the box decision; plus at most one PLACE per deck card over the whole game.
_MAX_DECISIONS = DECK_SIZE * (MAX_BID + 3 + 2) + DECK_SIZE
# The compiled engine plays with the C state (c_state.pyx) when the build made it: the same rules
# over fixed arrays, every option; else None.
C_STATE = c_state_class("lost_cities_rivals")


class LostCitiesRivals(Game):
    """Lost Cities: Rivals for 2-4 players (see the package docstring for the protocol)."""

    info = GameInfo(
        id="lost_cities_rivals",
        name="Lost Cities: Rivals",
        version="1",
        min_players=2,
        max_players=4,
        simultaneous=False,
        hidden_info=False,
        num_actions=NUM_ACTIONS,
        max_decisions=_MAX_DECISIONS,
        options={
            "start_player": OptionSpec(0, (0, 1, 2, 3), "seat that takes the first turn"),
            "display_limit": OptionSpec(
                0, (0, 4, 8), "0 = no limit; else a full display forces a seat with coins to auction"
            ),
        },
    )

    def __init__(self, num_players: int, **options: Any) -> None:
        super().__init__(num_players, **options)
        if self.options["start_player"] >= num_players:
            raise InvalidOptionError(
                f"lost_cities_rivals option start_player={self.options['start_player']} needs "
                f"a seat below {num_players}; choose one of: {', '.join(map(str, range(num_players)))}"
            )

    def initial_state(self) -> AnyState:
        """Before the deal: the starting wagers are dealt by chance nodes, seat 0 first."""
        if C_STATE is not None:
            return C_STATE.initial(self.num_players, self.options["display_limit"], self.options["start_player"])
        return RivalsState(self.num_players, self.options["display_limit"], self.options["start_player"])

    def start_with(self, starting_wagers: Sequence[str]) -> AnyState:
        """The state after an explicit deal, e.g. `start_with(["RG", "GB", "YW"])` (for tests).

        Each entry gives one seat's two starting-wager colours (different, two of each colour
        exist); the result is the start player's first turn.
        """
        state = self.initial_state()
        if len(starting_wagers) != self.num_players:
            raise IllegalChanceOutcomeError(f"need starting wagers for {self.num_players} seats")
        for pair in starting_wagers:
            if len(pair) != 2 or pair[0] == pair[1]:
                raise IllegalChanceOutcomeError(f"starting wagers {pair!r} must be two different colours")
            for colour in pair:
                state = state.apply_chance(COLOURS.index(colour))
        return state

    def sample_state(self, observation: dict[str, Any], rng: random.Random) -> AnyState:
        """The state itself: an observation holds everything, the deck order is chance."""
        initial = RivalsState(observation["num_players"], observation["display_limit"],
                              observation["start_player"])
        state = sample_state(initial, observation, rng)
        return state if C_STATE is None else C_STATE.from_reference(state)

    def action_label(self, action: int) -> str:
        return action_label(action)


DESCRIPTION = GameDescription(
    LostCitiesRivals,
    max_chance_outcomes=50,  # card kinds 0..49
    observation_names={
        "phase": phases.PHASE_NAMES,
        "starting_wagers[][]": tuple(COLOURS),
        "starting_wager_bottom[]": tuple(COLOURS),
        "display[]": LABELS,
        "box[]": LABELS,
    },
    heuristic="bots.heuristic.lost_cities_rivals:RivalsHeuristic",
    board_script="games/lost_cities_rivals.js",
    board_style="games/lost_cities_rivals.css",
)
