"""An OpenSpiel bot plays an arena match against ours: through OpenSpielAgent and the Python SDK,
over a real gateway on 127.0.0.1."""

from __future__ import annotations

import random
import threading

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts

from arena.envs import openspiel
from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient
from arena.match.clock import TimeControl
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from bots.sdk import run
from engine.core import NodeKind, sample_chance
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import wait_connected


def mcts_agent(game_id: str, players: int) -> openspiel.OpenSpielAgent:
    openspiel.register()
    game = pyspiel.load_game(f"arena_{game_id}", {"players": players})
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    bot = mcts.MCTSBot(game, 2.0, 5, evaluator, random_state=np.random.RandomState(2))
    return openspiel.OpenSpielAgent(game, bot, seed=3)


def test_openspiels_mcts_bot_plays_an_arena_match_as_a_connected_bot(gateway: GatewayThread, client: GatewayClient,
                                                                    store: Store) -> None:
    agent, asked, searched = mcts_agent("gang_of_dice", 2), [], []
    search = agent.bot.step
    agent.bot.step = lambda state: searched.append(state.engine_state) or search(state)

    def act(observation: dict, legal_actions: list[int]) -> int:
        asked.append(observation)
        return agent.act(observation, legal_actions)

    token = store.register_bot("openspiel-mcts")
    thread = threading.Thread(target=run, args=(gateway.address, token, act), kwargs={"max_matches": 1})
    thread.start()
    wait_connected(gateway, "openspiel-mcts")
    record = run_match("gang_of_dice", ["openspiel-mcts", "heuristic"], 5, gateway=client,
                       time_control=TimeControl(decision_ms=60_000, bank_ms=0))
    thread.join(30)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults
    assert len(asked) == len(searched) == sum(1 for step in record.steps if step.actions and 0 in step.actions) > 0
    assert [state.observation(0) for state in searched] == asked, "the bot searched from what the seat saw"


class FirstLegal(pyspiel.Bot):
    """A Python OpenSpiel bot: the lowest legal action of the current player."""

    def step(self, state: pyspiel.State) -> int:
        return state.legal_actions()[0]


def test_an_openspiel_agent_refuses_a_simultaneous_decision_clearly() -> None:
    openspiel.register()  # OpenSpiel's MCTS refuses Riviera itself: "Game must have sequential turns"
    agent = openspiel.OpenSpielAgent(pyspiel.load_game("arena_riviera", {"players": 2}), FirstLegal())
    state, rng = agent.game.engine_game.initial_state(), random.Random(0)
    while state.kind is NodeKind.CHANCE or len(state.acting_players()) < 2:
        state = state.apply_chance(sample_chance(state, rng)) if state.kind is NodeKind.CHANCE else \
            state.apply({s: state.legal_actions(s)[0] for s in state.acting_players()})
    with pytest.raises(ValueError, match="sequential decisions only"):
        agent.act(state.observation(0), state.legal_actions(0))
