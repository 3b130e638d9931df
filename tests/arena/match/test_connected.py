"""Connected bots play full matches of every game through a real gateway on 127.0.0.1.

The Python SDK example bot runs as its own process; what a scripted bot received on the wire is
compared with the engine's observation of its seat at that step.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient
from arena.match.record import MatchRecord, Termination
from arena.match.runner import run_match
from arena.store import Store
from engine import registry
from engine.core import NodeKind, replay
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import FAULT_BOT, ROOT, SDK_BOT, BotProcesses, all_games, wait_connected


def seats_for(game_id: str, bot_name: str) -> list[str]:
    """The connected bot in seat 1 (not always first), built-in random bots elsewhere."""
    players = registry.info(game_id).max_players
    return ["random", bot_name, *["random"] * (players - 2)]


def check_finished(record: MatchRecord) -> None:
    """A normal, complete match whose recorded result is what the engine says."""
    final = record.replay()
    assert final.kind is NodeKind.TERMINAL
    assert record.returns == final.returns()
    assert record.ranks == final.ranks()
    assert all(seat.termination is Termination.NORMAL and not seat.faults for seat in record.seats), record.seats
    assert MatchRecord.from_json(json.loads(json.dumps(record.to_json()))).replay() == final


def test_sdk_bot_plays_every_game(gateway: GatewayThread, client: GatewayClient, store: Store,
                                  bots: BotProcesses) -> None:
    token = store.register_bot("sdkbot")
    process = bots.python(SDK_BOT, "--address", gateway.address, "--token", token, "--seed", "1")
    wait_connected(gateway, "sdkbot", process=process)
    for game_id in all_games():
        record = run_match(game_id, seats_for(game_id, "sdkbot"), 11, gateway=client)
        check_finished(record)
        assert any(step.actions and 1 in step.actions for step in record.steps), "the bot made decisions"


def test_observations_on_the_wire_are_the_seats_own(gateway: GatewayThread, client: GatewayClient, store: Store,
                                                    bots: BotProcesses, tmp_path: Path) -> None:
    token = store.register_bot("recorder")
    wire = tmp_path / "wire.jsonl"
    process = bots.python(FAULT_BOT, "--mode", "ok", "--record", str(wire),
                          "--address", gateway.address, "--token", token)
    wait_connected(gateway, "recorder", process=process)
    for game_id in all_games():
        record = run_match(game_id, seats_for(game_id, "recorder"), 5, gateway=client, match_id=f"wire-{game_id}")
        check_finished(record)
        received = [json.loads(line) for line in wire.read_text().splitlines()]
        received = [r for r in received if r["match_id"] == f"wire-{game_id}"]
        asked = [i for i, step in enumerate(record.steps) if step.actions and 1 in step.actions]
        assert [r["step"] for r in received] == asked, "one request per decision of the bot's seat"
        initial = record.game().initial_state()
        for message in received:
            state = replay(initial, [step.as_step() for step in record.steps[: message["step"]]])
            assert message["seat"] == 1
            assert json.loads(message["observation_json"]) == state.observation(1)
            assert message["legal"] == state.legal_actions(1)


@pytest.mark.parametrize("game_id", all_games())
def test_replaying_a_record_reproduces_the_final_state(game_id: str, toy_registered: None) -> None:
    players = registry.info(game_id).max_players
    record = run_match(game_id, ["random"] * players, 3)
    again = MatchRecord.from_json(record.to_json())
    final = again.replay()
    assert final.returns() == record.returns and final.ranks() == record.ranks
    moves = lambda r: [(s.chance, s.actions) for s in r.steps]  # noqa: E731
    assert moves(run_match(game_id, ["random"] * players, 3)) == moves(record), "the same seed, the same moves"


NODE_BOT = ROOT / "bots" / "examples" / "node"


def test_node_bot_plays_every_game(gateway: GatewayThread, client: GatewayClient, store: Store,
                                   bots: BotProcesses) -> None:
    assert (NODE_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir(), (
        "the Node example's packages are missing: run `npm ci` in bots/examples/node (scripts/test.sh does)"
    )
    token = store.register_bot("nodebot")
    process = bots.start(["node", str(NODE_BOT / "bot.js"), "--address", gateway.address, "--token", token])
    wait_connected(gateway, "nodebot", process=process)
    for game_id in all_games():
        players = registry.info(game_id).max_players
        record = run_match(game_id, ["nodebot", *["random"] * (players - 1)], 21, gateway=client)
        check_finished(record)
        assert any(step.actions and 0 in step.actions for step in record.steps), "the bot made decisions"


def decisions_read(trace: Path) -> list[dict]:
    """The DecisionRequests a fault bot read (--trace), each with `at`, when it read it."""
    return [m for m in map(json.loads, trace.read_text().splitlines()) if m["kind"] == "decision"]


def test_simultaneous_seats_are_asked_concurrently(gateway: GatewayThread, client: GatewayClient, store: Store,
                                                   bots: BotProcesses, tmp_path: Path) -> None:
    for name in ("ponder1", "ponder2", "ponder3"):
        token = store.register_bot(name)
        process = bots.python(FAULT_BOT, "--mode", "slow", "--sleep", "1",
                              "--address", gateway.address, "--token", token,
                              "--trace", str(tmp_path / f"{name}.jsonl"))
        wait_connected(gateway, name, process=process)
    record = run_match("toy", ["ponder1", "ponder2", "ponder3"], 1, gateway=client)  # one decision, all seats at once
    asked = [decisions_read(tmp_path / f"{name}.jsonl")[0]["at"] for name in ("ponder1", "ponder2", "ponder3")]
    # each bot answers 1 s after it reads its request: seats asked one after another are over 1 s apart
    assert max(asked) - min(asked) < 1.0, "every seat was asked before the first answered"
    (decision,) = [step for step in record.steps if step.actions]
    assert sorted(decision.actions) == [0, 1, 2] and all(ms >= 1000 for ms in decision.elapsed_ms.values())
    check_finished(record)


def test_one_connection_plays_several_matches_at_once(gateway: GatewayThread, client: GatewayClient, store: Store,
                                                      bots: BotProcesses, tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    token = store.register_bot("juggler")
    trace = tmp_path / "juggler.jsonl"
    process = bots.python(FAULT_BOT, "--mode", "slow", "--sleep", "1", "--address", gateway.address, "--token", token,
                          "--trace", str(trace))
    wait_connected(gateway, "juggler", process=process)
    with ThreadPoolExecutor(3) as pool:
        records = list(pool.map(lambda seed: run_match("toy", ["random", "juggler"], seed, gateway=client), range(3)))
    # the bot answers 1 s after it reads a request: one read under 1 s after another's, of another
    # match, came while that one was still unanswered
    asked = sorted((m["at"], m["match_id"]) for m in decisions_read(trace))
    assert any(b - a < 1.0 and one != other for (a, one), (b, other) in itertools.pairwise(asked)), (
        "a match's decision was asked while another's waited, on the one stream")
    for record in records:
        check_finished(record)
