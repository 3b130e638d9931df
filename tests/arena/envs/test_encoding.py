"""The shared encoder and payoffs of the environments (arena/envs/encoding.py, payoffs.py)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zlib

import numpy as np
import pytest

from arena.envs.encoding import ObservationEncoder, action_mask, features
from arena.envs.payoffs import rank_payoffs
from engine import registry
from engine.core import NodeKind, sample_chance


def playout_observations(game_id: str, players: int, seed: int) -> list[dict]:
    game, rng = registry.make(game_id, players), random.Random(seed)
    state, seen = game.initial_state(), []
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, rng))
            continue
        seen += [state.observation(seat) for seat in range(players)]
        state = state.apply({s: rng.choice(state.legal_actions(s)) for s in state.acting_players()})
    return seen


def test_features_name_numbers_one_hot_scalars_list_members_and_lengths() -> None:
    assert features({"phase": "turn", "hand": [12, 40], "done": False, "gold": None, "dice": {"R": 6}}) == [
        ('phase="turn"', 1.0), ("hand[]#", 2.0), ("hand[]=12", 1.0), ("hand[0]", 12.0),
        ("hand[]=40", 1.0), ("hand[1]", 40.0), ("done=false", 1.0), ("gold=null", 1.0), ("dice.R", 6.0)]


def test_each_feature_adds_its_value_at_its_crc32_slot() -> None:
    vector = ObservationEncoder(64).encode({"scores": [3], "phase": "turn"})
    expected = np.zeros(64, np.float32)
    for name, value in [("scores[]#", 1), ("scores[]=3", 1), ("scores[0]", 3), ('phase="turn"', 1)]:
        expected[zlib.crc32(name.encode()) % 64] += value
    assert vector.dtype == np.float32 and np.array_equal(vector, expected)


def test_the_encoding_is_the_same_in_another_process() -> None:
    observation = playout_observations("riviera", 3, seed=4)[10]
    code = ("import json, sys; from arena.envs.encoding import ObservationEncoder; "
            "print(json.dumps(ObservationEncoder().encode(json.loads(sys.stdin.read())).tolist()))")
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(observation), capture_output=True,
                         text=True, check=True).stdout
    assert json.loads(out) == ObservationEncoder().encode(observation).tolist()


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_different_observations_of_a_playout_get_different_vectors_of_one_length(game_id: str) -> None:
    observations = playout_observations(game_id, registry.info(game_id).max_players, seed=1)
    vectors = [ObservationEncoder().encode(o) for o in observations]
    assert {v.shape for v in vectors} == {(4096,)}
    distinct = {json.dumps(o, sort_keys=True) for o in observations}
    assert len({v.tobytes() for v in vectors}) == len(distinct)


def test_a_bad_size_is_refused() -> None:
    with pytest.raises(ValueError, match="encoding size must be a positive integer, got 0"):
        ObservationEncoder(0)


def test_the_action_mask_marks_exactly_the_legal_ids() -> None:
    assert action_mask([0, 3], 5).tolist() == [1, 0, 0, 1, 0] and action_mask([0], 5).dtype == np.int8


@pytest.mark.parametrize(("ranks", "payoffs"), [
    ([1, 2], [1.0, -1.0]), ([1, 1], [0.0, 0.0]), ([2, 1, 3], [0.0, 1.0, -1.0]),
    ([1, 1, 3, 4], [2 / 3, 2 / 3, -1 / 3, -1.0]), ([1, 2, 2, 2, 2, 2], [1.0, -0.2, -0.2, -0.2, -0.2, -0.2])])
def test_rank_payoffs_are_pairwise_records_that_sum_to_zero(ranks: list[int], payoffs: list[float]) -> None:
    assert rank_payoffs(ranks) == pytest.approx(payoffs) and sum(rank_payoffs(ranks)) == pytest.approx(0.0)
