"""Lost Cities: Rivals' C state (engine/lost_cities_rivals/c_state.pyx): the compiled engine plays
with it, and it is the reference's game node for node, every option, with the reference's errors
and values.

tests/engine/test_differential.py compares the compiled engine (so this C state) with the Python
sources in another process; here the C state and the mypyc state of the same sources step side by
side in one process, comparing every field, not only what a seat sees.
"""

from __future__ import annotations

import itertools
import pickle
import random
from types import MappingProxyType

import pytest

import engine
from engine import registry
from engine.core import IllegalActionError, IllegalChanceOutcomeError, InvalidSeatError, NodeKind, sample_chance
from engine.lost_cities_rivals import game as game_module
from engine.lost_cities_rivals.contract import RivalsState
from tests.engine.c_states import assert_same_error, needs_c_state, step_side_by_side

OPTION_SETS = [dict(display_limit=limit, start_player=start) for limit in (0, 4, 8) for start in (0, 1)]


def test_the_compiled_engine_plays_lost_cities_rivals_with_its_c_state():
    state = registry.make("lost_cities_rivals", 3).initial_state()
    if engine.compiled():  # CI's runs: a build that lost the C state fails here, not quietly
        assert game_module.C_STATE is not None
        assert type(state).__name__ == "LostCitiesRivalsCState"
    else:
        assert game_module.C_STATE is None and type(state) is RivalsState


def side_by_side(players: int, options: dict, seed: int):
    """Yield (C state, reference state) at every node of one seeded random playout."""
    game = registry.make("lost_cities_rivals", players, **options)
    fast = game.initial_state()
    ref = RivalsState(players, options["display_limit"], options["start_player"])
    yield from step_side_by_side(fast, ref, seed)

@needs_c_state
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_every_node_holds_what_the_reference_holds(options):
    for players, seed in ((2, 1), (3, 2), (4, 3), (2, 4)):
        if options["start_player"] >= players:
            continue
        nodes = 0
        for fast, ref in side_by_side(players, options, seed):
            nodes += 1
            assert fast.key() == ref._key(), (players, seed, nodes)
            assert fast.points == ref.points
            assert fast.kind is ref.kind and fast.acting_players() == ref.acting_players()
            for seat in range(players):
                assert fast.legal_actions(seat) == ref.legal_actions(seat)
                assert fast.observation(seat) == ref.observation(seat)
            if ref.kind is NodeKind.TERMINAL:
                assert fast.returns() == ref.returns() and fast.ranks() == ref.ranks()
        assert nodes > 200


@needs_c_state
def test_it_equals_hashes_and_pickles_as_the_reference():
    for fast, ref in itertools.islice(side_by_side(3, OPTION_SETS[2], 7), 0, 400, 37):
        assert fast == ref and ref == fast and not fast != ref
        assert hash(fast) == hash(ref)
        again = pickle.loads(pickle.dumps(fast))
        assert again == fast and type(again) is type(fast)
        assert fast.resample({0}, random.Random(1)) == fast
    first, later = registry.make("lost_cities_rivals", 3).initial_state(), fast
    assert first != later and hash(first) != hash(later)
    assert first != "a state" and (first == 1) is False


@needs_c_state
def test_what_it_does_not_write_in_c_is_the_references():
    fast, ref = next(itertools.islice(side_by_side(3, OPTION_SETS[0], 5), 60, None))
    assert fast.display == ref.display and fast.numbers == ref.numbers  # fields by name
    if ref.kind is NodeKind.CHANCE:
        assert fast.chance_outcomes() == ref.chance_outcomes()
    game = registry.make("lost_cities_rivals", 3)
    rebuilt = game.sample_state(fast.observation(0), random.Random(0))
    assert type(rebuilt) is type(fast) and rebuilt == fast
    started = game.start_with(["RG", "GB", "YW"])
    assert type(started) is type(fast) and started.reference() == game.start_with(["RG", "GB", "YW"]).reference()


@needs_c_state
def test_a_bad_argument_gets_the_references_error_word_for_word():
    state = registry.make("lost_cities_rivals", 3).initial_state()
    ref = state.reference()
    cases = [
        (lambda s: s.apply_chance(7), IllegalChanceOutcomeError),
        (lambda s: s.apply_chance("1"), IllegalChanceOutcomeError),
        (lambda s: s.apply({0: 0}), Exception),  # a chance node: WrongNodeError
        (lambda s: s.legal_actions(7), InvalidSeatError),
        (lambda s: s.observation(-1), InvalidSeatError),
        (lambda s: s.returns(), Exception),
    ]
    for call, error in cases:
        assert_same_error(call, state, ref, error)
    turn = registry.make("lost_cities_rivals", 3).start_with(["RG", "GB", "YW"])
    (seat,) = turn.acting_players()
    for bad in ({seat: 2}, {seat: 0, (seat + 1) % 3: 0}, {(seat + 1) % 3: 0}, {seat: "0"}):
        assert_same_error(lambda s, bad=bad: s.apply(bad), turn, turn.reference(), IllegalActionError)


@needs_c_state
def test_what_the_fast_path_passes_on_still_plays_as_the_reference():
    turn = registry.make("lost_cities_rivals", 3).start_with(["RG", "GB", "YW"])
    (seat,) = turn.acting_players()
    by_mapping = turn.apply(MappingProxyType({seat: 0}))  # a Mapping that is not a dict
    assert type(by_mapping) is type(turn) and by_mapping == turn.reference().apply({seat: 0})
    revealed = by_mapping.apply_chance(True)  # a bool is an int to the reference: the kind 1
    assert revealed == by_mapping.reference().apply_chance(1)
