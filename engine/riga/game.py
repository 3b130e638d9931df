"""The Riga `Game`: options, static facts, the initial state and sample_state."""


from __future__ import annotations

import random
from typing import Any

from engine.core import AnyState, Game, GameInfo, OptionSpec
from engine.description import GameDescription
from engine.implementation import c_state_class
from engine.riga import actions, components, phases
from engine.riga.contract import RigaState
from engine.riga.hidden import sample_state

# The compiled engine plays with the C state (c_state.pyx) when the build made it: the same rules
# over fixed arrays and card bit sets, every option; else None.
C_STATE = c_state_class("riga")


class Riga(Game):
    """Riga with the Grand Master tiles (registry id "riga")."""

    info = GameInfo(
        id="riga",
        name="Riga with the Grand Master tiles",
        version="1",
        min_players=2,
        max_players=4,
        simultaneous=False,
        hidden_info=True,
        num_actions=actions.NUM_ACTIONS,
        # 4 keeps + 64 turns x (take + 3 builds x (start + 8 payments) + end) + 8 winters x 92 discards
        max_decisions=2600,
        options={
            "use_riga_buildings": OptionSpec(True, (True, False), "play with the brown Riga buildings"),
            "use_grand_master": OptionSpec(True, (True, False), "play with 4 Grand Master tiles"),
        },
    )

    def initial_state(self) -> AnyState:
        state_class = RigaState if C_STATE is None else C_STATE
        return state_class.initial(
            self.num_players, self.options["use_riga_buildings"], self.options["use_grand_master"]
        )

    def action_label(self, action: int) -> str:
        return actions.label(action)

    def sample_state(self, observation: dict[str, Any], rng: random.Random) -> AnyState:
        """A state consistent with one seat's observation, its hidden parts drawn with `rng`."""
        options = observation["options"]
        initial = RigaState.initial(self.num_players, options["use_riga_buildings"],
                                    options["use_grand_master"])
        state = sample_state(initial, observation, rng)
        return state if C_STATE is None else C_STATE.from_reference(state)


CARD_CODES = components.CARD_CODES

DESCRIPTION = GameDescription(
    Riga,
    max_chance_outcomes=52,  # building card ids 0..51 (tiles 0..7, goods 0..3, seats)
    observation_names={
        "phase": phases.PHASE_NAMES,
        "season": phases.SEASON_NAMES,
        "rows[][]": components.GOOD_NAMES,
        "tiles[].tile": components.TILE_NAMES,
        "tiles[].side": components.SIDE_NAMES,
        "tiles_turned_over[]": components.TILE_NAMES,
        "tiles_drawn[]": components.TILE_NAMES,
        **{place: CARD_CODES for place in (
            "players[].riga_supply[]", "players[].tableau[]", "players[].known_buildings[]", "players[].credits_used[]",
            "pending_build.card", "pending_build.paid_credits[]", "hand_buildings[]", "start_choice[]",
            "my_cards_under_deck[]", "display_new[]", "display_old[]", "removed_buildings[]")},
    },
    heuristic="bots.heuristic.riga:RigaHeuristic",
    board_script="games/riga.js",
    board_style="games/riga.css",
)
