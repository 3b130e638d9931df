"""The OpenSpiel adapter: OpenSpiel's own random-simulation test (with its consistency checks) for
every game and player count, and OpenSpiel's bots playing our games against our bots."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from arena.envs import openspiel
from arena.envs.encoding import ObservationEncoder
from engine import registry
from engine.core import NodeKind, sample_chance


# OpenSpiel's random simulation checks every player's observation and information state at every
# node, through Python: seconds per game. The default suite plays each game at its smallest table
# and Riviera (the simultaneous game) at 3 too, where a seat may sit out a simultaneous node; the
# slow suite plays every player count.
def variant(game_id: str, players: int) -> object:
    info = registry.info(game_id)
    default = players == info.min_players or (game_id, players) == ("riviera", 3)
    return pytest.param(game_id, players, marks=() if default else pytest.mark.slow)


VARIANTS = [variant(game_id, players) for game_id in registry.game_ids()
            for players in range(registry.info(game_id).min_players, registry.info(game_id).max_players + 1)]


@pytest.fixture(scope="module", autouse=True)
def registered() -> None:
    openspiel.register()


def load(game_id: str, players: int, **options: object) -> pyspiel.Game:
    return pyspiel.load_game(f"arena_{game_id}", {"players": players, **options})


@pytest.mark.parametrize(("game_id", "players"), VARIANTS)
def test_openspiel_random_sim_test_passes(game_id: str, players: int) -> None:
    pyspiel.random_sim_test(load(game_id, players), num_sims=1, serialize=False, verbose=False)


def test_openspiel_random_sim_test_passes_with_serialization() -> None:
    pyspiel.random_sim_test(load("lost_cities_rivals", 2), num_sims=1, serialize=True, verbose=False)


def test_register_names_every_game_and_can_be_called_again() -> None:
    assert openspiel.register() == [f"arena_{g}" for g in registry.game_ids()]
    assert set(openspiel.register()) <= set(pyspiel.registered_names())


def test_a_process_that_registered_the_games_exits_cleanly() -> None:
    code = "from arena.envs import openspiel; import pyspiel; openspiel.register(); pyspiel.load_game('arena_riga')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]


def test_parameters_are_the_player_count_and_the_engine_options() -> None:
    game = load("riga", 3, use_grand_master=False)
    assert game.num_players() == 3 and game.new_initial_state().engine_game.options["use_grand_master"] is False
    assert game.num_distinct_actions() == registry.info("riga").num_actions
    with pytest.raises(ValueError, match="winningScore=41 is not valid; choose one of: 40, 20, 30, 50"):
        load("riviera", 2, winningScore=41)
    with pytest.raises(ValueError, match="riga is played by 2 to 4 players, not 7"):
        load("riga", 7)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'. Available parameters are: "):
        load("riviera", 2, colour=1)


def test_chance_nodes_carry_the_engines_outcomes_and_probabilities() -> None:
    state = load("gang_of_dice", 2).new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == sorted(state.engine_state.chance_outcomes())
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
    outcome = state.chance_outcomes()[0][0]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, outcome) == state.engine_state.chance_label(outcome)


def to_simultaneous_node(state: pyspiel.State, rng: random.Random) -> pyspiel.State:
    while not state.is_simultaneous_node():
        if state.is_chance_node():
            state.apply_action(sample_chance(state.engine_state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_a_simultaneous_decision_is_one_joint_action_of_the_acting_seats() -> None:
    state = to_simultaneous_node(load("riviera", 3).new_initial_state(), random.Random(3))
    before = state.engine_state
    acting = before.acting_players()
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS and len(acting) > 1
    joint = [before.legal_actions(seat)[0] if seat in acting else pyspiel.INVALID_ACTION for seat in range(3)]
    assert all(state.legal_actions(seat) == before.legal_actions(seat) for seat in range(3))
    state.apply_actions(joint)
    assert state.engine_state == before.apply({seat: joint[seat] for seat in acting})


def test_information_states_and_observations_are_the_seats_engine_observation() -> None:
    state = to_simultaneous_node(load("riviera", 2).new_initial_state(), random.Random(5))
    for seat in range(2):
        view = state.engine_state.observation(seat)
        assert json.loads(state.information_state_string(seat)) == view == json.loads(state.observation_string(seat))
        expected = ObservationEncoder().encode(view).tolist()
        assert state.information_state_tensor(seat) == expected == state.observation_tensor(seat)


def test_a_resampled_state_looks_the_same_to_its_player_but_redraws_what_it_cannot_see() -> None:
    state = to_simultaneous_node(load("riviera", 2).new_initial_state(), random.Random(1))
    draws = iter(np.random.RandomState(0).random_sample(20))
    samples = [state.resample_from_infostate(0, lambda: next(draws)) for _ in range(5)]
    assert {s.information_state_string(0) for s in samples} == {state.information_state_string(0)}
    assert {s.information_state_string(1) for s in samples} != {state.information_state_string(1)}


def test_a_clone_is_independent_of_its_original() -> None:
    state = load("lost_cities_rivals", 2).new_initial_state()
    clone = state.clone()
    clone.apply_action(clone.chance_outcomes()[0][0])
    assert state.is_initial_state() and state.engine_state == registry.make("lost_cities_rivals", 2).initial_state()
    assert clone.engine_state != state.engine_state and clone.history() != state.history()


def finished(returns: list[float]) -> bool:
    return sum(returns) == pytest.approx(0.0) and all(-1.0 <= r <= 1.0 for r in returns) and any(returns)


def test_openspiels_mcts_bot_plays_a_match_against_our_heuristic_bot() -> None:
    game = load("gang_of_dice", 2)
    mcts_bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, 5, 1000, False, 1, False)
    returns = pyspiel.evaluate_bots(game.new_initial_state(),
                                    [mcts_bot, openspiel.ArenaBot(game, 1, "heuristic", 3)], 4)
    assert finished(returns)


def test_openspiels_ismcts_bot_plays_hidden_information_against_our_random_bot() -> None:
    game = load("riga", 2)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    ismcts_bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 2, random_state=np.random.RandomState(2))
    ours = openspiel.ArenaBot(game, 0, "random", 5)
    assert finished(pyspiel.evaluate_bots(game.new_initial_state(), [ours, ismcts_bot], 6))


def test_openspiels_random_bot_plays_simultaneous_riviera_against_our_heuristic_bot() -> None:
    game = load("riviera", 3)
    players = [pyspiel.make_uniform_random_bot(0, 1), openspiel.ArenaBot(game, 1, "heuristic", 2),
               openspiel.ArenaBot(game, 2, "random", 3)]
    assert finished(pyspiel.evaluate_bots(game.new_initial_state(), players, 4))


def test_riviera_turned_turn_based_by_openspiel_plays_to_the_end() -> None:
    game = pyspiel.convert_to_turn_based(load("riviera", 2))
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    players = [pyspiel.make_uniform_random_bot(seat, seat) for seat in range(2)]
    assert finished(pyspiel.evaluate_bots(game.new_initial_state(), players, 8))


def test_the_engine_state_of_a_finished_match_is_terminal() -> None:
    game, rng = load("lost_cities_rivals", 2), random.Random(0)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(sample_chance(state.engine_state, rng) if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    assert state.engine_state.kind is NodeKind.TERMINAL and state.returns() == pytest.approx(
        [1.0, -1.0] if state.engine_state.ranks() == [1, 2]
        else [-1.0, 1.0] if state.engine_state.ranks() == [2, 1] else [0.0, 0.0])


@pytest.mark.parametrize("params", [{"turn_based": True}, {"playMode": "sequential"}], ids=["turn_based", "rulebook"])
def test_openspiels_ismcts_bot_plays_riviera_turn_based(params: dict) -> None:
    """docs/rl.md: OpenSpiel's ISMCTS needs a sequential game with resample_from_infostate. The
    simultaneous ruleset taken in turns (turn_based=True: the same rules, each seat choosing without
    seeing the choices before its own) and the rulebook's sequential mode are both."""
    game = load("riviera", 3, **params)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    ismcts_bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 3, random_state=np.random.RandomState(2))
    players = [ismcts_bot, openspiel.ArenaBot(game, 1, "heuristic", 2), openspiel.ArenaBot(game, 2, "random", 3)]
    assert finished(pyspiel.evaluate_bots(game.new_initial_state(), players, 4))


