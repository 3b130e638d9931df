"""The commands around the gateway, as a user runs them: `arena serve`, `arena bot`, `arena play
--bots NAME,...`, `arena check-bot` — real processes on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.gateway_access import gateway_answers
from arena.store import Store
from engine import registry
from tests.arena.gateway_fixtures import FAULT_BOT, HOST_KEY, ROOT, SDK_BOT
from tests.bots.test_sdk import free_port

GAME = "riviera" if "riviera" in registry.GAMES else (registry.game_ids() or [None])[0]
pytestmark = pytest.mark.skipif(GAME is None, reason="no game registered yet")
NODE_BOT = ROOT / "bots" / "examples" / "node" / "bot.js"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_HOST_KEY": HOST_KEY}


def arena(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=ROOT)


def register(env: dict[str, str], name: str, *extra: str) -> str:
    result = arena(env, "bot", "register", name, *extra)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()[1]


@pytest.fixture
def in_process(env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # noqa: ANN201
    """`arena ARGS` through the same entry point, in this process (no interpreter start-up)."""
    for name in ("ARENA_DB", "ARENA_HOST_KEY"):
        monkeypatch.setenv(name, env[name])

    def run(*args: str) -> tuple[int, str, str]:
        status = main(list(args))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


@pytest.fixture
def served(env: dict[str, str]) -> Iterator[str]:
    """`arena serve` on a free port, stopped with SIGTERM at the end (which must work promptly)."""
    address = f"127.0.0.1:{free_port()}"
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", address.split(":")[1]],
                              env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 20
    while not gateway_answers(address, 0.5):
        assert server.poll() is None and time.monotonic() < deadline, server.stdout.read() if server.stdout else ""
        time.sleep(0.1)
    yield address
    server.send_signal(signal.SIGTERM)
    assert server.wait(10) == 0


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        process.terminate()
        process.wait(5)


def test_serve_then_a_node_bot_then_play(env: dict[str, str], served: str, processes: list) -> None:
    token = register(env, "nodey")
    processes.append(subprocess.Popen(["node", str(NODE_BOT), "--address", served, "--token", token], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    players = max(3, registry.info(GAME).min_players)
    bots = ",".join(["nodey", *["random"] * (players - 1)])
    result = arena(env, "play", GAME, "--players", str(players), "--bots", bots, "--gateway", served, "--json")
    assert result.returncode == 0, result.stderr
    seat = json.loads(result.stdout)["seats"][0]
    assert seat["bot"] == "nodey" and seat["termination"] == "normal", seat
    check = arena(env, "check-bot", "--token", token, "--game", GAME, "--gateway", served, "--matches", "2")
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("PASS") == 4 and "the bot follows the protocol" in check.stdout


def test_check_bot_reports_problems_in_words(env: dict[str, str], served: str, processes: list,
                                             in_process) -> None:  # noqa: ANN001
    token = Store(env["ARENA_DB"]).register_bot("sloppy")
    processes.append(subprocess.Popen([sys.executable, str(FAULT_BOT), "--mode", "illegal", "--after", "1",
                                       "--address", served, "--token", token], env=env))
    status, out, _ = in_process("check-bot", "--token", token, "--game", GAME, "--gateway", served, "--matches", "1")
    assert status == 1
    assert "FAIL  answers only legal actions" in out
    assert "which is not among the" in out
    assert "PASS  answers every decision in time" in out


def test_play_starts_a_gateway_and_launches_a_registered_command(in_process) -> None:  # noqa: ANN001
    assert in_process("bot", "register", "launchy", "--command", f"python3 {SDK_BOT.name}",
                      "--files", str(SDK_BOT.parent))[0] == 0
    address = f"127.0.0.1:{free_port()}"
    players = registry.info(GAME).min_players
    bots = ",".join(["random"] * (players - 1) + ["launchy"])
    status, out, err = in_process("play", GAME, "--bots", bots, "--gateway", address, "--json")
    assert status == 0, err
    assert "started one in this process" in err
    assert json.loads(out)["seats"][-1]["termination"] == "normal"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bot", "register", "random"], "'random' is the name of a built-in bot"),
        (["bot", "register", "9lives"], "bad bot name '9lives'"),
        (["bot", "register", "nofolder", "--command", "x", "--files", "/nonexistent"],
         "--files /nonexistent: no such folder"),
        (["bot", "register", "nocommand", "--files", "."], "--files goes with --command"),
        (["check-bot", "--token", "arena_nope", "--game", "{game}"], "no registered bot has this token"),
        (["play", "{game}", "--bots", "ghost,random,random"], "unknown bot 'ghost'; built-in bots: "),
        (["play", "{game}", "--bots", "ghost,random,random", "--gateway", "nowhere"], "unknown bot 'ghost'"),
    ],
)
def test_bad_input_gives_a_one_line_error(in_process, args: list[str], message: str) -> None:  # noqa: ANN001
    status, out, err = in_process(*[a.replace("{game}", GAME) for a in args])
    assert status == 2, out + err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_bad_gateway_address_is_a_one_line_error(in_process) -> None:  # noqa: ANN001
    assert in_process("bot", "register", "somebot")[0] == 0
    status, _, err = in_process("play", GAME, "--players", "3", "--bots", "somebot,random,random",
                                "--gateway", "nowhere")
    assert status == 2
    assert "bad gateway address 'nowhere': write HOST:PORT" in err


def _free_port_with_a_busy_neighbour() -> tuple[int, socket.socket]:
    """A free port P whose neighbour P + 1 is held by the returned socket (close it when done)."""
    while True:
        neighbour = socket.create_server(("127.0.0.1", 0))
        port = neighbour.getsockname()[1] - 1
        try:
            socket.create_server(("127.0.0.1", port)).close()
            return port, neighbour
        except OSError:  # taken as well (or 0): try another neighbour
            neighbour.close()


def test_serve_takes_any_free_host_leg_port_when_the_next_port_is_taken(env: dict[str, str]) -> None:
    port, neighbour = _free_port_with_a_busy_neighbour()
    with neighbour:
        server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", str(port)], env=env,
                                  cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            prefix = f"arena gateway listening on 127.0.0.1:{port}, match runners' host leg on port "
            assert line.startswith(prefix) and line.rstrip().endswith(" (Ctrl-C to stop)"), (line, server.stderr)
            leg = int(line[len(prefix):].split()[0])
            limits = server.stdout.readline()  # which whole-bot limits apply on this host, said at start
            assert limits.startswith("launched bots' whole-bot limits: "), limits
            assert any(words in limits for words in ("cgroup v2", "cgroup v1", "the memory watchdog")), limits
            assert leg not in (0, port, port + 1)
            socket.create_connection(("127.0.0.1", leg), 5).close()  # it listens there
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(10)


def test_serve_says_the_watchdog_applies_when_forced(env: dict[str, str]) -> None:
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", "0", "--whole-bot-limits",
                               "watchdog"], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    try:
        assert server.stdout is not None
        server.stdout.readline()
        assert server.stdout.readline().startswith("launched bots' whole-bot limits: the memory watchdog (")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)


def test_serve_refuses_a_taken_host_leg_port_in_one_line(env: dict[str, str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        busy = taken.getsockname()[1]
        result = arena(env, "serve", "--port", str(free_port()), "--host-leg-port", str(busy), timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"arena: error: cannot listen for the match runners' host leg on 127.0.0.1:{busy} (Address already in use); "
        "choose another port with --host-leg-port")
