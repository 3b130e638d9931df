"""What the games' C-state tests share (tests/engine/<game>/test_c_state.py): the mark that skips
them on the Python sources, a seeded random playout that steps a C state beside its reference, and
the check that both refuse a call with the same error, word for word."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import engine
from engine.core import NodeKind, sample_chance

needs_c_state = pytest.mark.skipif(not engine.compiled(),
                                   reason="the Python sources (ARENA_ENGINE=pure) have no C state")


def step_side_by_side(fast: Any, ref: Any, seed: int) -> Iterator[tuple[Any, Any]]:
    """Yield (C state, reference) at every node of one random playout from this position: chance
    drawn by each from an equally seeded generator (the draws must agree), every acting seat's
    action chosen from the reference's legal actions."""
    fast_rng, ref_rng = random.Random(seed), random.Random(seed)
    while True:
        yield fast, ref
        if ref.kind is NodeKind.TERMINAL:
            return
        if ref.kind is NodeKind.CHANCE:
            outcome = sample_chance(ref, ref_rng)
            assert sample_chance(fast, fast_rng) == outcome
            fast, ref = fast.apply_chance(outcome), ref.apply_chance(outcome)
            continue
        actions = {seat: ref_rng.choice(ref.legal_actions(seat)) for seat in ref.acting_players()}
        for seat in ref.acting_players():
            fast_rng.choice(ref.legal_actions(seat))  # keeps the two generators in step
        fast, ref = fast.apply(actions), ref.apply(actions)


def assert_same_error(call: Callable[[Any], Any], fast: Any, ref: Any, error: type[Exception]) -> None:
    """`call` raises `error` on both states, of one type and with one message."""
    with pytest.raises(error) as fast_error:
        call(fast)
    with pytest.raises(error) as ref_error:
        call(ref)
    assert type(fast_error.value) is type(ref_error.value) and str(fast_error.value) == str(ref_error.value)
