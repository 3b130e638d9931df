"""A launched bot's log of each match (arena/gateway/core.py `seat_output`): a real gateway, the
log bot (tests/arena/bots/log_bot.py) launched in its bubblewrap sandbox, real matches.

The log of a seat is what the bot printed from OpenSeat to CloseSeat, its last 64 KiB; it reaches
the record's seat (a private field the driver moves to bot_log), never the public reason."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.gateway.server import GatewayThread
from arena.launch.launcher import LaunchLimits
from arena.link.client import GatewayClient
from arena.match.clock import TimeControl
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from tests.arena.gateway_fixtures import HOST_KEY, ROOT, store, toy_registered  # noqa: F401 - fixtures

LOG_BOT = ROOT / "tests" / "arena" / "bots" / "log_bot.py"
# a long linger: the bot stays up between the matches of a test, as in a tournament
LIMITS = LaunchLimits(linger_s=30.0, cpu_seconds=60, memory_mb=768)
PATIENT = TimeControl(decision_ms=10_000, bank_ms=0)


@pytest.fixture
def gateway(store: Store, monkeypatch: pytest.MonkeyPatch, toy_registered: None) -> Iterator[GatewayThread]:  # noqa: F811
    monkeypatch.delenv("ARENA_UNSANDBOXED", raising=False)  # the real sandbox
    with GatewayThread(store, host_key=HOST_KEY, limits=LIMITS) as thread:
        yield thread


@pytest.fixture
def client(gateway: GatewayThread) -> Iterator[GatewayClient]:
    with GatewayClient(gateway.address, key=HOST_KEY) as gateway_client:
        yield gateway_client


def register_log_bot(store: Store, tmp_path: Path, name: str, *args: str) -> None:  # noqa: F811
    """The log bot in a folder of its own (o+rX, as a submission is), launched with `args`."""
    folder = tmp_path / name
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    shutil.copy(LOG_BOT, folder / LOG_BOT.name)
    (folder / LOG_BOT.name).chmod(0o644)
    store.register_bot(name, command=" ".join(["python3", LOG_BOT.name, *args]), files=str(folder))


def play(client: GatewayClient, name: str, match_id: str, seed: int = 1):  # noqa: ANN201
    return run_match("toy", [name, "random"], seed, gateway=client, time_control=PATIENT,
                     connect_timeout_ms=60_000, match_id=match_id)


def test_each_match_keeps_what_the_bot_printed_while_it_was_open(gateway: GatewayThread, client: GatewayClient,
                                                                 store: Store, tmp_path: Path) -> None:
    register_log_bot(store, tmp_path, "logger", "--marker-hex", b"QX7-MARK".hex())
    first = play(client, "logger", "first-match")
    pid = gateway.gateway.launcher.bots["logger"].process.pid
    second = play(client, "logger", "second-match", seed=2)
    assert gateway.gateway.launcher.bots["logger"].process.pid == pid, "one process played both matches"

    for record, mine, other in ((first, "first-match", "second-match"), (second, "second-match", "first-match")):
        seat = record.seats[0]
        assert seat.termination is Termination.NORMAL, seat.reason
        assert seat.log is not None and f"QX7-MARK match={mine} step=" in seat.log, seat.log
        assert f"QX7-MARK-err match={mine}" in seat.log, "stderr is the bot's output too"
        assert f"match={other}" not in seat.log, "a match's log holds only what was printed while it was open"
        decisions = sum(1 for step in record.steps if step.actions and 0 in step.actions)
        assert seat.log.count(f"QX7-MARK match={mine}") == decisions, "every decision's line, none lost"
        assert record.seats[1].log is None, "a built-in bot has no log"
        assert "QX7" not in seat.reason


def test_a_match_keeps_only_the_last_64_kib(client: GatewayClient, store: Store, tmp_path: Path) -> None:
    register_log_bot(store, tmp_path, "chatty", "--marker-hex", b"QX7-MARK".hex(), "--spam", str(200_000))
    seat = play(client, "chatty", "chatty-match").seats[0]
    assert seat.log is not None
    assert len(seat.log.encode()) == LIMITS.output_bytes, "the tail is exactly the launcher's output_bytes"
    assert seat.log.rstrip().endswith("QX7-MARK-err match=chatty-match"), "the last output is kept"
    assert "filler            0\n" not in seat.log, "the first output of the match was cut"


def test_a_bot_that_dies_before_connecting_still_leaves_its_output(client: GatewayClient, store: Store,
                                                                   tmp_path: Path) -> None:
    register_log_bot(store, tmp_path, "crasher", "--marker-hex", b"QX7-MARK".hex(), "--crash-at-start")
    seat = play(client, "crasher", "crash-match").seats[0]
    assert seat.termination is Termination.CRASH, seat.reason
    assert "exited with status 3" in seat.reason and "before connecting" in seat.reason
    assert "QX7" not in seat.reason, "a reason is public: the bot's output stays out of it"
    assert seat.log is not None and "QX7-MARK crashing before it connects" in seat.log, seat.log