def test_the_simultaneous_ruleset_is_refused_by_ismcts_and_converting_it_gives_no_resampler() -> None:
    """What docs/rl.md says does not work: why turn_based exists."""
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    simultaneous, rng = load("riviera", 2), random.Random(1)
    state = simultaneous.new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    with pytest.raises(AssertionError):  # ismcts.ISMCTSBot asserts a sequential game when it searches
        ismcts.ISMCTSBot(simultaneous, evaluator, 2.0, 3).step(state)
    converted = pyspiel.convert_to_turn_based(load("riviera", 2))
    state = converted.new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    with pytest.raises(pyspiel.SpielError, match="ResampleFromInfostate"):
        state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(0.0, 1.0))


def test_a_turn_based_simultaneous_node_hides_the_earlier_choices() -> None:
    game, rng = load("riviera", 2, turn_based=True), random.Random(4)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.engine_state.acting_players()) < 2:
        state.apply_action(rng.choice(state.chance_outcomes())[0] if state.is_chance_node()
                           else rng.choice(state.legal_actions()))
    assert state.current_player() == 0
    first, second = (state.clone() for _ in range(2))
    choices = state.legal_actions()
    assert len(choices) > 1
    first.apply_action(choices[0])
    second.apply_action(choices[1])
    assert first.current_player() == second.current_player() == 1
    assert first.information_state_string(1) == second.information_state_string(1), "seat 1 cannot see seat 0's choice"
    assert first.information_state_string(0) != second.information_state_string(0), "seat 0 knows its own"
    assert first.engine_state == state.engine_state, "applied once every acting seat has chosen"
    redrawn = [first.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0)) for _ in range(40)]
    assert all(r.pending[0] in r.engine_state.legal_actions(0) for r in redrawn), "drawn among its legal ones"
    assert len({r.pending[0] for r in redrawn}) > 1, "seat 0's hidden choice is drawn again"
    assert all(r.information_state_string(1) == first.information_state_string(1) for r in redrawn)
    assert first.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0)).pending == {0: choices[0]}
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
