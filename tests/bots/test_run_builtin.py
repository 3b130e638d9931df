"""A built-in bot run as an external bot (`python -m bots.run_builtin`) plays like the built-in one."""

from __future__ import annotations

import subprocess
import sys

from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import ROOT, BotProcesses, wait_connected


def test_the_heuristic_over_the_sdk_plays_the_built_in_heuristic_moves(
    gateway: GatewayThread, client: GatewayClient, store: Store, bots: BotProcesses
) -> None:
    token = store.register_bot("heuristic-ext")
    process = bots.start([sys.executable, "-m", "bots.run_builtin", "--bot", "heuristic",
                          "--address", gateway.address, "--token", token, "--matches", "1"])
    wait_connected(gateway, "heuristic-ext", process=process)
    external = run_match("lost_cities_rivals", ["heuristic-ext", "random"], 4, gateway=client)
    local = run_match("lost_cities_rivals", ["heuristic", "random"], 4)
    assert [seat.termination for seat in external.seats] == [Termination.NORMAL] * 2
    assert [s.actions for s in external.steps] == [s.actions for s in local.steps]
    assert process.wait(15) == 0


def test_a_bad_spec_is_refused_before_connecting() -> None:
    result = subprocess.run([sys.executable, "-m", "bots.run_builtin", "--bot", "ismcts:sims=0", "--token", "t"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2
    assert "ismcts parameter sims=0 must be a whole number of simulations >= 1" in result.stderr
