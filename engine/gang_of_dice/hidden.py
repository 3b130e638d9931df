"""Hidden information in Gang of Dice: nothing that exists yet is hidden.

Future cards and dice are chance nodes, and hidden pools (hide_pools) are derivable from the
public history of stakes, so `resample` (State.resample) returns the state itself and
`sample_state` (GangOfDice.sample_state) rebuilds the exact state from any seat's observation.

The state to fill in comes from the caller, game.py (a new GangOfDiceData): this module works on the
data of state.py and never names the class above it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.gang_of_dice.components import CARD_BY_ID, NO_FACES
from engine.gang_of_dice.phases import CARD, PHASE_KINDS, PHASE_NAMES, STATUS_NAMES, WAITING
from engine.gang_of_dice.state import GangOfDiceData


def resample(state: GangOfDiceData, known_to: frozenset[int], rng: random.Random) -> GangOfDiceData:
    return state  # nothing is hidden that exists yet (see above)


def sample_state(initial: GangOfDiceData, obs: Mapping[str, Any], rng: random.Random) -> GangOfDiceData:
    """The state one seat's observation describes (nothing is hidden, see `resample`):
    `initial`, a new game of the same configuration, with every field set from `obs` (`rng`
    is unused).

    Hidden pools (hide_pools) are recomputed from the public history of stakes and wins.
    """
    s = initial
    cfg = s.cfg
    n = cfg.num_players
    s.cfg, s.num_players, s.phase = cfg, n, PHASE_NAMES.index(obs["phase"])
    s.round, s.pot, s.start_seat = obs["round"], obs["pot"], obs["start_player"]
    s.cards = tuple(CARD_BY_ID[card].number for card in obs["cards_revealed"])
    s.active, s.order = tuple(obs["active"]), tuple(obs["turn_order"])
    s.stakes, s.history = tuple(obs["stakes"]), tuple(
        tuple((name, _tuples(value)) for name, value in h.items()) for h in obs["history"])
    s.log = tuple((e["seat"], e["roll"], _tuples(e["rerolled"]), tuple(e["faces"]))
                  for e in obs["log"])
    actor = obs["to_move"]
    faces, rolls = list(obs["faces"]), list(obs["rolls"])
    status = [STATUS_NAMES.index(x) if x != "rolling" else WAITING for x in obs["status"]]
    s.cur, s.cur_rolls = NO_FACES, 0
    if actor is None:
        s.turn = 0 if s.phase == CARD else len(s.order)
    else:
        s.turn = s.order.index(actor)
        s.cur = tuple(faces[actor]) if faces[actor] is not None else NO_FACES
        s.cur_rolls, faces[actor], rolls[actor] = rolls[actor], None, 0
    s.faces, s.rolls, s.status = _tuples(faces), tuple(rolls), tuple(status)
    s.picked = _tuples(obs["picked"])
    s.pick_face = obs["pick_face"] if obs["pick_face"] is not None else 0
    s.to_roll = obs["dice_to_roll"]
    pools = obs["scores"]
    s.pools = tuple(pools) if None not in pools else _pools_from_history(s, pools)
    s.kind = PHASE_KINDS[s.phase]
    return s


def _pools_from_history(s: GangOfDiceData, known: list[int | None]) -> tuple[int, ...]:
    """Every seat's dice: start - stakes + dice won, from the public record."""
    pools = [s.cfg.start_pool - stake for stake in s.stakes]
    for record in s.history:
        fields = dict(record)
        for seat, stake in enumerate(fields["stakes"]):
            pools[seat] -= stake
        if fields["winner"] is not None:
            pools[fields["winner"]] += fields["dice_won"]
    return tuple(p if k is None else k for p, k in zip(pools, known))


def _tuples(value: Any) -> Any:
    """Lists (nested) as tuples: observation data back into state fields."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
