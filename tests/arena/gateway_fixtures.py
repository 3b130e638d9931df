"""Shared set-up for the gateway tests: a real gateway on 127.0.0.1, a store, bot processes.

Import the fixtures into a test module with `from tests.arena.gateway_fixtures import *`.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.gateway.server import GatewayThread
from arena.launch.launcher import LaunchLimits
from arena.link.client import GatewayClient
from arena.store import Store
from arena.v1 import bot_pb2 as pb
from engine import registry

ROOT = Path(__file__).resolve().parents[2]
FAULT_BOT = ROOT / "tests" / "arena" / "bots" / "fault_bot.py"
SDK_BOT = ROOT / "bots" / "examples" / "python" / "random_bot.py"
HOST_KEY = "test-host-key"
TOY = "tests.engine.toy_game:ToyGame"

__all__ = ["gateway", "store", "client", "toy_registered", "BotProcesses", "bots", "wait_connected",
           "RawBot", "FAULT_BOT", "SDK_BOT", "HOST_KEY", "ROOT", "all_games"]


def all_games() -> list[str]:
    """Every registered game plus the toy game."""
    return [*[g for g in registry.game_ids() if g != "toy"], "toy"]


@pytest.fixture
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.GAMES, "toy", TOY)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'arena.db'}")


@pytest.fixture
def gateway(store: Store, monkeypatch: pytest.MonkeyPatch, toy_registered: None) -> Iterator[GatewayThread]:
    monkeypatch.setenv("ARENA_HOST_KEY", HOST_KEY)
    with GatewayThread(store, host_key=HOST_KEY, limits=LaunchLimits(linger_s=0.2, cpu_seconds=60)) as thread:
        yield thread


@pytest.fixture
def client(gateway: GatewayThread) -> Iterator[GatewayClient]:
    with GatewayClient(gateway.address, key=HOST_KEY) as gateway_client:
        yield gateway_client


class BotProcesses:
    """Bot processes started by a test, all stopped at its end."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen[str]] = []

    def start(self, argv: list[str], **env: str) -> subprocess.Popen[str]:
        process = subprocess.Popen(argv, env={**os.environ, **env}, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        self.processes.append(process)
        return process

    def python(self, script: Path, *args: str, **env: str) -> subprocess.Popen[str]:
        return self.start([sys.executable, str(script), *args], **env)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def bots() -> Iterator[BotProcesses]:
    processes = BotProcesses()
    yield processes
    processes.stop()


def wait_connected(gateway: GatewayThread, name: str, timeout_s: float = 15.0,
                   process: subprocess.Popen[str] | None = None) -> None:
    """Wait until the bot has a session on the gateway (fails with the bot's output if not)."""
    deadline = time.monotonic() + timeout_s
    while name not in gateway.gateway.sessions:
        if process is not None and process.poll() is not None:
            output = process.stdout.read() if process.stdout else ""
            pytest.fail(f"bot {name} exited with {process.returncode}: {output}")
        if time.monotonic() > deadline:
            pytest.fail(f"bot {name} did not connect within {timeout_s} s")
        time.sleep(0.02)


class RawBot:
    """A bot stream driven by the test itself: send bytes, read ArenaMessages."""

    def __init__(self, address: str, token: str | None, options: tuple[tuple[str, int], ...] = ()) -> None:
        self.channel = grpc.insecure_channel(address, options=options)
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        play = self.channel.stream_stream("/arena.v1.BotGateway/Play", request_serializer=None,
                                          response_deserializer=pb.ArenaMessage.FromString)
        metadata = (("authorization", f"Bearer {token}"),) if token is not None else ()
        self.responses: Iterator[pb.ArenaMessage] = play(iter(self.outbox.get, None), metadata=metadata)

    def next(self) -> pb.ArenaMessage:
        return next(self.responses)

    def answer(self, request_id: int, action_id: int) -> None:
        self.outbox.put(pb.BotMessage(action=pb.Action(request_id=request_id, action_id=action_id)).SerializeToString())

    def close(self) -> None:
        self.outbox.put(None)
        self.channel.close()
