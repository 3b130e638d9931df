"""Submitted bots launched by the node that plays their match (arena/node/), in their real sandbox.

The fault matrix of launched bots — timeout, crash, illegal action, output flood — played once
through the gateway (as before) and once on the node: the seat records are the same. The node's
bots run under this process (the runner's), not under the gateway, and answer over the node's
own Unix socket, which only the arena's user can reach.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.gateway.server import GatewayThread
from arena.launch.launcher import LaunchLimits
from arena.link.client import GatewayClient
from arena.link.hostkey import host_key_path
from arena.match.clock import TimeControl
from arena.match.executor import LocalExecutor, MatchJob, NodeLaunch
from arena.match.record import MatchRecord, Termination
from arena.match.runner import run_match
from arena.node.files import FilesCache
from arena.node.host import NodeHost
from arena.node.task import NodeSeats, prepare
from arena.store import Store
from arena.submissions import pack_tree, store_submission
from tests.arena.gateway_fixtures import HOST_KEY, ROOT, client, store, toy_registered  # noqa: F401 - fixtures

BOTS = ROOT / "tests" / "arena" / "bots"  # fault_bot.py and log_bot.py, submitted as one bot
FAST = TimeControl(decision_ms=1000, bank_ms=0, grace_ms=200)
LIMITS = LaunchLimits(linger_s=0.2, cpu_seconds=60, output_cap_bytes=256 * 1024)
# printed at the first decision: far past the cap. The kill reaches a sandboxed bot through its PID
# namespace in up to ~10 ms (arena/launch/launcher.py `_capture`): a bot that printed only 1 MB once
# finished its flood and answered in that time, and its match ended before it was found dead
FLOOD = 64 * 1024 * 1024


@pytest.fixture
def submissions(tmp_path: Path) -> Path:
    return tmp_path / "submissions"


@pytest.fixture
def sandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_UNSANDBOXED", raising=False)  # the real sandbox, on both sides


@pytest.fixture
def gateway(store: Store, toy_registered: None, sandboxed: None) -> Iterator[GatewayThread]:  # noqa: F811
    with GatewayThread(store, host_key=HOST_KEY, limits=LIMITS) as thread:
        yield thread


@pytest.fixture
def node(sandboxed: None) -> Iterator[NodeHost]:
    host = NodeHost(LIMITS).start()
    yield host
    host.stop()


def submit(store: Store, submissions: Path, name: str, command: str) -> NodeLaunch:  # noqa: F811
    """Register `name` and submit the test bots' folder as its version 1, launched with `command`."""
    stored = store_submission(BOTS, submissions)
    store.register_bot(name)
    version = store.add_version(name, command, str(stored.folder), stored.sha256)
    return NodeLaunch(version.entrant, command, stored.sha256, str(stored.folder))


def node_job(launch: NodeLaunch, seed: int = 2) -> MatchJob:
    return MatchJob(key=(1, seed), game_id="toy", game_ref="", bots=("random", launch.name), seed=seed,
                    chance_seed=seed, launches=(launch,), bundles={launch.sha256: pack_tree(Path(launch.folder))})


def play(seats: object, bot: str, match_id: str) -> MatchRecord:
    return run_match("toy", ["random", bot], 2, gateway=seats, time_control=FAST, max_strikes=1,  # type: ignore[arg-type]
                     connect_timeout_ms=30_000, match_id=match_id)


def on_node(host: NodeHost, launch: NodeLaunch, cache: FilesCache, match_id: str = "n1") -> MatchRecord:
    job = node_job(launch)
    prepare(job, host, cache)
    with NodeSeats(host, {launch.name}, None) as seats:
        return play(seats, launch.name, match_id)


FAULTS = [
    ("python3 fault_bot.py --mode slow --sleep 3", Termination.TIMEOUT),
    ("python3 fault_bot.py --mode crash", Termination.CRASH),
    ("python3 fault_bot.py --mode illegal", Termination.ILLEGAL_ACTION),
    (f"python3 log_bot.py --marker-hex 4142 --spam {FLOOD}", Termination.CRASH),
]


@pytest.mark.parametrize(("command", "termination"), FAULTS, ids=["timeout", "crash", "illegal", "flood"])
def test_a_faulty_launched_bot_gets_the_same_record_on_the_node_as_at_the_gateway(
    command: str, termination: Termination, store: Store, submissions: Path, client: GatewayClient,  # noqa: F811
    gateway: GatewayThread, node: NodeHost, tmp_path: Path,
) -> None:
    launch = submit(store, submissions, "faulty", command)
    at_gateway = play(client, launch.name, "g1")
    on_this_node = on_node(node, launch, FilesCache(tmp_path / "cache"))
    for record in (at_gateway, on_this_node):
        seat = record.seats[1]
        assert seat.termination is termination, seat
        assert record.seats[0].termination is Termination.NORMAL
    ours, theirs = on_this_node.seats[1], at_gateway.seats[1]
    assert (ours.reason, ours.faults, ours.strikes) == (theirs.reason, theirs.faults, theirs.strikes)
    assert on_this_node.ranks == at_gateway.ranks and on_this_node.returns == at_gateway.returns
    if termination is Termination.CRASH:
        assert ours.log and theirs.log, "its output is in its log on both"
    if "--spam" in command:
        assert "printed more than its output limit of 262144 bytes" in ours.reason


def test_the_nodes_bots_run_under_the_runner_and_answer_on_its_private_socket(
        store: Store, submissions: Path, node: NodeHost, tmp_path: Path, toy_registered: None) -> None:  # noqa: F811
    launch = submit(store, submissions, "steady", "python3 fault_bot.py --mode ok")
    record = on_node(node, launch, FilesCache(tmp_path / "cache"))
    assert record.seats[1].termination is Termination.NORMAL and not record.seats[1].faults
    [pid] = node.running().values()  # it lingers after its match, as at the gateway
    assert _parent(pid) == os.getpid(), "launched by this process, the one that plays the match"
    assert stat.S_IMODE(node.folder.stat().st_mode) == 0o700, "only the arena's user reaches the socket's folder"
    assert node.folder.stat().st_uid == os.getuid()


