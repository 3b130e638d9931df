"""A Ray cluster on 127.0.0.1 for the node tests: a head with no CPU and N worker nodes.

Worker node i (1..N) has 1 CPU, a custom resource `node<i>` (so a task can be placed on it) and
its own environment: ARENA_NODE_NAME=node<i> (what its matches record) and ARENA_NODE_CACHE=
<cache>/node<i> (its own files cache). As bench/local_cluster.py explains, Ray 2.60's `ray start
--address` will not add a second node on loopback, so the nodes are started as Ray's own tests
start them (`ray.cluster_utils.Cluster`: each node its own raylet and worker pool).

Prints `cluster up: ADDRESS`, then keeps the nodes up until SIGTERM; SIGUSR1 kills worker node 1
at once (its raylet and workers, as a lost machine), then prints `node1 killed`.

    python tests/arena/node/loopback_cluster.py --port P --nodes 2 --cache DIR
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
from pathlib import Path

for _name, _value in (("RAY_USAGE_STATS_ENABLED", "0"), ("RAY_AUTH_MODE", "disabled"),
                      ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0"), ("RAY_worker_niceness", "0")):
    os.environ.setdefault(_name, _value)

from ray.cluster_utils import Cluster  # noqa: E402

MEMORY = 80 * 1024**2


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument("--cache", required=True)
    args = parser.parse_args()
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "resources": {"head": 1}, "node_ip_address": "127.0.0.1", "gcs_server_port": args.port,
        "include_dashboard": False, "object_store_memory": MEMORY})
    nodes = [cluster.add_node(num_cpus=1, resources={f"node{i}": 1}, node_ip_address="127.0.0.1",
                              object_store_memory=MEMORY,
                              env_vars={"ARENA_NODE_NAME": f"node{i}", "ARENA_NODE_CACHE": f"{args.cache}/node{i}"})
             for i in range(1, args.nodes + 1)]
    cluster.wait_for_nodes()
    print(f"cluster up: {cluster.address}", flush=True)
    stop, kill = threading.Event(), threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGUSR1, lambda *_: (kill.set(), stop.set()))
    while True:
        stop.wait()
        stop.clear()
        if kill.is_set():
            kill.clear()
            # the raylet first (no new task starts there), then its workers: killing the raylet
            # alone is not a lost machine (a worker playing a match lives on until it notices, and
            # may even hand its result back first); their launched bots die with them
            workers = workers_of("node1")
            cluster.remove_node(nodes[0], allow_graceful=False)
            kill_all(workers)
            print("node1 killed", flush=True)
            continue
        break
    cluster.shutdown()


def workers_of(node: str) -> list[int]:
    """The Ray workers of `node` under this process (another test's cluster may have a node1 too),
    found while its raylet lives: once it is killed they are orphans, no longer under us."""
    marker = f"ARENA_NODE_NAME={node}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cmdline").read_bytes().startswith(b"ray::") \
                    and marker in (proc / "environ").read_bytes().split(b"\0") and _ours(int(proc.name)):
                found.append(int(proc.name))
        except OSError:
            continue  # ended meanwhile, or not ours to read (a sandboxed bot)
    return found


def _ours(pid: int) -> bool:
    while pid > 1:
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        if pid == os.getpid():
            return True
    return False


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # it ended by itself meanwhile


if __name__ == "__main__":
    main()
