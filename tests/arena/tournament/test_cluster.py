"""`--ray-address` joins a running multi-node Ray cluster on 127.0.0.1 (slow: starts three raylets)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.store import Store
from engine import registry

ROOT = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_a_tournament_runs_on_a_joined_cluster(tmp_path: Path) -> None:
    games = registry.game_ids()
    if not games:
        pytest.skip("no game registered yet")
    port = free_port()
    cluster = subprocess.Popen([sys.executable, str(ROOT / "bench" / "local_cluster.py"), "--nodes", "2",
                                "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert cluster.stdout is not None
        # Ray's own log lines may come first (after another Ray on this machine: "Overwriting
        # previous Ray address"): read up to the cluster's line
        said = []
        for line in cluster.stdout:
            said.append(line)
            if line.startswith("cluster up"):
                break
        assert said and said[-1].startswith("cluster up"), "".join(said)
        url = f"sqlite:///{tmp_path / 'arena.db'}"
        run = subprocess.run(
            [sys.executable, "-m", "arena.cli", "tournament", "run", "--game", games[0], "--bots",
             "random#1,random#2,random#3", "--ray-address", f"127.0.0.1:{port}", "--db", url, "--quiet"],
            capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        assert "on 2 worker CPUs" in run.stdout, "the two worker nodes' CPUs, none on the head"
        [info] = Store(url).tournaments()
        assert info.status == "finished" and info.done_matches == info.total_matches == 6
    finally:
        cluster.send_signal(signal.SIGTERM)
        try:
            cluster.wait(60)
        except subprocess.TimeoutExpired:
            cluster.kill()
