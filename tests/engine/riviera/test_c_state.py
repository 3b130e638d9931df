"""Riviera's C state (engine/riviera/c_state.pyx): the compiled engine plays with it, and it is the
reference's game node for node, every option, with the reference's errors and values.

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
from engine.riviera import game as game_module
from engine.riviera.contract import RivieraState
from engine.riviera.hidden import sample_state
from tests.engine.c_states import assert_same_error, needs_c_state, step_side_by_side

# Every rule switch both ways (8 sets), each with a different row of the numeric options, so that
# every value of every option plays at least once (allowChangeCommitment is UI only).
SWITCHES = list(itertools.product(("simultaneous", "sequential"), (True, False), (True, False)))
NUMBERS = [  # removedColour, startPlayer, maxSameColourInHand, maxAutoRerolls, winningScore, maxRounds
    ("random", -1, 6, 2, 40, 0),
    ("R", 0, 5, 0, 20, 3),
    ("G", 1, 7, 1, 30, 5),
    ("P", -1, 10, 3, 50, 1),
    ("B", 0, 6, 2, 40, 10),
    ("O", 1, 5, 1, 20, 20),
    ("random", -1, 7, 3, 30, 50),
    ("G", -1, 10, 0, 40, 0),
]
OPTION_SETS = [
    dict(playMode=mode, rerollBustingFirstRolls=reroll, deferredPowersRequireOwnerInRound=require,
         removedColour=removed, startPlayer=start, maxSameColourInHand=same, maxAutoRerolls=rerolls,
         winningScore=score, maxRounds=rounds, allowChangeCommitment=reroll)
    for (mode, reroll, require), (removed, start, same, rerolls, score, rounds) in zip(SWITCHES, NUMBERS)
]


def test_the_compiled_engine_plays_riviera_with_its_c_state():
    state = registry.make("riviera", 3).initial_state()
    if engine.compiled():  # CI's runs: a build that lost the C state fails here, not quietly
        assert game_module.C_STATE is not None
        assert type(state).__name__ == "RivieraCState"
    else:
        assert game_module.C_STATE is None and type(state) is RivieraState


def side_by_side(players: int, options: dict, seed: int):
    """Yield (C state, reference state) at every node of one seeded random playout."""
    game = registry.make("riviera", players, **options)
    fast, ref = game.initial_state(), RivieraState(game.rules)
    yield from step_side_by_side(fast, ref, seed)

def assert_same_node(fast, ref, players: int, where: tuple = ()) -> None:
    assert fast.key() == ref._values()[2:], where
    assert fast.kind is ref.kind and fast.acting_players() == ref.acting_players()
    for seat in range(players):
        assert fast.legal_actions(seat) == ref.legal_actions(seat)
    if ref.kind is NodeKind.TERMINAL:
        assert fast.returns() == ref.returns() and fast.ranks() == ref.ranks()


@needs_c_state
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_every_node_holds_what_the_reference_holds(options):
    for players in range(2, 7):
        nodes, seed = 0, players
        while nodes < 400:  # a Grand Slam can end a game early: more seeds, not fewer nodes
            for fast, ref in side_by_side(players, options, seed):
                nodes += 1
                assert_same_node(fast, ref, players, (players, seed, nodes))
                for seat in range(players):
                    assert fast.observation(seat) == ref.observation(seat)
            seed += 10


@needs_c_state
@pytest.mark.parametrize("players", range(2, 7))
def test_many_seeds_play_as_the_reference(players):
    """Default options, more seeds: the rarer paths (swaps, fallbacks, Grand Slams, redone deals)."""
    for seed in range(100, 106):
        for fast, ref in side_by_side(players, {}, seed):
            assert_same_node(fast, ref, players)


@needs_c_state
def test_it_equals_pickles_and_refuses_a_hash_as_the_reference():
    for fast, ref in itertools.islice(side_by_side(3, {}, 7), 0, 1500, 37):
        assert fast == ref and ref == fast and not fast != ref
        for state in (fast, ref):
            with pytest.raises(TypeError, match="unhashable"):
                hash(state)
        again = pickle.loads(pickle.dumps(fast))
        assert again == fast and type(again) is type(fast)
        resampled = fast.resample({0}, random.Random(1))
        assert type(resampled) is type(fast) and resampled == ref.resample({0}, random.Random(1))
    first, later = registry.make("riviera", 3).initial_state(), fast
    assert first != later and first != object()


@needs_c_state
def test_what_it_does_not_write_in_c_is_the_references():
    for fast, ref in itertools.islice(side_by_side(3, {}, 5), 0, 800, 23):
        assert fast.hands == ref.hands and fast.events == ref.events  # fields by name
        if ref.kind is NodeKind.CHANCE:
            assert fast.chance_outcomes() == ref.chance_outcomes()
            outcome = ref.chance_outcomes()[0][0]
            assert fast.chance_label(outcome) == ref.chance_label(outcome)
            assert fast.voided_chance_steps(outcome) == ref.voided_chance_steps(outcome)
        if ref.kind is NodeKind.DECISION:
            game = registry.make("riviera", 3)
            (seat, *_) = ref.acting_players()
            rebuilt = game.sample_state(fast.observation(seat), random.Random(0))
            assert type(rebuilt) is type(fast)
            assert rebuilt == sample_state(RivieraState(game.rules), ref.observation(seat),
                                                       random.Random(0))


def first_decision(players: int = 3):
    state, rng = registry.make("riviera", players).initial_state(), random.Random(0)
    while state.kind is NodeKind.CHANCE:
        state = state.apply_chance(sample_chance(state, rng))
    return state


@needs_c_state
def test_a_bad_argument_gets_the_references_error_word_for_word():
    state = registry.make("riviera", 3).initial_state()
    ref = state.reference()
    cases = [
        (lambda s: s.apply_chance(7), IllegalChanceOutcomeError),
        (lambda s: s.apply_chance("1"), IllegalChanceOutcomeError),
        (lambda s: s.apply({0: 2}), Exception),  # a chance node: WrongNodeError
        (lambda s: s.legal_actions(7), InvalidSeatError),
        (lambda s: s.observation(-1), InvalidSeatError),
        (lambda s: s.returns(), Exception),
    ]
    for call, error in cases:
        assert_same_error(call, state, ref, error)
    choosing = first_decision()
    acting = choosing.acting_players()
    legal = {seat: choosing.legal_actions(seat)[0] for seat in acting}
    seat = acting[0]
    for bad in ({seat: 203}, {seat: legal[seat]}, {**legal, 9: 0}, {**legal, seat: "2"}, {**legal, seat: 300}):
        assert_same_error(lambda s, bad=bad: s.apply(bad), choosing, choosing.reference(), IllegalActionError)


@needs_c_state
def test_what_the_fast_path_passes_on_still_plays_as_the_reference():
    choosing = first_decision()
    legal = {seat: choosing.legal_actions(seat)[-1] for seat in choosing.acting_players()}
    by_mapping = choosing.apply(MappingProxyType(legal))  # a Mapping that is not a dict
    assert type(by_mapping) is type(choosing) and by_mapping == choosing.reference().apply(legal)
    rolling = registry.make("riviera", 2, removedColour="R", startPlayer=0).initial_state()
    rng = random.Random(1)
    while rolling.phase != 3:  # ROLL
        rolling = rolling.apply_chance(sample_chance(rolling, rng))
    rolled = rolling.apply_chance(True)  # a bool is an int to the reference: the face 1
    assert rolled == rolling.reference().apply_chance(1)
