"""Lost Cities: Rivals and Riga answer the base class's speed hooks (`_chance_distribution`,
`_is_chance_outcome`, `_is_legal`) from their memos and decks: the answers must be exactly what
chance_outcomes() and legal_actions() list, whether asked before or after the lists."""

from __future__ import annotations

import random
from itertools import accumulate

import pytest

from engine import registry
from engine.core import NodeKind, sample_chance


@pytest.mark.parametrize("game_id", ["lost_cities_rivals", "riga"])
@pytest.mark.parametrize("players", [2, 4])
def test_the_speed_hooks_agree_with_the_lists(game_id: str, players: int) -> None:
    game, rng = registry.make(game_id, players), random.Random(players)
    state = game.initial_state()
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            fresh = state._copy()  # no memo yet: the hook works out the answer itself
            offered = {o for o, _ in state.chance_outcomes()}
            candidates = [*range(min(offered) - 2, max(offered) + 3), True, 1.0, "1"]
            assert {o for o in candidates if fresh._is_chance_outcome(o)} == {o for o in candidates if o in offered}
            assert {o for o in candidates if state._is_chance_outcome(o)} == {o for o in candidates if o in offered}
            values, cumulative = state._chance_distribution()  # any sequences (cached tables: tuples)
            assert list(values) == [o for o, _ in state.chance_outcomes()]
            assert list(cumulative) == list(accumulate(p for _, p in state.chance_outcomes()))
            state = state.apply_chance(sample_chance(state, rng))
            continue
        (seat,) = state.acting_players()
        fresh, legal = state._copy(), state.legal_actions(seat)
        candidates = range(-1, game.info.num_actions + 1)
        assert [a for a in candidates if fresh._is_legal(seat, a)] == legal
        state.legal_actions(seat).clear()  # a caller may change its list: the memo stays whole
        assert [a for a in candidates if state._is_legal(seat, a)] == legal == state.legal_actions(seat)
        state = state.apply({seat: rng.choice(legal)})
