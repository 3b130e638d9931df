"""The Riga `Game`: options, static facts, the initial state and sample_state."""


from __future__ import annotations

import random
from typing import Any

from engine.core import Game, GameInfo, OptionSpec, State
from engine.description import GameDescription
from engine.riga import actions, components, phases
from engine.riga.contract import RigaState
from engine.riga.hidden import sample_state


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

    def initial_state(self) -> RigaState:
        return RigaState.initial(
            self.num_players, self.options["use_riga_buildings"], self.options["use_grand_master"]
        )

    def action_label(self, action: int) -> str:
        return actions.label(action)

    def sample_state(self, observation: dict[str, Any], rng: random.Random) -> State:
        """A state consistent with one seat's observation, its hidden parts drawn with `rng`."""
        options = observation["options"]
        initial = RigaState.initial(self.num_players, options["use_riga_buildings"],
                                    options["use_grand_master"])
        return sample_state(initial, observation, rng)


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
