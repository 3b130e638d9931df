"""Submitted bots on a multi-node Ray cluster on loopback (slow: starts raylets, a gateway, bots).

A head without CPUs and worker nodes (tests/arena/node/loopback_cluster.py), a gateway in its own
process (`arena serve`), and `arena tournament run --ray-address`: each launched bot runs under the
Ray worker of the node that plays its match, none under the gateway; a bot that dials in still
plays through the gateway, at the same tables; every match records its node. Killing a node
mid-tournament loses and duplicates nothing: its matches are played again on the other node.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.store import Store
from arena.submissions import store_submission
from tests.arena.gateway_fixtures import HOST_KEY, ROOT
from tests.arena.tournament.test_cluster import free_port

pytestmark = pytest.mark.slow

BOTS = ROOT / "tests" / "arena" / "bots"
CLUSTER = Path(__file__).with_name("loopback_cluster.py")
MARKER = "--trace /dev/null"  # only the launched bots' command lines carry it
LISTENING = re.compile(r"arena gateway listening on (\S+),")


class Cluster:
    """The loopback cluster's process: its address, and a way to kill worker node 1."""

    def __init__(self, nodes: int, cache: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.process = subprocess.Popen([sys.executable, str(CLUSTER), "--port", str(self.port), "--nodes",
                                         str(nodes), "--cache", str(cache)], stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
        self.said("cluster up")
        self.address = f"127.0.0.1:{self.port}"

    def said(self, words: str) -> None:
        """Read the cluster's output up to a line with `words`; Ray's own log lines may come first
        (e.g. "Overwriting previous Ray address", after another Ray ran on this machine)."""
        assert self.process.stdout is not None
        lines = []
        for line in self.process.stdout:
            if words in line:
                return
            lines.append(line)
        raise AssertionError(f"the loopback cluster ended before {words!r}: {''.join(lines)}")

    def kill_node1(self) -> None:
        self.process.send_signal(signal.SIGUSR1)
        self.said("node1 killed")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()


class BotWatch:
    """Every launched bot process seen while it runs, with its ancestors (a /proc scan every 0.1 s)."""

    def __init__(self) -> None:
        self.seen: dict[int, list[int]] = {}  # bot pid -> its ancestors' pids, nearest first
        self.node_of: dict[int, str] = {}  # an ancestor's pid -> its ARENA_NODE_NAME
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            for proc in Path("/proc").iterdir():
                if proc.name.isdigit() and int(proc.name) not in self.seen:
                    self._look(int(proc.name))

    def _look(self, pid: int) -> None:
        try:
            if MARKER not in (Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()):
                return
            chain = _ancestors(pid)
            for ancestor in chain:
                if ancestor not in self.node_of:
                    self.node_of[ancestor] = _node_env(ancestor)
        except OSError:
            return  # it ended while being looked at
        self.seen[pid] = chain

    def nodes(self) -> set[str]:
        """The ARENA_NODE_NAME of the nearest ancestor of each bot that has one ('' for none)."""
        return {next((self.node_of[a] for a in chain if self.node_of.get(a)), "") for chain in self.seen.values()}

    def on_node(self, node: str) -> list[int]:
        """The bots seen under a worker of `node`."""
        return [pid for pid, chain in self.seen.items() if any(self.node_of.get(a) == node for a in chain)]

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    import os

    return {**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_HOST_KEY": HOST_KEY,
            "ARENA_SUBMISSIONS": str(tmp_path / "submissions")}


@pytest.fixture
def gateway(env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[str], str]]:
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", "0"], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    found = LISTENING.search(server.stdout.readline())
    assert found, server.stderr.read() if server.stderr else ""
    yield server, found.group(1)
    server.send_signal(signal.SIGTERM)
    server.wait(15)


def submit(store: Store, root: Path, name: str, mode: str) -> str:
    stored = store_submission(BOTS, root)
    store.register_bot(name)
    return store.add_version(name, f"python3 fault_bot.py --mode {mode} --sleep 0.05 {MARKER}",
                             str(stored.folder), stored.sha256).entrant


def tournament(env: dict[str, str], cluster: Cluster, gateway: str, bots: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", "run", "--game", "gang_of_dice", "--bots", bots,
         "--players-per-match", "2", "--ray-address", cluster.address, "--gateway", gateway, "--quiet"],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_launched_bots_play_on_the_node_of_their_match_and_none_at_the_gateway(
        env: dict[str, str], gateway: tuple[subprocess.Popen[str], str], tmp_path: Path) -> None:
    server, address = gateway
    store = Store(env["ARENA_DB"])
    launched = submit(store, tmp_path / "submissions", "nodebot", "ok")
    token = store.register_bot("dialer")
    dialer = subprocess.Popen([sys.executable, str(BOTS / "fault_bot.py"), "--mode", "ok", "--address", address,
                               "--token", token], env=env, cwd=ROOT)
    cluster = Cluster(1, tmp_path / "cache", env)
    watch = BotWatch()
    try:
        run = tournament(env, cluster, address, "nodebot,dialer,random")
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    finally:
        watch.stop()
        cluster.stop()
        dialer.terminate()
        dialer.wait(5)
    [info] = store.tournaments()
    assert info.status == "finished" and info.done_matches == info.total_matches == 6
    matches = store.matches(tournament_id=info.id)
    assert {m.node for m in matches} == {"node1"}, "every match records the node that played it"
    seats = [s for m in matches for s in m.seats]
    assert {s.entrant for s in seats} == {launched, "dialer", "random"}
    assert all(s.termination == "normal" for s in seats), [s.reason for s in seats if s.termination != "normal"]
    assert any({s.entrant for s in m.seats} == {launched, "dialer"} for m in matches), "a table mixes both kinds"
    assert watch.seen, "the launched bots were seen running"
    assert watch.nodes() == {"node1"}, "each launched bot under the worker of node1"
    assert not any(server.pid in chain for chain in watch.seen.values()), "none under the gateway"
    assert (tmp_path / "cache" / "node1" / store.version("nodebot", 1).sha256).is_dir(), "the node's own cache"


def test_a_node_killed_mid_tournament_costs_only_its_matches_which_play_again_elsewhere(
        env: dict[str, str], gateway: tuple[subprocess.Popen[str], str], tmp_path: Path) -> None:
    _, address = gateway
    store = Store(env["ARENA_DB"])
    # 50 ms a decision: matches last seconds. Every table has a slow bot, so that both nodes are
    # busy until the last matches (with fast tables, node1 could be idle when it is killed)
    for name in ("slowbot", "slowbot2", "slowbot3"):
        submit(store, tmp_path / "submissions", name, "slow")
    cluster = Cluster(2, tmp_path / "cache", env)
    watch = BotWatch()
    try:
        run = tournament(env, cluster, address, "slowbot,slowbot2,slowbot3,random")
        # killed while a worker of node1 plays a task (its title says so), as soon as one starts:
        # a match lasts seconds, the kill takes well under one. Not "a bot of node1 is running":
        # launched bots linger between matches, so node1 could be idle (CI once saw no replay)
        wait_while_playing(run, lambda: not (store.tournaments() and store.tournaments()[0].done_matches >= 1
                                              and _playing_on("node1")))
        done_at_kill = store.tournaments()[0].done_matches
        cluster.kill_node1()
        orphans = _still_running(watch.on_node("node1"))
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    finally:
        watch.stop()
        cluster.stop()
    [info] = store.tournaments()
    assert done_at_kill < info.total_matches, "the node died mid-tournament"
    assert info.status == "finished" and info.done_matches == info.total_matches == 12
    matches = store.matches(tournament_id=info.id)
    assert sorted(m.match_index for m in matches) == list(range(12)), "nothing lost, nothing twice"
    assert all(m.status == "finished" for m in matches), [m.aborted_reason for m in matches]
    replayed = [m for m in matches if m.attempts > 1]
    assert replayed and {m.node for m in replayed} == {"node2"}, "node1's match was played again on node2"
    assert {"node1", "node2"} <= watch.nodes(), "launched bots ran on both nodes while both were up"
    assert not orphans, "node1's launched bots died with its workers (bubblewrap's --die-with-parent)"


def wait_while_playing(run: subprocess.Popen[str], waiting: Callable[[], object], timeout_s: float = 240) -> None:
    """Poll `waiting` until false while the tournament `run` runs (it must not end first)."""
    deadline = time.monotonic() + timeout_s
    while waiting():
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < deadline, "node1 never played"
        time.sleep(0.1)


def _alive(pids: list[int]) -> list[int]:
    return [pid for pid in pids if Path(f"/proc/{pid}").exists()]


def _still_running(pids: list[int], wait_s: float = 10.0) -> list[int]:
    """Those of `pids` still running after up to `wait_s` (a bot's sandbox dies with its parent)."""
    deadline = time.monotonic() + wait_s
    while (left := _alive(pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def _playing_on(node: str) -> list[int]:
    """The Ray workers of `node` that play matches now (Ray titles a worker by the task it runs)."""
    playing = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cmdline").read_bytes().startswith(b"ray::play_matches"):
                if _node_env(int(proc.name)) == node:
                    playing.append(int(proc.name))
        except OSError:
            continue  # it ended while being looked at
    return playing


def _ancestors(pid: int) -> list[int]:
    chain = []
    while pid > 1:
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        chain.append(pid)
    return chain


def _node_env(pid: int) -> str:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except PermissionError:  # bwrap's processes are not dumpable: not the worker we look for
        return ""
    for entry in environ.split(b"\0"):
        if entry.startswith(b"ARENA_NODE_NAME="):
            return entry.split(b"=", 1)[1].decode()
    return ""
