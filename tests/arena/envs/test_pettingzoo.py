"""The PettingZoo adapter: PettingZoo's own API and seed tests for every game and player count, and
the simultaneous decisions, chance, rewards and errors the way arena/envs/pettingzoo.py says."""

from __future__ import annotations

import random
import warnings

import pytest
from pettingzoo.test import api_test, seed_test

from arena.envs.payoffs import rank_payoffs
from arena.envs.pettingzoo import env
from engine import registry
from engine.core import IllegalActionError, NodeKind, sample_chance

VARIANTS = [(game_id, players) for game_id in registry.game_ids()
            for players in range(registry.info(game_id).min_players, registry.info(game_id).max_players + 1)]

# api_test warns about every dict observation space (it checks only "observation" inside it later)
# and passes the whole {"observation", "action_mask"} dict to its ndarray check: PettingZoo's own
# classic games (chess, go) get the same two. Any other warning fails the test.
DICT_OBSERVATION_WARNINGS = ("Observation is not a NumPy array",
                             "Observation space for each agent probably should be gymnasium.spaces.box")


@pytest.mark.parametrize(("game_id", "players"), VARIANTS)
def test_pettingzoo_api_test_passes(game_id: str, players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(game_id, players), num_cycles=1000)
    unexpected = {str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)}
    assert not unexpected


@pytest.mark.parametrize(("game_id", "players"), VARIANTS)
def test_pettingzoo_seed_test_passes(game_id: str, players: int) -> None:
    seed_test(lambda: env(game_id, players), num_cycles=50)


def play_episode(game, seed: int, rng: random.Random) -> list[tuple[str, int]]:
    """A whole episode with random legal actions; the (agent, action) sequence it took."""
    game.reset(seed=seed)
    moves = []
    for agent in game.agent_iter():
        observation, _, terminated, truncated, _ = game.last()
        action = None if terminated or truncated else rng.choice(list(observation["action_mask"].nonzero()[0]))
        moves.append((agent, action))
        game.step(action)
    return moves


def test_a_seed_fixes_the_chance_outcomes_and_different_seeds_differ() -> None:
    game = env("lost_cities_rivals", 2)
    first = play_episode(game, 5, random.Random(1))
    assert play_episode(game, 5, random.Random(1)) == first
    game.reset(seed=5)
    five = game.unwrapped.engine_observation("player_0")
    game.reset(seed=6)
    assert game.unwrapped.engine_observation("player_0") != five, "another seed, another deal"


def first_simultaneous_decision(game, seed: int) -> None:
    game.reset(seed=seed)
    while len(game.unwrapped._acting) < 2:
        mask = game.last()[0]["action_mask"]
        game.step(int(mask.nonzero()[0][0]))


def test_simultaneous_seats_choose_in_turn_without_seeing_each_other_then_act_together() -> None:
    game = env("riviera", 3)
    first_simultaneous_decision(game, seed=3)
    raw = game.unwrapped
    before, chance = raw._state, raw._rng.getstate()
    acting = sorted(before.acting_players())
    seen = {seat: before.observation(seat) for seat in acting}
    joint = {}
    for seat in acting:
        assert game.agent_selection == f"player_{seat}"
        assert game.infos[game.agent_selection]["engine_observation"] == seen[seat], "no seat sees an earlier choice"
        joint[seat] = before.legal_actions(seat)[-1]
        game.step(joint[seat])
    expected, rng = before.apply(joint), random.Random()
    rng.setstate(chance)
    while expected.kind is NodeKind.CHANCE:
        expected = expected.apply_chance(sample_chance(expected, rng))
    assert raw._state == expected, "the joint action, then chance drawn with the env's generator"


def test_the_end_pays_zero_sum_rank_payoffs_and_reports_returns_and_ranks() -> None:
    game = env("gang_of_dice", 3)
    rng, totals = random.Random(2), {}
    game.reset(seed=2)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if terminated:
            final = info
        game.step(None if terminated or truncated else rng.choice(list(observation["action_mask"].nonzero()[0])))
    assert [totals[f"player_{s}"] for s in range(3)] == rank_payoffs(final["ranks"])
    assert sum(totals.values()) == pytest.approx(0.0) and len(final["returns"]) == 3


def test_an_illegal_action_is_refused_with_the_legal_ones_named() -> None:
    game = env("riga", 2)
    game.reset(seed=0)
    legal = game.infos[game.agent_selection]["legal_actions"]
    illegal = next(a for a in range(registry.info("riga").num_actions) if a not in legal)
    with pytest.raises(IllegalActionError, match=rf"cannot play {illegal} now; legal actions: \[{legal[0]}"):
        game.step(illegal)


def test_bad_games_and_options_are_refused_by_the_engine_with_the_valid_values() -> None:
    with pytest.raises(KeyError, match="valid games: gang_of_dice"):
        env("chess", 2)
    with pytest.raises(ValueError, match="choose one of"):
        env("riga", 2, use_grand_master="maybe")


def test_the_info_and_render_name_what_the_selected_seat_may_do() -> None:
    game = env("riviera", 2, render_mode="ansi")
    game.reset(seed=1)
    info = game.infos[game.agent_selection]
    assert len(info["action_labels"]) == len(info["legal_actions"]) > 0
    assert game.render().startswith("riviera: seats [")
