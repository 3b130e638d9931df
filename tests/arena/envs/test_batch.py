"""The batch environments (arena/envs/batch.py, vector.py, parallel.py): a batch's games are the
AEC env's games played one by one, games reset themselves, masks are the legal actions, each row
shows only what its seat may know, PettingZoo's parallel API test passes, bad input is refused."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from arena.envs.batch import GameBatch
from arena.envs.encoding import ObservationEncoder
from arena.envs.parallel import parallel_env
from arena.envs.payoffs import rank_payoffs
from arena.envs.pettingzoo import env
from arena.envs.vector import BatchEnv
from engine import registry
from engine.core import IllegalActionError

SIZE = 256  # a short encoding keeps the tests fast; the layout does not depend on it
# Every registered game (a new game is tested for free), at three players where it seats three.
VARIANTS = [(game_id, min(max(3, registry.info(game_id).min_players), registry.info(game_id).max_players))
            for game_id in registry.game_ids()]


def pick(rng: random.Random, masks: np.ndarray) -> np.ndarray:
    """A random legal action per row of `masks`."""
    return np.array([rng.choice(row.nonzero()[0].tolist()) for row in masks], np.int64)


def aec_episodes(game_id: str, players: int, seed: int, actions: list[int], episodes: int) -> list[list[tuple]]:
    """The AEC env reset with `seed`, then without (its generator continues), fed `actions` in
    order: per episode its decisions (seat, observation, mask) and the final rewards."""
    game, feed, found = env(game_id, players, encoding_size=SIZE), iter(actions), []
    game.reset(seed=seed)
    for _ in range(episodes):
        steps: list[tuple] = []
        for agent in game.agent_iter():
            observation, _, terminated, _, _ = game.last()
            if terminated:
                steps.append(("end", [game.unwrapped._cumulative_rewards[a] for a in game.possible_agents]))
                break
            steps.append((agent, observation["observation"], observation["action_mask"]))
            game.step(next(feed))
        found.append(steps)
        game.reset()
    return found


@pytest.mark.parametrize(("game_id", "players"), VARIANTS)
def test_the_batch_plays_the_same_games_as_the_aec_env_one_by_one(game_id: str, players: int) -> None:
    envs, rng = BatchEnv(game_id, players, num_games=3, encoding_size=SIZE), random.Random(4)
    observations, infos = envs.reset(seed=40)
    played: list[list[list[tuple]]] = [[[]] for _ in range(3)]
    taken: list[list[int]] = [[] for _ in range(3)]
    while min(len(episodes) for episodes in played) < 3:  # two whole games each, and a third begun
        for index, episode in enumerate(played):
            episode[-1].append((f"player_{infos['current_player'][index]}",
                                observations["observation"][index], observations["action_mask"][index]))
        actions = pick(rng, observations["action_mask"])
        observations, rewards, terminations, truncations, infos = envs.step(actions)
        assert not truncations.any()
        for index in range(3):
            taken[index].append(int(actions[index]))
            if terminations[index]:
                played[index][-1].append(("end", rewards[index].tolist()))
                played[index].append([])
            else:
                assert not rewards[index].any(), "rewards come only at the end"
    for index in range(3):
        expected = aec_episodes(game_id, players, 40 + index, taken[index], episodes=2)
        for mine, theirs in zip(played[index][:2], expected):
            assert len(mine) == len(theirs)
            for step, other in zip(mine, theirs):
                assert step[0] == other[0]
                if step[0] == "end":
                    assert step[1] == pytest.approx(other[1])
                else:
                    assert np.array_equal(step[1], other[1]) and np.array_equal(step[2], other[2])


def test_a_game_that_ends_resets_in_the_same_step_and_reports_its_results() -> None:
    envs, rng = BatchEnv("gang_of_dice", 2, num_games=4, encoding_size=SIZE), random.Random(1)
    observations, infos = envs.reset(seed=0)
    for _ in range(10_000):
        observations, rewards, terminations, _, infos = envs.step(pick(rng, observations["action_mask"]))
        if terminations.any():
            break
    ended = terminations.nonzero()[0]
    assert ended.size and (infos["_returns"] == terminations).all()
    for index in ended:
        assert rewards[index].tolist() == pytest.approx(rank_payoffs(infos["ranks"][index].tolist()))
        assert rewards[index].sum() == pytest.approx(0.0)
    # the ended games already show the first decision of a new game: nothing has been played in it
    fresh = envs.games.states()
    for index in ended:
        assert observations["action_mask"][index].any()
        assert infos["current_player"][index] == fresh[index].acting_players()[0]
    assert not (rewards[~terminations]).any()


@pytest.mark.parametrize(("game_id", "players"), VARIANTS)
def test_masks_are_the_legal_actions_and_rows_the_selected_seats_observations(game_id: str, players: int) -> None:
    envs, rng = BatchEnv(game_id, players, num_games=5, encoding_size=SIZE), random.Random(2)
    encoder = ObservationEncoder(SIZE)
    observations, infos = envs.reset(seed=9)
    for _ in range(30):
        states = envs.games.states()
        assert observations["observation"].shape == (5, SIZE) and observations["observation"].dtype == np.float32
        assert observations["action_mask"].dtype == np.int8
        for index, state in enumerate(states):
            seat = int(infos["current_player"][index])
            assert observations["action_mask"][index].nonzero()[0].tolist() == state.legal_actions(seat)
            assert np.array_equal(observations["observation"][index], encoder.encode(state.observation(seat)))
        observations, _, _, _, infos = envs.step(pick(rng, observations["action_mask"]))


@pytest.mark.parametrize(("game_id", "players"), VARIANTS)
def test_a_row_does_not_change_when_what_its_seat_cannot_see_is_redrawn(game_id: str, players: int) -> None:
    """Try to leak: swap every game for a state that differs only in what the selected seat may not
    know (others' hands, draw piles); its row and its mask must stay the same."""
    envs, rng = BatchEnv(game_id, players, num_games=6, encoding_size=SIZE), random.Random(3)
    observations, infos = envs.reset(seed=11)
    changed = 0
    for _ in range(25):
        for index, table in enumerate(envs.games._tables):
            assert table.state is not None
            original = table.state
            table.state = original.resample({table.seat}, rng)
            changed += table.state != original
            row = envs._observe()
            assert np.array_equal(row["observation"][index], observations["observation"][index])
            assert np.array_equal(row["action_mask"][index], observations["action_mask"][index])
            table.state = original
        observations, _, _, _, infos = envs.step(pick(rng, observations["action_mask"]))
    if game_id in ("riviera", "riga"):  # Gang of Dice and Lost Cities: Rivals hide nothing one seat knows
        assert changed, "the redraws changed hidden parts at least once"


def test_at_a_simultaneous_decision_a_seat_does_not_see_the_choice_of_the_seat_before_it() -> None:
    first, second = (BatchEnv("riviera", 3, num_games=1, encoding_size=SIZE) for _ in range(2))
    rng = random.Random(5)
    observations, _ = first.reset(seed=3)
    second.reset(seed=3)
    while len(first.games._tables[0].acting) < 2:
        action = pick(rng, observations["action_mask"])
        observations, *_ = first.step(action)
        second.step(action)
    legal = observations["action_mask"][0].nonzero()[0]
    assert len(legal) > 1
    after_first, *_ = first.step(legal[:1])  # the first acting seat chooses differently in each batch
    after_second, *_ = second.step(legal[-1:])
    assert np.array_equal(after_first["observation"], after_second["observation"])
    assert first.engine_observations() == second.engine_observations()


def test_bad_actions_are_refused_in_one_line_before_any_game_moves() -> None:
    envs = BatchEnv("riga", 2, num_games=3, encoding_size=SIZE)
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        envs.step(np.zeros(3, np.int64))
    observations, _ = envs.reset(seed=0)
    before = envs.games.states()
    with pytest.raises(ValueError, match=r"3 integer action ids, one per game \(shape \(3,\)\); got shape \(2,\)"):
        envs.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="got shape .* of float64"):
        envs.step(np.zeros(3))
    actions = pick(random.Random(0), observations["action_mask"])
    illegal = int(observations["action_mask"][2].argmin())
    actions[2] = illegal
    with pytest.raises(IllegalActionError, match=rf"^game 2: player_\d cannot play {illegal} now; legal actions: \["):
        envs.step(actions)
    assert envs.games.states() == before, "a refused step moves no game"
    with pytest.raises(ValueError, match="num_games must be a whole number >= 1"):
        BatchEnv("riga", 2, num_games=0)


