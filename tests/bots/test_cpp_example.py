"""The C++ example bot (bots/examples/cpp) builds with cmake against Debian's gRPC and plays full
matches of every game through a real gateway on 127.0.0.1, as its README says."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from engine import registry
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import HOST_KEY, ROOT, BotProcesses, all_games, wait_connected
from tests.arena.tls_fixtures import *  # noqa: F403
from tests.arena.tls_fixtures import TLSFiles, first_failure

CPP_BOT = ROOT / "bots" / "examples" / "cpp"


@pytest.fixture(scope="module")
def cpp_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example built from scratch in a temporary build folder (the README's two cmake commands)."""
    for tool in ("cmake", "protoc", "grpc_cpp_plugin", "pkg-config"):
        assert shutil.which(tool), f"{tool} is missing: scripts/system-deps.sh installs it"
    build = tmp_path_factory.mktemp("cpp-bot-build")
    for argv in (["cmake", "-S", str(CPP_BOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                 ["cmake", "--build", str(build), "-j2"]):
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return build / "arena-cpp-bot"


def test_cpp_bot_plays_every_game(cpp_bot: Path, gateway: GatewayThread, client: GatewayClient, store: Store,
                                  bots: BotProcesses) -> None:
    token = store.register_bot("cppbot")
    process = bots.start([str(cpp_bot), "--address", gateway.address, "--token", token])
    wait_connected(gateway, "cppbot", process=process)
    for game_id in all_games():
        players = registry.info(game_id).max_players
        record = run_match(game_id, ["random", "cppbot", *["random"] * (players - 2)], 5, gateway=client)
        assert record.seats[1].termination is Termination.NORMAL and not record.seats[1].faults, record.seats[1]
        assert record.replay().returns() == record.returns
        assert any(step.actions and 1 in step.actions for step in record.steps), "the C++ bot made decisions"


def test_cpp_bot_exits_after_its_matches_and_on_a_bad_token(cpp_bot: Path, gateway: GatewayThread,
                                                            client: GatewayClient, store: Store,
                                                            bots: BotProcesses) -> None:
    token = store.register_bot("cppcounted")
    process = bots.start([str(cpp_bot), "--address", gateway.address, "--token", token, "--matches", "2"])
    wait_connected(gateway, "cppcounted", process=process)
    for seed in (1, 2):
        run_match("riviera", ["cppcounted", "random", "random"], seed, gateway=client)
    assert process.wait(15) == 0
    rejected = subprocess.run([str(cpp_bot), "--address", gateway.address, "--token", "arena_wrong"],
                              capture_output=True, text=True, timeout=30)
    assert rejected.returncode == 1 and "token rejected" in rejected.stderr, rejected.stderr


def test_cpp_bot_plays_launched_in_its_sandbox(cpp_bot: Path, gateway: GatewayThread, client: GatewayClient,
                                               store: Store) -> None:
    """Launched by the gateway in its sandbox (docs/sandbox.md), it dials the Unix socket it is given."""
    cpp_bot.parent.chmod(0o755)  # the sandbox's uid reads the bot's folder
    store.register_bot("cpplaunched", command=f"./{cpp_bot.name}", files=str(cpp_bot.parent))
    record = run_match("riviera", ["cpplaunched", "random", "random"], 3, gateway=client, connect_timeout_ms=20_000)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults, record.seats[0]
    assert gateway.gateway.launcher.bots["cpplaunched"].uid is not None, "it ran sandboxed"


def test_cpp_bot_plays_over_tls(cpp_bot: Path, tls_gateway: GatewayThread, store: Store, bots: BotProcesses,
                                tls_files: TLSFiles) -> None:
    """--ca FILE: grpc::SslCredentials with the CA's certificates (docs/tls.md)."""
    token = store.register_bot("cpptls")
    wrong = bots.start([str(cpp_bot), "--address", tls_gateway.address, "--token", token,
                        "--ca", str(tls_files.other_ca)])
    process = bots.start([str(cpp_bot), "--address", tls_gateway.address, "--token", token, "--ca", str(tls_files.ca)])
    wait_connected(tls_gateway, "cpptls", process=process)
    with GatewayClient(tls_gateway.address, key=HOST_KEY, ca_file=str(tls_files.ca)) as client:
        record = run_match("riviera", ["cpptls", "random", "random"], 4, gateway=client)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults, record.seats[0]
    said = first_failure(wrong)
    assert "certificate verify failed: is --ca (or ARENA_TLS_CA) the CA that signed" in said, said
