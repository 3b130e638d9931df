"""`arena play` with a registered bot through a real gateway: time control and strikes as a user sees them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.gateway.server import GatewayThread
from arena.store import Store
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import FAULT_BOT, BotProcesses, wait_connected


def play(store: Store, gateway: GatewayThread, capsys: pytest.CaptureFixture[str], *args: str,
         game: str = "toy") -> tuple[int, str, str]:
    status = main(["play", game, "--bots", "random,faulty", "--gateway", gateway.address, "--db", store.url, *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def start_bot(store: Store, gateway: GatewayThread, bots: BotProcesses, *args: str) -> None:
    token = store.register_bot("faulty")
    process = bots.python(FAULT_BOT, *args, "--address", gateway.address, "--token", token)
    wait_connected(gateway, "faulty", process=process)


def test_play_gives_the_bot_the_time_per_move_asked_for(gateway: GatewayThread, store: Store, bots: BotProcesses,
                                                         tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wire = tmp_path / "wire.jsonl"
    start_bot(store, gateway, bots, "--mode", "ok", "--record", str(wire))
    status, out, err = play(store, gateway, capsys, "--time-per-move-ms", "123", "--json")
    assert status == 0, err
    assert json.loads(out)["time_control"] == {"decision_ms": 123, "bank_ms": 10_000, "grace_ms": 250}
    asked = {json.loads(line)["decision_ms"] for line in wire.read_text().splitlines()}
    assert asked == {123}


@pytest.mark.parametrize("value", ["0", "-5"])
def test_a_bad_time_per_move_is_a_one_line_error(store: Store, toy_registered: None, capsys: pytest.CaptureFixture[str],
                                                  value: str) -> None:
    status = main(["play", "toy", "--time-per-move-ms", value, "--db", store.url])
    err = capsys.readouterr().err
    assert status == 2
    assert f"--time-per-move-ms must be at least 1, not {value}" in err and len(err.strip().splitlines()) == 1


def test_play_json_counts_strikes_apart_from_the_forfeit(gateway: GatewayThread, store: Store, bots: BotProcesses,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    start_bot(store, gateway, bots, "--mode", "illegal", "--after", "1")
    status, out, err = play(store, gateway, capsys, "--json", game="riviera")  # many decisions per seat
    assert status == 0, err
    random_seat, faulty = json.loads(out)["seats"]
    assert (faulty["strikes"], faulty["forfeited"], faulty["termination"]) == (3, True, "illegal_action")
    assert (random_seat["strikes"], random_seat["forfeited"]) == (0, False)
    status, out, err = play(store, gateway, capsys, game="riviera")
    assert status == 0, err
    assert "[3 strikes, forfeited: illegal_action: 3 faulty decisions" in out


def test_a_disconnect_is_a_forfeit_without_a_strike(gateway: GatewayThread, store: Store, bots: BotProcesses,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    start_bot(store, gateway, bots, "--mode", "disconnect", "--after", "1")
    status, out, err = play(store, gateway, capsys, "--json", game="riviera")
    assert status == 0, err
    faulty = json.loads(out)["seats"][1]
    assert (faulty["termination"], faulty["forfeited"], faulty["strikes"]) == ("disconnect", True, 0)
