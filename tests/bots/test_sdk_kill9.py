"""The kit's bot survives its gateway's kill -9: a real `arena serve` process is killed with SIGKILL
while the bot is connected, started again on the same port, and the same bot process (never
restarted) dials in again by itself, with back-off, and plays."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.gateway_access import gateway_answers
from arena.store import Store
from tests.arena.gateway_fixtures import HOST_KEY, ROOT, SDK_BOT
from tests.bots.test_sdk import free_port

GAME = "gang_of_dice"
CONNECTED = "connected to"  # what the kit says on stderr each time the arena welcomes it
FAILED = "connection to"  # ... and each time a dial fails (client.py, run_forever)


def serve(env: dict[str, str], port: int) -> subprocess.Popen[str]:
    """`arena serve` on `port`, once it answers."""
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", str(port)], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 60
    while not gateway_answers(f"127.0.0.1:{port}", 0.5):
        assert server.poll() is None, f"arena serve exited with {server.returncode}"
        assert time.monotonic() < deadline, "arena serve did not answer within 60 s"
        time.sleep(0.1)
    return server


def wait_for_lines(log: Path, text: str, count: int, bot: subprocess.Popen[str], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while log.read_text().count(text) < count:
        assert bot.poll() is None, f"the bot exited ({bot.returncode}): {log.read_text()}"
        assert time.monotonic() < deadline, f"no {count} x {text!r} within {timeout_s} s: {log.read_text()}"
        time.sleep(0.05)


def play(env: dict[str, str], address: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "arena.cli", "play", GAME, "--players", "2", "--bots",
                             "phoenix,random", "--gateway", address, "--json"],
                            capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["seats"][0]


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def test_a_kit_bot_dials_again_by_itself_after_its_gateway_is_killed_9(tmp_path: Path, processes: list) -> None:
    env = {**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_HOST_KEY": HOST_KEY}
    token = Store(env["ARENA_DB"]).register_bot("phoenix")
    port = free_port()
    address = f"127.0.0.1:{port}"
    processes.append(first := serve(env, port))
    log = tmp_path / "bot.log"
    with log.open("w") as out:
        processes.append(bot := subprocess.Popen([sys.executable, str(SDK_BOT), "--address", address, "--token", token],
                                                 env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True))
    wait_for_lines(log, CONNECTED, 1, bot)
    assert play(env, address)["termination"] == "normal"

    first.send_signal(signal.SIGKILL)
    assert first.wait(30) == -signal.SIGKILL
    wait_for_lines(log, FAILED, 2, bot)  # the bot keeps dialling the dead port, with back-off

    processes.append(serve(env, port))
    wait_for_lines(log, CONNECTED, 2, bot)  # the same process, not restarted by anyone
    seat = play(env, address)
    assert seat["termination"] == "normal" and seat["bot"] == "phoenix", seat
    assert bot.poll() is None
