"""The runner's long-lived connection to the gateway, both kinds — the host leg (TCP frames, what
runners use) and the gRPC stream `MatchHost.Host`: matches share it without mixing their decisions,
a connection that breaks aborts its matches at once, and a runner that dies releases its seats."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient, GatewayError
from arena.match.clock import per_move
from arena.match.record import MatchAborted, Termination
from arena.match.runner import run_match
from arena.store import Store
from arena.v1 import bot_pb2 as pb
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import FAULT_BOT, HOST_KEY, ROOT, BotProcesses, RawBot, wait_connected

PICK_BOT = ROOT / "tests" / "arena" / "bots" / "pick_bot.py"
FOLD, SHOW = 0, 1  # the toy game's two actions: pick_bot --pick first folds, --pick last shows


@pytest.fixture(params=["host-leg", "stream"])
def leg(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def leg_client(gateway: GatewayThread, leg: str) -> Iterator[GatewayClient]:
    with GatewayClient(gateway.address, key=HOST_KEY, leg=leg) as client:
        yield client


def break_connection(thread: GatewayThread, leg: str) -> None:
    """Cut the runners' connections (not the gateway's orderly close, which first ends the bots' sessions)."""
    assert thread.running is not None
    thread.call(thread.running.host_leg.close() if leg == "host-leg" else thread.running.server.stop(0))


def start_pickers(gateway: GatewayThread, store: Store, bots: BotProcesses) -> None:
    for name, pick in (("folder", "first"), ("shower", "last")):
        process = bots.python(PICK_BOT, "--pick", pick, gateway.address, store.register_bot(name))
        wait_connected(gateway, name, process=process)


def test_matches_on_one_connection_each_get_their_own_bots_answers(gateway: GatewayThread, leg_client: GatewayClient,
                                                                   store: Store, bots: BotProcesses) -> None:
    start_pickers(gateway, store, bots)
    tables = [["folder", "shower"], ["shower", "folder"]] * 8  # both seats decide at once, on threads

    def play(table: list[str]) -> list[int]:
        record = run_match("toy", table, 1, gateway=leg_client)
        assert all(seat.termination is Termination.NORMAL for seat in record.seats), record.seats
        decision = next(step for step in record.steps if step.actions)
        return [decision.actions[seat] for seat in range(2)]

    with ThreadPoolExecutor(4) as pool:  # four matches at a time, all on the client's one connection
        played = list(pool.map(play, tables))
    expected = [[FOLD if bot == "folder" else SHOW for bot in table] for table in tables]
    assert played == expected
    assert len(gateway.gateway.sessions["folder"].matches) == 0, "every seat was closed"


def test_a_connection_that_breaks_mid_match_aborts_the_match_at_once(store: Store, bots: BotProcesses, leg: str,
                                                                     toy_registered: None) -> None:
    token = store.register_bot("sleepy")
    thread = GatewayThread(store, host_key=HOST_KEY)
    thread.start()
    process = bots.python(FAULT_BOT, "--mode", "slow", "--sleep", "10", "--after", "0",
                          "--address", thread.address, "--token", token)
    wait_connected(thread, "sleepy", process=process)
    with GatewayClient(thread.address, key=HOST_KEY, leg=leg) as client:
        # while the runner waits for the bot's 10 s answer, its connection to the gateway goes
        threading.Timer(1.0, break_connection, (thread, leg)).start()
        started = time.monotonic()
        try:
            with pytest.raises(MatchAborted) as aborted:
                run_match("riviera", ["sleepy", "random"], 1, gateway=client, time_control=per_move(20_000))
        finally:
            thread.stop()
    assert time.monotonic() - started < 8, "the match waited for the answer or the deadline instead of aborting"
    assert f"the {leg.replace('-', ' ')} to the gateway broke" in aborted.value.record.aborted
    assert aborted.value.gateway_gone, "a broken connection is the gateway gone: played again later, not a result"


def test_a_runner_that_dies_releases_its_seats(gateway: GatewayThread, store: Store, leg: str) -> None:
    bot = RawBot(gateway.address, store.register_bot("left"))
    assert bot.next().HasField("welcome")
    runner = subprocess.run([sys.executable, "-c", DYING_RUNNER, gateway.address, HOST_KEY, leg], cwd=ROOT,
                            capture_output=True, text=True, timeout=30)
    assert runner.returncode == 9, runner.stderr
    deadline = time.monotonic() + 10
    while gateway.gateway.sessions["left"].matches and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gateway.gateway.sessions["left"].matches == {}, "the dead runner's seat is still open"
    assert bot.next().match_start.match_id == "orphan"
    end = bot.next().match_end
    assert (end.match_id, end.termination) == ("orphan", pb.TERMINATION_ABORTED)
    assert "runner's connection to the gateway closed" in end.reason
    bot.close()


DYING_RUNNER = """
import os, sys
from arena.link.client import GatewayClient
from arena.v1 import bot_pb2 as pb
client = GatewayClient(sys.argv[1], key=sys.argv[2], leg=sys.argv[3])
reply = client.open_seat("left", pb.MatchStart(match_id="orphan", seat=0, game_id="toy", num_players=2), 5000)
assert reply.fault == pb.TERMINATION_NORMAL, reply
os._exit(9)  # no CloseSeat: the process is gone, and with it the connection
"""


def test_a_seat_opened_on_a_broken_connection_fails_and_is_not_carried_to_a_new_one(store: Store, leg: str,
                                                                                  toy_registered: None) -> None:
    first = GatewayThread(store, host_key=HOST_KEY)
    port = int(first.start().rpartition(":")[2])
    bot = RawBot(first.address, store.register_bot("gone"))
    bot.next()
    with GatewayClient(first.address, key=HOST_KEY, leg=leg) as client:
        start = pb.MatchStart(match_id="m", seat=0, game_id="toy", num_players=2)
        assert client.open_seat("gone", start, 5000).fault == pb.TERMINATION_NORMAL
        first.stop()
        with GatewayThread(store, port=port, host_key=HOST_KEY):  # a new gateway at the same address
            # its seat was released with the old connection: asking on a new one would be a new
            # gateway's "not connected" fault charged to the bot instead of an arena error
            with pytest.raises(GatewayError, match=f"the {leg.replace('-', ' ')} to the gateway broke"):
                client.decide("gone", pb.DecisionRequest(match_id="m", seat=0), 1000)
            start = pb.MatchStart(match_id="m2", seat=0, game_id="toy", num_players=2)
            assert "not connected" in client.open_seat("gone", start, 200).reason, "a new seat opens a new connection"
    bot.close()
