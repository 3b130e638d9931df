"""One hop for a launched bot (arena/node/hop.py, arena/node/loop.py): the runner's thread sends
the decision onto the bot's stream and reads its answer itself, and nothing a match records changes.

The differential: the same match, the same scripted bot (seeded, in its real sandbox, a fresh
process each time), played once through `NodeHost.decide` and once through the gateway's own
path (`NodeHost.decide_as_gateway`: `Gateway.decide` as a task on the loop, how the node host
decided before): the same actions, the same faults with the same
reasons, strikes and terminations — for a bot that answers, stalls, sends garbage or an Action
without an id, or drops its stream and redials within the deadline.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.gateway.core import GatewayStopping
from arena.launch.launcher import LaunchLimits
from arena.match.record import MatchRecord, Termination
from arena.match.runner import run_match
from arena.node.files import FilesCache
from arena.node.host import NodeHost
from arena.node.loop import SharedLoop
from arena.node.task import NodeSeats, prepare
from arena.store import Store
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2
from tests.arena.gateway_fixtures import store, toy_registered  # noqa: F401 - fixtures
from tests.arena.node.test_node_seats import FAST, LIMITS, node_job, sandboxed, submissions, submit  # noqa: F401

MODES = ["ok", "unknown", "noaction", "garbage", "silent", "redial", "hangup"]


class GatewayPath:
    """A node host's seats decided the gateway's way (the reference the new path is compared with)."""

    def __init__(self, host: NodeHost) -> None:
        self.host = host

    def open_seat(self, bot_name: str, start: pb.MatchStart, connect_timeout_ms: int) -> host_pb2.SeatReply:
        return self.host.open_seat(bot_name, start, connect_timeout_ms)

    def decide(self, bot_name: str, request: pb.DecisionRequest, deadline_ms: int) -> host_pb2.DecideReply:
        return self.host.decide_as_gateway(bot_name, request, deadline_ms)

    def close_seat(self, bot_name: str, end: pb.MatchEnd) -> host_pb2.SeatReply:
        return self.host.close_seat(bot_name, end)


@pytest.fixture
def hosts(sandboxed: None, toy_registered: None) -> Iterator[list[NodeHost]]:  # noqa: F811
    """Two node hosts: each launches its own fresh process of the bot (whose script counts decisions)."""
    started = [NodeHost(LIMITS).start(), NodeHost(LIMITS).start()]
    yield started
    for host in started:
        host.stop()


def play(seats: object, bot: str) -> MatchRecord:
    return run_match("gang_of_dice", ["random", bot], 2, gateway=seats, time_control=FAST, max_strikes=3,  # type: ignore[arg-type]
                     connect_timeout_ms=30_000, match_id="hop")


def seen(record: MatchRecord) -> dict[str, Any]:
    """What a match records, but for the times (elapsed) and the bot's log."""
    return {"steps": [(step.chance, step.actions) for step in record.steps], "ranks": record.ranks,
            "returns": record.returns, "aborted": record.aborted,
            "seats": [(seat.termination, seat.reason, seat.faults, seat.strikes) for seat in record.seats]}


@pytest.mark.parametrize("mode", MODES)
def test_a_match_is_the_same_through_one_hop_as_through_the_gateways_path(
    mode: str, store: Store, submissions: Path, hosts: list[NodeHost], tmp_path: Path,  # noqa: F811
) -> None:
    launch = submit(store, submissions, "faulty", f"python3 fault_bot.py --mode {mode} --after 2 --seed 5 --sleep 0.2")
    records = []
    for host, seats in zip(hosts, (hosts[0], GatewayPath(hosts[1])), strict=True):
        prepare(node_job(launch), host, FilesCache(tmp_path / "cache"))
        records.append(play(seats, launch.name))
    one_hop, gateways = records
    assert seen(one_hop) == seen(gateways)
    assert len(one_hop.steps) > 3, "the match went on past the bot's faults"
    faults = one_hop.seats[1].faults
    if mode in ("ok", "unknown", "redial", "hangup"):  # a redial within the deadline costs nothing
        assert faults == [] and one_hop.seats[1].termination is Termination.NORMAL
    else:
        assert faults and faults[0].step >= 2, faults
    if mode == "silent":  # timed out on the loop's clock at the deadline, never before it
        deadline = FAST.decision_ms + FAST.grace_ms
        assert all(f.reason.startswith(f"no answer within {deadline} ms") for f in faults), faults
        assert all((one_hop.steps[f.step].elapsed_ms or {})[1] >= deadline for f in faults)


def test_two_threads_deciding_at_once_get_their_own_answers(
    store: Store, submissions: Path, hosts: list[NodeHost], tmp_path: Path,  # noqa: F811
) -> None:
    """Seats asked at once (a match's seat pool, or two matches of one process) share the loop:
    one thread drives it, the other's answer comes in that thread's turn, or it drives next."""
    host = hosts[0]
    names = []
    for name in ("left", "right"):
        launch = submit(store, submissions, name, "python3 fault_bot.py --mode ok")
        prepare(node_job(launch), host, FilesCache(tmp_path / "cache"))
        start = pb.MatchStart(match_id=f"m-{name}", seat=1, game_id="toy")
        assert host.open_seat(launch.name, start, 30_000).fault == pb.TERMINATION_NORMAL
        names.append(launch.name)
    legal = [pb.LegalAction(id=action, label=str(action)) for action in (4, 5, 6)]

    def decide(name: str) -> list[int]:
        request = pb.DecisionRequest(match_id=f"m-{name.split('@')[0]}", seat=1, game_id="toy", step=0,
                                     observation_json=json.dumps({}), legal_actions=legal, time_left_ms=5000)
        replies = [host.decide(name, request, 5000) for _ in range(150)]
        assert all(reply.fault == pb.TERMINATION_NORMAL for reply in replies), [r.reason for r in replies]
        return [reply.action_id for reply in replies]

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(decide, names))
    assert all(set(actions) <= {4, 5, 6} and len(actions) == 150 for actions in answers)