def test_a_tampered_cache_entry_is_refused_and_the_bot_plays_its_submitted_files(
        store: Store, submissions: Path, node: NodeHost, tmp_path: Path, toy_registered: None) -> None:  # noqa: F811
    launch = submit(store, submissions, "honest", "python3 fault_bot.py --mode ok")
    cache = FilesCache(tmp_path / "cache")
    assert on_node(node, launch, cache, "n1").seats[1].termination is Termination.NORMAL
    entry = cache.root / launch.sha256
    target = entry / "fault_bot.py"
    entry.chmod(0o755)
    target.chmod(0o644)
    target.write_text("raise SystemExit(9)\n")  # what someone with the node's disk would do
    second = on_node(node, launch, cache, "n2")
    assert cache.refused == 1, "the changed entry was refused"
    assert second.seats[1].termination is Termination.NORMAL, second.seats[1].reason
    assert "SystemExit(9)" not in target.read_text(), "fetched again from the submitted files"


def test_cached_files_are_read_only_and_a_wrong_transfer_is_refused(tmp_path: Path) -> None:
    stored = store_submission(BOTS, tmp_path / "submissions")
    cache = FilesCache(tmp_path / "cache")
    fetched: list[int] = []

    def fetch() -> bytes:
        fetched.append(1)
        return pack_tree(stored.folder)

    folder = cache.folder(stored.sha256, fetch)
    assert cache.folder(stored.sha256, fetch) == folder and len(fetched) == 1, "fetched once, then cached"
    modes = {stat.S_IMODE(p.stat().st_mode) for p in [folder, *folder.rglob("*")]}
    assert modes <= {0o555, 0o444}, modes
    assert stat.S_IMODE(cache.root.stat().st_mode) == 0o755
    other = "0" * 64
    with pytest.raises(Exception, match="have the tree hash"):
        cache.folder(other, fetch)
    assert not (cache.root / other).exists()
    with pytest.raises(Exception, match="bad files hash"):
        cache.folder("../etc", fetch)


def test_a_local_tournament_executor_plays_a_submitted_bot_on_its_node(
        store: Store, submissions: Path, tmp_path: Path, sandboxed: None, toy_registered: None,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.node.task import play_on_node

    monkeypatch.setenv("ARENA_NODE_NAME", "node-a")
    monkeypatch.setattr("arena.node.task._cache", FilesCache(tmp_path / "cache"))  # this process's node cache
    launch = submit(store, submissions, "local", "python3 fault_bot.py --mode ok")
    job = MatchJob(key=(1, 1), game_id="toy", game_ref="", bots=("random", launch.name), seed=3, chance_seed=3,
                   time_per_move_ms=5000, launches=(launch,))
    [outcome] = LocalExecutor(task=play_on_node).run([job])
    assert outcome.error is None and outcome.node == "node-a"
    assert outcome.record is not None and outcome.record["seats"][1]["termination"] == "normal"


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@pytest.mark.slow  # the probes fill /tmp, fork and allocate to their limits: ~10-20 s
def test_a_hostile_bot_on_the_node_breaks_out_of_nothing(
        store: Store, submissions: Path, sandboxed: None, tmp_path: Path, toy_registered: None) -> None:  # noqa: F811
    """The sandbox probes of tests/arena/launch/test_sandbox.py, on a node: its own cached files
    (write), another bot's cache entry, the database, the host key, the runner's process."""
    from tests.arena.launch.test_sandbox import LIMITS as SANDBOX_LIMITS  # what the probes expect

    node = NodeHost(SANDBOX_LIMITS).start()
    try:
        record, output = _probe(node, store, submissions, tmp_path)
    finally:
        node.stop()
    assert record.seats[0].termination is Termination.NORMAL, (record.seats[0].reason, output)
    assert "MANAGED" not in output, output
    assert "BLOCKED write into its own files" in output and "BLOCKED signal the gateway's process" in output
    assert output.count("BLOCKED") >= 15, output


def _probe(node: NodeHost, store: Store, submissions: Path, tmp_path: Path) -> tuple[MatchRecord, str]:  # noqa: F811
    """The hostile bot's probes, launched on `node`: its record and what it printed."""
    cache = FilesCache(tmp_path / "cache")
    other = store_submission(ROOT / "bots" / "examples" / "python", tmp_path / "elsewhere")
    other_entry = cache.folder(other.sha256, lambda: pack_tree(other.folder))
    (tmp_path / "arena.db").write_text("the database")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        launch = submit(store, submissions, "hostile", " ".join([
            "python3 hostile_bot.py --mode probe", "--db", str(tmp_path / "arena.db"), "--host-key",
            str(host_key_path()), "--other", str(next(other_entry.iterdir())), "--home", os.path.expanduser("~"),
            "--port", str(port), "--listener", str(port), "--gateway-pid", str(os.getpid()),
            "--tmp-mb", "16", "--memory-mb", "768", "--processes", "64"]))
        job = node_job(launch)
        prepare(job, node, cache)
        with NodeSeats(node, {launch.name}, None) as seats:
            record = run_match("toy", [launch.name, "random"], 1, gateway=seats,  # type: ignore[arg-type]
                               time_control=TimeControl(decision_ms=10_000, bank_ms=0), connect_timeout_ms=60_000)
    assert node.gateway is not None
    output = bytes(node.gateway.launcher.bots[launch.name].output).decode(errors="replace")
    return record, output
