"""Riga's C state (engine/riga/c_state.pyx): the compiled engine plays with it, and it is the
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
from engine.riga import game as game_module
from engine.riga.contract import RigaState
from engine.riga.phases import SPRING_ROWS, TAKE
from tests.engine.c_states import assert_same_error, needs_c_state, step_side_by_side

OPTION_SETS = [dict(use_riga_buildings=riga, use_grand_master=gm)
               for riga, gm in itertools.product((True, False), (True, False))]


def test_the_compiled_engine_plays_riga_with_its_c_state():
    state = registry.make("riga", 3).initial_state()
    if engine.compiled():  # CI's runs: a build that lost the C state fails here, not quietly
        assert game_module.C_STATE is not None
        assert type(state).__name__ == "RigaCState"
    else:
        assert game_module.C_STATE is None and type(state) is RigaState


def reference_initial(players: int, options: dict) -> RigaState:
    return RigaState.initial(players, options["use_riga_buildings"], options["use_grand_master"])


def side_by_side(players: int, options: dict, seed: int, start: RigaState | None = None):
    """Yield (C state, reference state) at every node of one seeded random playout (from `start`)."""
    if start is None:
        fast, ref = registry.make("riga", players, **options).initial_state(), reference_initial(players, options)
    else:
        fast, ref = game_module.C_STATE.from_reference(start), start
    yield from step_side_by_side(fast, ref, seed)

def assert_same_node(fast, ref, players: int, observations: bool) -> None:
    assert fast.key() == ref._values()
    assert fast.kind is ref.kind and fast.acting_players() == ref.acting_players()
    for seat in range(players):
        assert fast.legal_actions(seat) == ref.legal_actions(seat)
        if observations:
            assert fast.observation(seat) == ref.observation(seat)
    if ref.kind is NodeKind.TERMINAL:
        assert fast.returns() == ref.returns() and fast.ranks() == ref.ranks()


@needs_c_state
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(str(v) for v in o.values()))
@pytest.mark.parametrize("players", (2, 3, 4))
def test_every_node_holds_what_the_reference_holds(options, players):
    for seed in (players, 10 + players):
        nodes = 0
        for fast, ref in side_by_side(players, options, seed):
            nodes += 1
            assert_same_node(fast, ref, players, observations=True)
        assert nodes > 200, (players, seed, nodes)


@needs_c_state
@pytest.mark.parametrize("players", (2, 3, 4))
def test_the_cards_under_the_deck_follow_the_shuffled_part_as_in_the_reference(players):
    """Random playouts never empty the shuffled part of the building deck before the end: here
    all but one of its cards are set aside before a spring, so the display takes the cards under
    the deck (flow.run_automatic_steps), and the game goes on to the end beside the reference."""
    spring = next(ref for _, ref in side_by_side(players, OPTION_SETS[0], players)
                  if ref.phase == SPRING_ROWS and ref.year == 2)
    thin = spring._copy()
    thin.bpool, thin.removed = spring.bpool[:1], spring.removed + spring.bpool[1:]
    assert thin.bbottom
    nodes = 0
    for fast, ref in side_by_side(players, OPTION_SETS[0], 50 + players, start=thin):
        nodes += 1
        assert_same_node(fast, ref, players, observations=ref.phase == TAKE)
    assert not ref.bbottom and nodes > 100


@needs_c_state
def test_it_equals_hashes_and_pickles_as_the_reference():
    for fast, ref in itertools.islice(side_by_side(3, OPTION_SETS[0], 7), 0, 3000, 97):
        assert fast == ref and ref == fast and not fast != ref
        assert hash(fast) == hash(ref)
        again = pickle.loads(pickle.dumps(fast))
        assert again == fast and type(again) is type(fast)
        redrawn = fast.resample({0}, random.Random(1))
        assert type(redrawn) is type(fast) and redrawn == ref.resample({0}, random.Random(1))
    first, later = registry.make("riga", 3).initial_state(), fast
    assert first != later and hash(first) != hash(later)


@needs_c_state
def test_what_it_does_not_write_in_c_is_the_references():
    game = registry.make("riga", 3)
    for fast, ref in itertools.islice(side_by_side(3, OPTION_SETS[0], 5), 200, 2000, 150):
        assert fast.hgoods == ref.hgoods and fast.log == ref.log  # fields by name
        if ref.kind is NodeKind.CHANCE:
            assert fast.chance_outcomes() == ref.chance_outcomes()
            outcome = ref.chance_outcomes()[0][0]
            assert fast.chance_label(outcome) == ref.chance_label(outcome)
        if ref.kind is NodeKind.DECISION:
            seat = ref.acting_players()[0]
            rebuilt = game.sample_state(fast.observation(seat), random.Random(0))
            assert type(rebuilt) is type(fast)
            assert rebuilt.observation(seat) == fast.observation(seat)


@needs_c_state
def test_a_bad_argument_gets_the_references_error_word_for_word():
    state = registry.make("riga", 3).initial_state()
    cases = [
        (lambda s: s.apply_chance(3), IllegalChanceOutcomeError),
        (lambda s: s.apply_chance(2**70), IllegalChanceOutcomeError),
        (lambda s: s.apply_chance("1"), IllegalChanceOutcomeError),
        (lambda s: s.apply({0: 2}), Exception),  # a chance node: WrongNodeError
        (lambda s: s.legal_actions(7), InvalidSeatError),
        (lambda s: s.observation(-1), InvalidSeatError),
        (lambda s: s.returns(), Exception),
    ]
    for call, error in cases:
        assert_same_error(call, state, state.reference(), error)
    keeping = next(fast for fast, ref in side_by_side(3, OPTION_SETS[0], 3) if ref.kind is NodeKind.DECISION)
    (seat,) = keeping.acting_players()
    for bad in ({seat: 5}, {seat: 2**70}, {seat: 0, (seat + 1) % 3: 0}, {(seat + 1) % 3: 0}, {seat: "0"}):
        assert_same_error(lambda s, bad=bad: s.apply(bad), keeping, keeping.reference(), IllegalActionError)


@needs_c_state
def test_what_the_fast_path_passes_on_still_plays_as_the_reference():
    keeping = next(fast for fast, ref in side_by_side(3, OPTION_SETS[0], 3) if ref.kind is NodeKind.DECISION)
    (seat,) = keeping.acting_players()
    by_mapping = keeping.apply(MappingProxyType({seat: 1}))  # a Mapping that is not a dict
    assert type(by_mapping) is type(keeping) and by_mapping == keeping.reference().apply({seat: 1})
    by_bool = keeping.apply({seat: True})  # a bool is an int to the reference: the second card
    assert by_bool == by_mapping
    start = registry.make("riga", 3).initial_state()
    assert start.apply_chance(True) == start.reference().apply_chance(1)
