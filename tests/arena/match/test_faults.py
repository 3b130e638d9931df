"""Misbehaving bots, scripted (tests/arena/bots/fault_bot.py), through a real gateway.

Each fault ends as the documented termination (docs/protocol.md, "Faults"), the match finishes,
the other seats' results stand, and nothing hangs.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from arena.gateway.server import GatewayThread
from arena.launch.launcher import LaunchLimits
from arena.link.client import GatewayClient
from arena.match.clock import TimeControl
from arena.match.record import MatchRecord, Termination
from arena.match.runner import run_match
from arena.outcomes import FaultKind
from arena.store import Store
from engine import registry
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import FAULT_BOT, HOST_KEY, BotProcesses, wait_connected

FAST = TimeControl(decision_ms=1000, bank_ms=0, grace_ms=200)  # generous: a loaded CI machine answers late
LONG_GAMES = [g for g in registry.game_ids() if registry.info(g).max_decisions > 3]
needs_long_game = pytest.mark.skipif(not LONG_GAMES, reason="no registered game with several decisions yet")


def connect_fault_bot(gateway: GatewayThread, store: Store, bots: BotProcesses, name: str, *args: str) -> None:
    token = store.register_bot(name)
    process = bots.python(FAULT_BOT, *args, "--address", gateway.address, "--token", token)
    wait_connected(gateway, name, process=process)


def check_forfeit(record: MatchRecord, seat: int, termination: Termination, words: str) -> None:
    """Seat `seat` forfeited with `termination`; every other seat finished normally, ranks stand."""
    outcome = record.seats[seat]
    assert outcome.termination is termination, outcome
    assert words in outcome.reason, outcome.reason
    final = record.replay()
    assert record.returns == final.returns()
    assert record.ranks is not None and record.ranks[seat] == max(record.ranks)
    others = [s for s in range(record.num_players) if s != seat]
    for a in others:
        assert record.seats[a].termination is Termination.NORMAL
        for b in others:  # the other seats keep the engine's order among themselves
            assert (final.ranks()[a] < final.ranks()[b]) == (record.ranks[a] < record.ranks[b])


@pytest.mark.parametrize(
    ("mode", "termination", "words"),
    [
        ("slow", Termination.TIMEOUT, "no answer within 1200 ms"),
        ("silent", Termination.TIMEOUT, "no answer within 1200 ms"),
        ("illegal", Termination.ILLEGAL_ACTION, "not among the 2 legal actions"),
        ("garbage", Termination.PROTOCOL_ERROR, "do not parse as arena.v1.BotMessage"),
        ("noaction", Termination.PROTOCOL_ERROR, "has no action_id"),
        ("disconnect", Termination.DISCONNECT, "disconnected (the bot closed its stream); it did not reconnect within"),
    ],
)
def test_a_faulty_decision_forfeits_at_the_strike_limit(
    mode: str, termination: Termination, words: str, gateway: GatewayThread, client: GatewayClient,
    store: Store, bots: BotProcesses,
) -> None:
    connect_fault_bot(gateway, store, bots, "faulty", "--mode", mode, "--sleep", "3")
    started = time.monotonic()
    record = run_match("toy", ["random", "faulty", "random"], 2, gateway=client, time_control=FAST, max_strikes=1)
    assert time.monotonic() - started < 6, "a fault never holds a match up much past its deadline"
    check_forfeit(record, 1, termination, words)
    assert record.seats[1].faults[0].kind == termination.value


def test_below_the_strike_limit_a_fault_is_recorded_and_replaced(
    gateway: GatewayThread, client: GatewayClient, store: Store, bots: BotProcesses
) -> None:
    connect_fault_bot(gateway, store, bots, "once", "--mode", "illegal")
    record = run_match("toy", ["once", "random"], 4, gateway=client, max_strikes=3)
    assert record.seats[0].termination is Termination.NORMAL
    assert [f.kind for f in record.seats[0].faults] == [FaultKind.ILLEGAL_ACTION]
    assert record.ranks == record.replay().ranks(), "no forfeit: the engine's ranks stand"


@needs_long_game
def test_strikes_add_up_to_a_forfeit_mid_match(gateway: GatewayThread, client: GatewayClient, store: Store,
                                                bots: BotProcesses) -> None:
    game_id = LONG_GAMES[0]
    connect_fault_bot(gateway, store, bots, "illegal", "--mode", "illegal", "--after", "1")
    players = registry.info(game_id).min_players
    record = run_match(game_id, ["illegal", *["random"] * (players - 1)], 8, gateway=client, max_strikes=2)
    check_forfeit(record, 0, Termination.ILLEGAL_ACTION, "2 faulty decisions (max 2)")
    assert len(record.seats[0].faults) == 2
    later = [step for step in record.steps if step.actions and 0 in step.actions][3:]
    assert later, "the random bot played the forfeited seat to the end"


@needs_long_game
def test_disconnect_mid_match_forfeits(gateway: GatewayThread, client: GatewayClient, store: Store,
                                       bots: BotProcesses) -> None:
    game_id = LONG_GAMES[0]
    connect_fault_bot(gateway, store, bots, "leaver", "--mode", "disconnect", "--after", "2")
    players = registry.info(game_id).min_players
    record = run_match(game_id, ["random"] * (players - 1) + ["leaver"], 9, gateway=client)
    check_forfeit(record, players - 1, Termination.DISCONNECT, "disconnected")


def test_a_message_with_only_an_unknown_field_is_no_fault(gateway: GatewayThread, client: GatewayClient,
                                                         store: Store, bots: BotProcesses) -> None:
    connect_fault_bot(gateway, store, bots, "newer", "--mode", "unknown")
    record = run_match("toy", ["newer", "random"], 2, gateway=client, time_control=FAST, max_strikes=1)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults, record.seats[0]


REDIAL = TimeControl(decision_ms=3000, bank_ms=0, grace_ms=200)  # room for a redial on a loaded machine


def read_trace(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_bot_that_redials_mid_decision_gets_its_match_and_request_again(
    gateway: GatewayThread, client: GatewayClient, store: Store, bots: BotProcesses, tmp_path: Path
) -> None:
    wire = tmp_path / "trace.jsonl"
    connect_fault_bot(gateway, store, bots, "redialer", "--mode", "redial", "--sleep", "0.3", "--trace", str(wire))
    record = run_match("toy", ["redialer", "random"], 3, gateway=client, time_control=REDIAL, match_id="m-redial")
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults, record.seats[0]
    first = [m for m in read_trace(wire) if m["stream"] == 1 and m["kind"] == "decision"]
    second = [m["kind"] for m in read_trace(wire) if m["stream"] == 2]
    assert second[:3] == ["welcome", "match_start", "decision"], second
    resent = next(m for m in read_trace(wire) if m["stream"] == 2 and m["kind"] == "decision")
    assert resent["request_id"] == first[0]["request_id"] and resent["match_id"] == "m-redial"
    assert first[0]["time_left_ms"] - resent["time_left_ms"] >= 250, "the clock ran while the bot was away"


@needs_long_game
def test_a_decision_asked_while_the_bot_redials_waits_for_it(
    gateway: GatewayThread, client: GatewayClient, store: Store, bots: BotProcesses, tmp_path: Path
) -> None:
    game_id = LONG_GAMES[0]
    wire = tmp_path / "trace.jsonl"
    connect_fault_bot(gateway, store, bots, "hangup", "--mode", "hangup", "--after", "1", "--sleep", "0.3",
                      "--trace", str(wire))
    players = registry.info(game_id).min_players
    record = run_match(game_id, ["hangup", *["random"] * (players - 1)], 8, gateway=client, time_control=REDIAL)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults, record.seats[0]
    second = [m["kind"] for m in read_trace(wire) if m["stream"] == 2]
    assert second[:2] == ["welcome", "match_start"] and "decision" in second, second


def test_the_time_bank_absorbs_slow_decisions(gateway: GatewayThread, client: GatewayClient, store: Store,
                                              bots: BotProcesses) -> None:
    connect_fault_bot(gateway, store, bots, "thinker", "--mode", "slow", "--sleep", "0.3")
    control = TimeControl(decision_ms=100, bank_ms=2000, grace_ms=100)
    record = run_match("toy", ["thinker", "random"], 1, gateway=client, time_control=control, max_strikes=1)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults
    elapsed = [step.elapsed_ms[0] for step in record.steps if step.elapsed_ms]
    assert elapsed and elapsed[0] >= 300, "the arena measured the bot's time, past its 100 ms allowance"


def test_a_bot_cannot_answer_for_another_bots_seat(gateway: GatewayThread, client: GatewayClient, store: Store,
                                                   bots: BotProcesses) -> None:
    connect_fault_bot(gateway, store, bots, "quiet", "--mode", "silent")
    connect_fault_bot(gateway, store, bots, "thief", "--mode", "steal")
    record = run_match("toy", ["quiet", "thief"], 3, gateway=client, time_control=FAST, max_strikes=1)
    check_forfeit(record, 0, Termination.TIMEOUT, "no answer within")
    assert record.seats[1].termination is Termination.NORMAL and not record.seats[1].faults


def register_launched(store: Store, name: str, *args: str) -> None:
    """A bot the gateway launches in its sandbox: the fault bot, from its own folder."""
    store.register_bot(name, command=" ".join(["python3", FAULT_BOT.name, *args]), files=str(FAULT_BOT.parent))


def test_a_launched_bot_that_crashes_forfeits_with_its_output(client: GatewayClient, store: Store) -> None:
    register_launched(store, "crasher", "--mode", "crash")
    record = run_match("toy", ["random", "crasher"], 5, gateway=client)
    check_forfeit(record, 1, Termination.CRASH, "exited with status 3")
    assert "crashing on purpose" in (record.seats[1].log or ""), "its output is in its (private) log"
    assert "crashing on purpose" not in record.seats[1].reason, "a reason is public: no output in it"


def test_a_launched_bot_that_never_connects_forfeits(gateway: GatewayThread, client: GatewayClient,
                                                    store: Store) -> None:
    register_launched(store, "sleeper", "--mode", "noconnect")
    started = time.monotonic()
    record = run_match("toy", ["sleeper", "random", "random"], 5, gateway=client, connect_timeout_ms=800)
    assert time.monotonic() - started < 8, "its 0.8 s, not the default 10 s connect timeout"
    check_forfeit(record, 0, Termination.CRASH, "did not connect within 0.8 s")
    assert not gateway.gateway.launcher.running("sleeper"), "the process was stopped"


def test_a_launched_bot_plays_and_is_stopped_after(gateway: GatewayThread, client: GatewayClient,
                                                   store: Store) -> None:
    register_launched(store, "launched", "--mode", "ok")
    record = run_match("toy", ["launched", "random"], 6, gateway=client)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults
    deadline = time.monotonic() + 5
    while gateway.gateway.launcher.running("launched") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not gateway.gateway.launcher.running("launched"), "stopped once no match needs it"


def test_an_unregistered_or_absent_bot_forfeits_before_the_first_move(client: GatewayClient, store: Store) -> None:
    store.register_bot("absent")
    record = run_match("toy", ["absent", "ghost", "random"], 5, gateway=client, connect_timeout_ms=200)
    assert record.seats[0].termination is Termination.DISCONNECT and "not connected" in record.seats[0].reason
    assert record.seats[1].termination is Termination.DISCONNECT and "no registered bot" in record.seats[1].reason
    assert record.ranks is not None and record.ranks[2] == 1


@pytest.mark.parametrize(("mode", "words", "printed"), [("spin", "killed by SIGXCPU", ""),
                                                     ("hog", "exited with status 1", "MemoryError")])
def test_a_launched_bot_is_held_to_its_cpu_and_memory_limits(
    mode: str, words: str, printed: str, store: Store, toy_registered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_HOST_KEY", HOST_KEY)
    limits = LaunchLimits(cpu_seconds=2, memory_mb=768, linger_s=0.1)
    register_launched(store, "greedy", "--mode", mode)
    with GatewayThread(store, host_key=HOST_KEY, limits=limits) as gateway, \
            GatewayClient(gateway.address, key=HOST_KEY) as client:
        record = run_match("toy", ["greedy", "random"], 1, gateway=client,
                           time_control=TimeControl(decision_ms=60_000, bank_ms=0))
    check_forfeit(record, 0, Termination.CRASH, words)
    assert printed in (record.seats[0].log or ""), "what it printed when it crashed: in its log"