@pytest.mark.parametrize("path", ["hop", "gateway"])
def test_a_host_stopping_mid_decision_is_the_arenas_stop_not_the_bots_fault(
    path: str, store: Store, submissions: Path, hosts: list[NodeHost], tmp_path: Path,  # noqa: F811
) -> None:
    host = hosts[0]
    launch = submit(store, submissions, "quiet", "python3 fault_bot.py --mode silent")
    prepare(node_job(launch), host, FilesCache(tmp_path / "cache"))
    start = pb.MatchStart(match_id="m", seat=1, game_id="toy")
    assert host.open_seat(launch.name, start, 30_000).fault == pb.TERMINATION_NORMAL
    request = pb.DecisionRequest(match_id="m", seat=1, game_id="toy", step=0, observation_json="{}",
                                 legal_actions=[pb.LegalAction(id=1, label="1")], time_left_ms=60_000)
    decide = host.decide if path == "hop" else host.decide_as_gateway
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(decide, launch.name, request, 60_000)  # the bot never answers
        while host.gateway is None or not any(s.pending for s in host.gateway.sessions.values()):
            threading.Event().wait(0.01)  # until the request is out and waiting
        host.stop()
        with pytest.raises(GatewayStopping):
            waiting.result(30)


def test_bots_launched_for_a_match_of_two_launched_seats_outlive_its_seat_threads(
    store: Store, submissions: Path, sandboxed: None, toy_registered: None, tmp_path: Path,  # noqa: F811
) -> None:
    """Two launched seats are opened by the match's seat pool, whose threads end with the match;
    the bots launched then linger for the next match alive (launched on the host's own thread)."""
    host = NodeHost(LaunchLimits(linger_s=60, cpu_seconds=60)).start()
    try:
        launches = [submit(store, submissions, name, "python3 fault_bot.py --mode ok") for name in ("left", "right")]
        names = [launch.name for launch in launches]
        for launch in launches:
            prepare(node_job(launch), host, FilesCache(tmp_path / "cache"))
        with NodeSeats(host, set(names), None) as seats:
            records = [run_match("gang_of_dice", names, seed, gateway=seats, time_control=FAST,  # type: ignore[arg-type]
                                 connect_timeout_ms=30_000, match_id=f"pair{seed}") for seed in (1, 2, 3)]
        for record in records:
            assert [s.termination for s in record.seats] == [Termination.NORMAL] * 2, [s.reason for s in record.seats]
        assert set(host.running()) == set(names), "still running, lingering for the next match"
    finally:
        host.stop()


# -- the shared loop, without bots ----------------------------------------------------------------

def test_the_waiting_thread_runs_the_loop_itself() -> None:
    shared = SharedLoop()  # no background thread: only a waiting thread can run it
    ran_on: list[int] = []

    async def where() -> int:
        return threading.get_ident()

    future: concurrent.futures.Future[int] = concurrent.futures.Future()
    assert shared.wait(future, 5.0, start=lambda: future.set_result(threading.get_ident())) == threading.get_ident()
    ran_on.append(shared.wait(shared.submit(where()), 5.0))
    assert ran_on == [threading.get_ident()]
    with pytest.raises(concurrent.futures.TimeoutError):
        shared.wait(concurrent.futures.Future(), 0.05)
    assert shared.wait(shared.submit(where()), 5.0) == threading.get_ident(), "the loop is free after a timeout"
    shared.close()


def test_what_may_launch_a_bot_runs_on_the_background_thread_even_while_a_decision_waits() -> None:
    """A sandbox dies with the thread that started it: `run` (open a seat, which may launch) never
    runs on a runner's thread, not even one driving the loop for a decision at that moment."""
    shared = SharedLoop()
    shared.start()
    answer: concurrent.futures.Future[str] = concurrent.futures.Future()

    async def where() -> str:
        return threading.current_thread().name

    try:
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="seat") as pool:
            deciding = pool.submit(shared.wait, answer, 30)  # drives the loop until its answer
            assert shared.run(where(), 10) == "arena-node-host"
            shared.loop.call_soon_threadsafe(answer.set_result, "answered")
            assert deciding.result(10) == "answered"
        assert shared.run(where(), 10) == "arena-node-host"
    finally:
        shared.close()


def test_nobody_waiting_the_background_thread_runs_the_loop() -> None:
    shared = SharedLoop()
    shared.start()
    try:
        async def later() -> str:
            await asyncio.sleep(0.01)
            return "done"

        # no thread drives it: the background thread takes the loop once it is idle
        assert shared.submit(later()).result(10) == "done"
        # a waiting thread takes it back from the background thread, and gets its result
        assert shared.run(later(), 10) == "done"
    finally:
        shared.close()


def test_a_thread_waiting_while_another_drives_gets_its_result_in_either_order() -> None:
    shared = SharedLoop()
    shared.start()
    first: concurrent.futures.Future[str] = concurrent.futures.Future()
    second: concurrent.futures.Future[str] = concurrent.futures.Future()

    def resolve_second_then_first() -> None:  # the future waited on first is resolved last
        shared.loop.call_later(0.05, second.set_result, "second")
        shared.loop.call_later(0.1, first.set_result, "first")

    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            waiting_first = pool.submit(shared.wait, first, 10, resolve_second_then_first)
            waiting_second = pool.submit(shared.wait, second, 10)
            assert (waiting_first.result(15), waiting_second.result(15)) == ("first", "second")
    finally:
        shared.close()
