"""A launched bot whose launch failed to connect: its next matches fail fast until a retry with
backoff, and one slow start does not keep a healthy bot out (docs/protocol.md, "Launched bots")."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from arena.gateway.retry import LaunchRetry, RetryPolicy
from arena.gateway.server import GatewayThread
from arena.gateway.sessions import BotFault
from arena.link.client import GatewayClient
from arena.match.record import MatchRecord, Termination
from arena.match.runner import run_match
from arena.store import Store
from arena.v1 import bot_pb2 as pb
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import TOY
from tests.arena.match.test_faults import register_launched


def timed_match(client: GatewayClient, bot: str, timeout_ms: int = 800) -> tuple[MatchRecord, float]:
    started = time.monotonic()
    record = run_match("toy", [bot, "random"], 5, gateway=client, connect_timeout_ms=timeout_ms)
    return record, time.monotonic() - started


def test_after_a_launch_that_never_connected_the_next_matches_fail_fast(
        gateway: GatewayThread, client: GatewayClient, store: Store) -> None:
    register_launched(store, "sleeper", "--mode", "noconnect")
    first, waited = timed_match(client, "sleeper")
    assert waited >= 0.8 and "did not connect within 0.8 s" in first.seats[0].reason
    launch = gateway.gateway.launcher.bots["sleeper"]
    for _ in range(3):
        # a match that waited for the bot would take its 10 s connect timeout; one that fails fast
        # takes a toy match's time (well under half of it, however loaded the machine)
        record, took = timed_match(client, "sleeper", timeout_ms=10_000)
        seat = record.seats[0]
        assert took < 5.0, f"a later match waited {took:.1f} s for a bot that never connects"
        assert seat.termination is Termination.CRASH
        assert "is not launched again for another" in seat.reason and "did not connect within 0.8 s" in seat.reason
        assert record.seats[1].termination is Termination.NORMAL
    assert gateway.gateway.launcher.bots["sleeper"] is launch, "no second launch within the backoff"


def test_matches_waiting_on_the_same_failed_launch_count_it_once(
        gateway: GatewayThread, client: GatewayClient, store: Store) -> None:
    register_launched(store, "sleeper", "--mode", "noconnect")
    with ThreadPoolExecutor(3) as pool:
        records = list(pool.map(lambda _: timed_match(client, "sleeper")[0], range(3)))
    assert all(r.seats[0].termination is Termination.CRASH for r in records)
    assert gateway.gateway.retry.failed_launches["sleeper"].failures == 1


def test_one_slow_start_does_not_keep_a_healthy_bot_out(
        gateway: GatewayThread, client: GatewayClient, store: Store) -> None:
    register_launched(store, "slowstart", "--mode", "ok")
    gateway.gateway.retry.policy = RetryPolicy(first_s=1.0)
    # a healthy bot whose first start is slow: no Python bot is connected 20 ms after its launch
    first, _ = timed_match(client, "slowstart", timeout_ms=20)
    assert "did not connect within 0.02 s" in first.seats[0].reason
    held, took = timed_match(client, "slowstart", timeout_ms=10_000)
    assert took < 5.0 and "not launched again" in held.seats[0].reason  # not its 10 s connect timeout
    time.sleep(1.0)
    retried, _ = timed_match(client, "slowstart", timeout_ms=10_000)
    assert retried.seats[0].termination is Termination.NORMAL, retried.seats[0].reason
    assert "slowstart" not in gateway.gateway.retry.failed_launches, "a launch that connected clears the record"
    again, _ = timed_match(client, "slowstart", timeout_ms=10_000)
    assert again.seats[0].termination is Termination.NORMAL


class Launch:
    """Stands in for a LaunchedBot: the retry record only tells launches apart by identity."""


def test_the_backoff_doubles_for_launches_that_fail_in_a_row_up_to_a_cap() -> None:
    now = [100.0]
    retry = LaunchRetry(RetryPolicy(first_s=30, max_s=100), clock=lambda: now[0])
    fault = BotFault(pb.TERMINATION_CRASH, "launched bot 'b' did not connect within 10 s")
    waits = []
    for _ in range(4):
        retry.failed("b", "run-b", Launch(), fault)
        held = retry.holding("b", "run-b")
        assert held is not None and held.fault == pb.TERMINATION_CRASH and fault.reason in held.reason
        waits.append(retry.failed_launches["b"].retry_at - now[0])
        now[0] = retry.failed_launches["b"].retry_at
        assert retry.holding("b", "run-b") is None, "at retry_at the next match launches it again"
    assert waits == [30, 60, 100, 100]
    retry.connected("b")
    retry.failed("b", "run-b", Launch(), fault)
    assert retry.failed_launches["b"].failures == 1, "a connect starts the count again"
    assert retry.holding("b", "run-b --fixed") is None, "a bot registered with a new command is launched at once"


def test_a_launch_that_never_connected_is_stored_as_a_forfeit_without_strikes(
        gateway: GatewayThread, client: GatewayClient, store: Store) -> None:
    from arena.match.executor import JobOutcome, MatchJob
    from arena.tournament.driver import match_result
    from arena.tournament.schedule import PlannedMatch

    register_launched(store, "sleeper", "--mode", "noconnect")
    record, _ = timed_match(client, "sleeper")
    assert record.seats[0].termination is Termination.CRASH and record.seats[0].strikes == 0
    tid = store.create_tournament("toy", record.ruleset, "round_robin", {}, 1)
    info = store.tournament(tid)
    planned = PlannedMatch(0, 0, 0, 0, ("sleeper", "random"), 5, 5)
    job = MatchJob(key=(tid, 0), game_id="toy", game_ref=TOY, bots=planned.seats, seed=5, chance_seed=5)
    seats = match_result(info, planned, JobOutcome(job, record.to_json())).seats
    assert [(s.termination, s.faults) for s in seats] == [("crash", 0), ("normal", 0)]
