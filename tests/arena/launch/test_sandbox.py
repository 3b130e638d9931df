"""Launched bots in their sandbox (arena/launch/sandbox.py): a hostile bot, real bwrap, a real gateway.

tests/arena/bots/hostile_bot.py tries each way out and prints MANAGED or BLOCKED per attempt; every
contained fault ends as a readable crash or fault, and the gateway plays the next match regardless.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from arena.errors import UsageError
from arena.gateway.server import GatewayThread
from arena.launch.launcher import LaunchLimits
from arena.link.client import GatewayClient
from arena.link.hostkey import host_key, host_key_path
from arena.match.clock import TimeControl
from arena.match.record import MatchAborted, Termination
from arena.match.runner import run_match
from arena.store import Store
from engine import registry
from tests.arena.gateway_fixtures import FAULT_BOT, ROOT, store, toy_registered  # noqa: F401 - fixtures

HOSTILE_BOT = ROOT / "tests" / "arena" / "bots" / "hostile_bot.py"
LIMITS = LaunchLimits(linger_s=0.2, cpu_seconds=60, memory_mb=768, tmp_mb=16, processes=64,
                      output_cap_bytes=1024 * 1024)
GAME = "riviera"
PATIENT = TimeControl(decision_ms=10_000, bank_ms=0)  # the probes run before the first answer


@pytest.fixture
def key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A real host key file, as `arena serve` makes it (not $ARENA_HOST_KEY)."""
    monkeypatch.delenv("ARENA_HOST_KEY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return host_key()


@pytest.fixture
def gateway(store: Store, key: str, toy_registered: None) -> Iterator[GatewayThread]:  # noqa: F811
    with GatewayThread(store, host_key=key, limits=LIMITS) as thread:
        yield thread


@pytest.fixture
def client(gateway: GatewayThread, key: str) -> Iterator[GatewayClient]:
    with GatewayClient(gateway.address, key=key) as gateway_client:
        yield gateway_client


def submission(tmp_path: Path, name: str) -> Path:
    """A bot's own folder with the hostile bot in it (and a 0600 file of the arena's), o+rX."""
    folder = tmp_path / name
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    shutil.copy(HOSTILE_BOT, folder / HOSTILE_BOT.name)
    (folder / HOSTILE_BOT.name).chmod(0o644)
    (folder / "secret.txt").write_text("the arena's own\n")
    (folder / "secret.txt").chmod(0o600)
    return folder


def register_hostile(store: Store, tmp_path: Path, name: str, *args: str) -> Path:  # noqa: F811
    folder = submission(tmp_path, name)
    command = ["python3", HOSTILE_BOT.name, *args, "--files-host", str(folder)]
    store.register_bot(name, command=" ".join(command), files=str(folder))
    return folder


def output_of(gateway: GatewayThread, name: str) -> str:
    return bytes(gateway.gateway.launcher.bots[name].output).decode(errors="replace")


def test_the_hostile_bot_manages_none_of_its_break_outs(gateway: GatewayThread, client: GatewayClient,
                                                        store: Store, tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = int(gateway.address.rpartition(":")[2])
        register_hostile(
            store, tmp_path, "hostile", "--mode", "probe", "--db", str(tmp_path / "arena.db"),
            "--host-key", str(host_key_path()), "--other", str(FAULT_BOT), "--home", os.path.expanduser("~"),
            "--secret", "/bot/secret.txt", "--port", str(port), "--listener", str(listener.getsockname()[1]),
            "--gateway-pid", str(os.getpid()), "--tmp-mb", "16", "--memory-mb", "768", "--processes", "64",
        )
        record = run_match("toy", ["hostile", "random"], 1, gateway=client, time_control=PATIENT,
                           connect_timeout_ms=60_000)
    output = output_of(gateway, "hostile")
    assert record.seats[0].termination is Termination.NORMAL, (record.seats[0].reason, output)
    assert "MANAGED" not in output, output
    assert output.count("BLOCKED") == 24, output
    uid = int(output.split("INFO uid=")[1].split()[0])
    assert uid not in (0, os.getuid()) and uid >= 1_000_000, "a uid of its own, not the arena's"


def test_a_bot_that_prints_without_end_is_stopped_with_a_reason(gateway: GatewayThread, client: GatewayClient,
                                                                store: Store, tmp_path: Path) -> None:
    register_hostile(store, tmp_path, "flooder", "--mode", "flood")
    record = run_match("toy", ["flooder", "random"], 1, gateway=client, connect_timeout_ms=20_000)
    assert record.seats[0].termination is Termination.CRASH
    assert "printed more than its output limit of 1048576 bytes" in record.seats[0].reason
    # A tight print loop writes over 1 GB/s, and the kill reaches it through the sandbox's PID
    # namespace (bwrap's --die-with-parent) in up to ~10 ms on a quiet machine: 13 MB past the cap
    # were seen. Without the cap the bot would print for its whole decision time (over 1 GB).
    assert gateway.gateway.launcher.bots["flooder"].printed < 64 * 1024 * 1024, "stopped soon after the cap"
    check_the_gateway_carries_on(gateway, client, store, tmp_path)


def test_a_fork_bomb_is_contained_and_gone_after(gateway: GatewayThread, client: GatewayClient,
                                                 store: Store, tmp_path: Path) -> None:
    register_hostile(store, tmp_path, "bomber", "--mode", "forkbomb")
    register_hostile(store, tmp_path, "calm", "--mode", "setsid", "--marker", "0.1")
    with ThreadPoolExecutor(1) as pool:  # another bot's match, at the same time as the bomb
        other = pool.submit(run_match, "toy", ["calm", "random"], 2, gateway=client, connect_timeout_ms=30_000)
        record = run_match("toy", ["bomber", "random"], 1, gateway=client, connect_timeout_ms=3_000)
        assert other.result().seats[0].termination is Termination.NORMAL, other.result().seats[0]
    assert record.seats[0].termination is Termination.CRASH, record.seats[0]
    assert "did not connect" in record.seats[0].reason
    uid = gateway.gateway.launcher.bots["bomber"].uid
    wait_gone(lambda: processes_of(uid), "the fork bomb's processes")
    check_the_gateway_carries_on(gateway, client, store, tmp_path)


def test_a_bot_over_its_memory_cgroup_is_killed_with_a_reason(gateway: GatewayThread, client: GatewayClient,
                                                              store: Store, tmp_path: Path) -> None:
    register_hostile(store, tmp_path, "grower", "--mode", "oom", "--memory-mb", "768")
    record = run_match("toy", ["grower", "random"], 1, gateway=client, connect_timeout_ms=30_000)
    assert record.seats[0].termination is Termination.CRASH, record.seats[0]
    assert "went over its memory limit of 768 MB and was killed" in record.seats[0].reason, record.seats[0].reason
    assert "MANAGED" not in output_of(gateway, "grower")
    check_the_gateway_carries_on(gateway, client, store, tmp_path)


@pytest.mark.parametrize("whole_bot", ["auto", "watchdog"])  # this host's mechanism, and the fallback
def test_many_processes_over_the_whole_bots_memory_limit_end_the_bot(store: Store, key: str, tmp_path: Path,  # noqa: F811
                                                                     toy_registered: None,  # noqa: F811
                                                                     whole_bot: str) -> None:
    """20 processes of 200 MB each (each far under RLIMIT_AS) against 1 GB for the whole bot."""
    limits = replace(LIMITS, memory_mb=1024, whole_bot=whole_bot)
    register_hostile(store, tmp_path, "hogs", "--mode", "hogs")
    with GatewayThread(store, host_key=key, limits=limits) as gateway, \
            GatewayClient(gateway.address, key=key) as client:
        launcher = gateway.gateway.launcher
        assert launcher.whole_bot == (whole_bot if whole_bot == "watchdog" else launcher.whole_bot)
        assert launcher.whole_bot in ("v1", "v2", "watchdog")
        record = run_match("toy", ["hogs", "random"], 1, gateway=client, connect_timeout_ms=60_000)
        output = output_of(gateway, "hogs")
        assert record.seats[0].termination is Termination.CRASH, (record.seats[0], output)
        assert "went over its memory limit of 1024 MB and was killed" in record.seats[0].reason, output
        assert "MANAGED" not in output
        wait_gone(lambda: processes_of(launcher.bots["hogs"].uid), "the hogs' processes")
        check_the_gateway_carries_on(gateway, client, store, tmp_path)


def test_setsid_and_double_forked_children_end_with_the_bot(store: Store, key: str, tmp_path: Path,  # noqa: F811
                                                            toy_registered: None) -> None:  # noqa: F811
    marker = f"{time.time_ns() % 10**6 + 10**6}.5"  # a sleep time no other process uses
    register_hostile(store, tmp_path, "leaver", "--mode", "setsid", "--marker", marker)
    with GatewayThread(store, host_key=key, limits=replace(LIMITS, linger_s=3.0)) as gateway, \
            GatewayClient(gateway.address, key=key) as client:
        record = run_match("toy", ["leaver", "random"], 1, gateway=client, connect_timeout_ms=20_000)
        assert record.seats[0].termination is Termination.NORMAL, record.seats[0]
        assert len(sleepers(marker)) == 2, "both sleepers run while the bot lingers"
        wait_gone(lambda: sleepers(marker), "the bot's setsid and double-forked sleepers")
        assert not gateway.gateway.launcher.running("leaver")


def check_the_gateway_carries_on(gateway: GatewayThread, client: GatewayClient, store: Store, tmp_path: Path) -> None:
    """After a contained fault the same gateway launches and plays another bot normally."""
    if store.bot("calm") is None:
        register_hostile(store, tmp_path, "calm", "--mode", "setsid", "--marker", "0.1")
    record = run_match("toy", ["calm", "random"], 2, gateway=client, connect_timeout_ms=20_000)
    assert record.seats[0].termination is Termination.NORMAL, record.seats[0]


def test_without_bwrap_launching_fails_with_how_to_install_it(client: GatewayClient, store: Store, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    register_hostile(store, tmp_path, "nobwrap", "--mode", "setsid", "--marker", "0.1")
    bin_without_bwrap = tmp_path / "bin"
    bin_without_bwrap.mkdir()
    monkeypatch.setenv("PATH", str(bin_without_bwrap))  # the gateway runs in this process: it sees it
    with pytest.raises(MatchAborted) as aborted:
        run_match("toy", ["nobwrap", "random"], 1, gateway=client, connect_timeout_ms=5_000)
    message = str(aborted.value)
    assert "bubblewrap (`bwrap`) is not on PATH; install it with `apt-get install bubblewrap`" in message
    assert "\n" not in message


def test_the_opt_out_runs_unsandboxed_and_says_so_loudly(store: Store, key: str, tmp_path: Path,  # noqa: F811
                                                         toy_registered: None, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
                                                         capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ARENA_UNSANDBOXED", "1")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ['PATH']}")  # python3: this venv's
    folder = register_hostile(store, tmp_path, "trusted", "--mode", "probe", "--secret", "secret.txt")
    with GatewayThread(store, host_key=key, limits=LIMITS) as gateway, \
            GatewayClient(gateway.address, key=key) as client:
        record = run_match("toy", ["trusted", "random"], 1, gateway=client, time_control=PATIENT,
                           connect_timeout_ms=60_000)
        output = output_of(gateway, "trusted")
    assert record.seats[0].termination is Termination.NORMAL, (record.seats[0].reason, output)
    assert "WARNING: ARENA_UNSANDBOXED=1: launched bots run UNSANDBOXED" in capfd.readouterr().err
    assert f"INFO uid={os.getuid()}" in output and f"cwd={folder}" in output
    assert "MANAGED read a 0600 file of the arena's" in output, "no sandbox: it reads what the arena reads"


def processes_of(uid: int | None) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                found.append(int(entry.name))
        except FileNotFoundError:
            pass
    return found


def sleepers(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0") if entry.name.isdigit() else []
            if argv[:1] and argv[0].endswith(b"sleep") and marker.encode() in argv:
                found.append(int(entry.name))
        except (FileNotFoundError, ProcessLookupError):
            pass
    return found


def wait_gone(find, what: str, timeout_s: float = 10.0) -> None:  # noqa: ANN001 - a finder
    deadline = time.monotonic() + timeout_s
    while (left := find()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"{what} are still running: {left}"


@pytest.mark.parametrize(("folder", "command"), [
    (ROOT / "bots" / "examples" / "python", "python3 random_bot.py"),
    (ROOT / "bots" / "examples" / "node", "node bot.js"),
])
def test_a_submitted_example_bot_plays_full_matches_in_its_sandbox(
    folder: Path, command: str, gateway: GatewayThread, client: GatewayClient, store: Store
) -> None:
    store.register_bot("submitted", command=command, files=str(folder))
    players = registry.info(GAME).min_players
    for seed in (1, 2):
        record = run_match(GAME, ["submitted", *["random"] * (players - 1)], seed, gateway=client,
                           connect_timeout_ms=30_000)
        assert record.seats[0].termination is Termination.NORMAL, record.seats[0]
        assert not record.seats[0].faults and record.ranks == record.replay().ranks()
    assert gateway.gateway.launcher.bots["submitted"].uid is not None, "it ran sandboxed"


@pytest.mark.parametrize("sdk", ["arena_sdk", "bots.sdk"])  # the kit, and its re-export older bots import
def test_a_bot_without_files_runs_on_the_runtime_alone(gateway: GatewayThread, client: GatewayClient,
                                                      store: Store, sdk: str) -> None:
    command = f'python3 -c "from {sdk} import run; run(None, None, lambda observation, legal: legal[0])"'
    store.register_bot("bare", command=command)
    record = run_match("toy", ["bare", "random"], 1, gateway=client, connect_timeout_ms=20_000)
    assert record.seats[0].termination is Termination.NORMAL, record.seats[0]


def test_a_socket_path_too_long_is_a_one_line_error(store: Store, tmp_path: Path,  # noqa: F811
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    long_folder = tmp_path / ("x" * 100)
    long_folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_folder))
    thread = GatewayThread(store, host_key="k")
    with pytest.raises(UsageError) as error:
        thread.start()
    thread.stop()
    assert "cannot serve the Unix socket" in str(error.value)
    assert "set TMPDIR to a short, local folder" in str(error.value)
    assert "\n" not in str(error.value) and list(long_folder.iterdir()) == [], "nothing left behind"
