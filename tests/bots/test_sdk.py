"""The Python SDK against a real gateway: function bots, a rejected token, reconnecting with backoff."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient
from arena.match.clock import TimeControl
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.outcomes import FaultKind
from arena.store import Store
from bots.sdk import Bot, Decision, TokenRejected, run
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import HOST_KEY, SDK_BOT, BotProcesses, wait_connected


def test_a_function_bot_plays_and_run_returns_after_max_matches(gateway: GatewayThread, client: GatewayClient,
                                                                store: Store) -> None:
    token = store.register_bot("fn")
    seen: list[list[int]] = []

    def act(observation: dict, legal_actions: list[int]) -> int:
        seen.append(legal_actions)
        return legal_actions[-1]

    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(run(gateway.address, token, act, max_matches=1)))
    thread.start()
    wait_connected(gateway, "fn")
    record = run_match("toy", ["random", "fn"], 2, gateway=client)
    thread.join(10)
    assert result == [1] and seen == [[0, 1]]
    assert [s.actions[1] for s in record.steps if s.actions] == [1], "the bot's own choice was played"


def test_a_bot_subclass_sees_labels_and_its_clock(gateway: GatewayThread, client: GatewayClient, store: Store) -> None:
    token = store.register_bot("labels")
    decisions: list[Decision] = []

    class Recorder(Bot):
        def decide(self, decision: Decision) -> int:
            decisions.append(decision)
            return decision.legal_actions[0]

    thread = threading.Thread(target=run, args=(gateway.address, token, Recorder()),
                              kwargs={"max_matches": 1, "threaded": True})
    thread.start()
    wait_connected(gateway, "labels")
    run_match("toy", ["labels", "random"], 2, gateway=client)
    thread.join(10)
    (decision,) = decisions
    assert decision.labels == {0: "fold", 1: "show"} and decision.game_id == "toy" and decision.seat == 0
    assert decision.time_left_ms == 11_000 and decision.observation["seat"] == 0


def test_a_rejected_token_stops_the_bot_with_a_clear_error(gateway: GatewayThread) -> None:
    with pytest.raises(TokenRejected, match="unknown bot token"):
        run(gateway.address, "arena_wrong", lambda observation, legal: legal[0])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_bot_reconnects_after_the_gateway_restarts(store: Store, bots: BotProcesses, toy_registered: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_HOST_KEY", HOST_KEY)
    port = free_port()
    token = store.register_bot("phoenix")
    with GatewayThread(store, port=port, host_key=HOST_KEY) as first:
        process = bots.python(SDK_BOT, "--address", first.address, "--token", token)
        wait_connected(first, "phoenix", process=process)
    time.sleep(0.5)  # the bot notices, backs off and keeps dialling a closed port
    with GatewayThread(store, port=port, host_key=HOST_KEY) as second:
        wait_connected(second, "phoenix", timeout_s=10, process=process)
        with GatewayClient(second.address, key=HOST_KEY) as client:
            record = run_match("toy", ["phoenix", "random"], 3, gateway=client)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults


def test_an_exception_in_act_costs_one_decision_not_the_bot(gateway: GatewayThread, client: GatewayClient,
                                                           store: Store) -> None:
    from arena.match.clock import TimeControl

    token = store.register_bot("fragile")
    calls: list[int] = []

    def act(observation: dict, legal_actions: list[int]) -> int:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a bug in the bot")
        return legal_actions[0]

    thread = threading.Thread(target=run, args=(gateway.address, token, act), kwargs={"max_matches": 2})
    thread.start()
    wait_connected(gateway, "fragile")
    control = TimeControl(decision_ms=1000, bank_ms=0, grace_ms=200)
    first = run_match("toy", ["fragile", "random"], 1, gateway=client, time_control=control)
    second = run_match("toy", ["fragile", "random"], 2, gateway=client, time_control=control)
    thread.join(10)
    assert [f.kind for f in first.seats[0].faults] == [FaultKind.TIMEOUT]
    assert second.seats[0].termination is Termination.NORMAL and not second.seats[0].faults


def test_an_async_decide_waits_on_the_loop_while_other_decisions_go_on(gateway: GatewayThread, client: GatewayClient,
                                                                        store: Store) -> None:
    """Each decision waits until both matches' decisions have arrived: only a connection that keeps
    reading while a decision is pending can answer either."""
    token = store.register_bot("waiter")
    arrived: list[int] = []

    class Waiter(Bot):
        def __init__(self) -> None:
            self.both = asyncio.Event()

        async def decide(self, decision: Decision) -> int:
            arrived.append(decision.seat)
            if len(arrived) == 2:
                self.both.set()
            await self.both.wait()
            return decision.legal_actions[-1]

    thread = threading.Thread(target=run, args=(gateway.address, token, Waiter()), kwargs={"max_matches": 2})
    thread.start()
    wait_connected(gateway, "waiter")
    control = TimeControl(decision_ms=30_000)
    with ThreadPoolExecutor(2) as pool:
        records = list(pool.map(lambda seed: run_match("toy", ["random", "waiter"], seed, gateway=client,
                                                       time_control=control), (2, 3)))
    thread.join(10)
    assert sorted(arrived) == [1, 1]
    for record in records:
        assert record.seats[1].faults == [] and [s.actions[1] for s in record.steps if s.actions] == [1]
