"""bots/examples/python/pettingzoo_agent.py end to end: the agent is evaluated in the PettingZoo
environment, then the same agent plays a match as a connected bot through the SDK and a real
gateway, choosing exactly what it would choose in the environment."""

from __future__ import annotations

import subprocess
import sys

from arena.envs.encoding import ObservationEncoder, action_mask
from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from engine import registry
from engine.core import advance
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import ROOT, BotProcesses, wait_connected

EXAMPLE = ROOT / "bots" / "examples" / "python" / "pettingzoo_agent.py"


def test_the_example_evaluates_its_agent_in_the_environment() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE), "evaluate", "--game", "riviera", "--players", "3",
                           "--episodes", "2"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("riviera with 3 players: mean payoff ") and "over 2 episodes" in done.stdout


def test_the_example_refuses_a_bad_player_count_in_one_line() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE), "evaluate", "--players", "9"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1] == (
        "pettingzoo_agent.py: error: lost_cities_rivals is played by 2 to 4 players, not 9")


def test_the_same_agent_plays_a_match_as_a_connected_bot(gateway: GatewayThread, client: GatewayClient,
                                                         store: Store, bots: BotProcesses) -> None:
    token = store.register_bot("rl")
    process = bots.python(EXAMPLE, "play", "--address", gateway.address, "--token", token, "--matches", "1",
                          "--seed", "4")
    wait_connected(gateway, "rl", timeout_s=60, process=process)
    record = run_match("lost_cities_rivals", ["rl", "random"], 7, gateway=client)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults
    assert process.wait(30) == 0 and "played 1 matches" in process.stdout.read()
    sys.path.insert(0, str(EXAMPLE.parent))
    from pettingzoo_agent import LinearAgent

    agent, encoder = LinearAgent(registry.info("lost_cities_rivals").num_actions, seed=4), ObservationEncoder()
    state, checked = registry.make("lost_cities_rivals", 2).initial_state(), 0
    for step in record.steps:
        if step.actions and 0 in step.actions:
            mask = action_mask(state.legal_actions(0), registry.info("lost_cities_rivals").num_actions)
            assert step.actions[0] == agent.act(encoder.encode(state.observation(0)), mask)
            checked += 1
        state = advance(state, step.as_step())
    assert checked > 10
