"""Python stubs for a bot author, generated from bot.proto by scripts/gen-python-stubs.sh: top-level
modules `bot_pb2` / `bot_pb2_grpc` that play against a real gateway beside the installed `arena`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from tests.arena.gateway_fixtures import *  # noqa: F403

STUB_CLIENT = ROOT / "tests" / "arena" / "bots" / "stub_client.py"  # noqa: F405


def generate_stubs(out: Path) -> None:
    result = subprocess.run(["bash", str(ROOT / "scripts" / "gen-python-stubs.sh"), str(out)],  # noqa: F405
                            env={**os.environ, "PYTHON": sys.executable}, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_generated_stubs_are_top_level_modules_that_keep_the_wire_names(tmp_path: Path) -> None:
    generate_stubs(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot_pb2.py", "bot_pb2.pyi", "bot_pb2_grpc.py"]
    grpc_module = (tmp_path / "bot_pb2_grpc.py").read_text()
    assert "\nimport bot_pb2 as arena_dot_v1_dot_bot__pb2\n" in grpc_module, (
        "the grpc module imports its sibling, not arena.v1")
    assert "from arena" not in grpc_module + (tmp_path / "bot_pb2.py").read_text()
    assert "# source: arena/v1/bot.proto" in (tmp_path / "bot_pb2.py").read_text(), "the file the kit's stubs describe"
    assert "/arena.v1.BotGateway/Play" in grpc_module, "the wire names stay arena.v1"


def test_a_client_on_the_generated_stubs_plays_beside_the_arena_package(tmp_path: Path, gateway: GatewayThread,
                                                                       client: GatewayClient, store: Store,
                                                                       bots: BotProcesses) -> None:  # noqa: F405
    generate_stubs(tmp_path / "stubs")
    token = store.register_bot("stubby")
    # the stubs' folder first on the path, the arena checkout importable too: had the stubs been an
    # `arena/v1` package, `import arena` in the client would pick one of the two and break the other
    pythonpath = os.pathsep.join([str(tmp_path / "stubs"), str(ROOT)])  # noqa: F405
    bot = bots.python(STUB_CLIENT, gateway.address, token, PYTHONPATH=pythonpath)
    wait_connected(gateway, "stubby", process=bot)  # noqa: F405
    record = run_match("toy", ["stubby", "random"], 1, gateway=client)
    assert record.seats[0].termination is Termination.NORMAL, record.seats[0]
    out, _ = bot.communicate(timeout=10)
    assert bot.returncode == 0, out
    where = out.split()
    assert where[where.index("arena") + 1] == str(ROOT / "arena")  # noqa: F405
    assert where[where.index("bot_pb2") + 1] == str(tmp_path / "stubs" / "bot_pb2.py")


def test_generated_stubs_import_beside_the_kits_and_the_arenas_in_one_process(tmp_path: Path) -> None:
    generate_stubs(tmp_path / "stubs")
    code = """
import bot_pb2, bot_pb2_grpc                   # the author's stubs
from arena_sdk.v1 import bot_pb2 as kit        # the kit's (bots/sdk)
from arena.v1 import bot_pb2 as arena_stubs    # the arena's own
assert bot_pb2.DESCRIPTOR.name == kit.DESCRIPTOR.name == arena_stubs.DESCRIPTOR.name == "arena/v1/bot.proto"
wire = bot_pb2.BotMessage(action=bot_pb2.Action(request_id=7, action_id=3)).SerializeToString()
assert kit.BotMessage.FromString(wire).action.action_id == 3
assert bot_pb2.Termination.Name(bot_pb2.TERMINATION_TIMEOUT) == "TERMINATION_TIMEOUT"
print("one process")
"""
    pythonpath = os.pathsep.join([str(tmp_path / "stubs"), str(ROOT / "bots" / "sdk"), str(ROOT)])  # noqa: F405
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": pythonpath})
    assert done.returncode == 0 and done.stdout.strip() == "one process", done.stderr