def test_the_gymnasium_spaces_describe_the_arrays() -> None:
    envs = BatchEnv("lost_cities_rivals", 2, num_games=4, encoding_size=SIZE)
    observations, _ = envs.reset(seed=1)
    assert envs.observation_space.contains(observations)
    assert envs.single_action_space.n == registry.info("lost_cities_rivals").num_actions
    assert envs.num_envs == 4 and envs.metadata["autoreset_mode"].value == "SameStep"


@pytest.mark.parametrize(("game_id", "players"), VARIANTS)
def test_pettingzoo_parallel_api_test_passes(game_id: str, players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(parallel_env(game_id, players, encoding_size=SIZE), num_cycles=400)
    assert not [str(w.message) for w in caught]


def test_the_parallel_env_plays_the_aec_game_and_ignores_the_seats_not_selected() -> None:
    game, rng = parallel_env("riviera", 3, encoding_size=SIZE), random.Random(6)
    observations, infos = game.reset(seed=8)
    taken, seen = [], []
    while game.agents:
        selected = next(agent for agent in game.agents if infos[agent]["selected"])
        seen.append((selected, observations[selected]["observation"], observations[selected]["action_mask"]))
        action = int(pick(rng, observations[selected]["action_mask"][None])[0])
        taken.append(action)
        others = {agent: 0 for agent in game.agents if agent != selected}  # ignored
        observations, rewards, terminations, _, infos = game.step({**others, selected: action})
    expected = aec_episodes("riviera", 3, 8, taken, episodes=1)[0]
    assert [s[0] for s in seen] == [s[0] for s in expected[:-1]]
    assert all(np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2]) for a, b in zip(seen, expected))
    assert list(rewards.values()) == pytest.approx(expected[-1][1]) and all(terminations.values())


def test_a_batch_without_autoreset_stops_a_finished_game() -> None:
    batch, rng = GameBatch(registry.make("gang_of_dice", 2), 2, autoreset=False), random.Random(0)
    batch.reset(seed=1)
    while all(seat >= 0 for seat in batch.selected()):
        batch.act([rng.choice(legal) for legal in batch.legal_actions()])
    with pytest.raises(IllegalActionError, match="is over .*reset"):
        batch.act([0, 0])
