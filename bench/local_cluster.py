"""A multi-node Ray cluster on this machine, on 127.0.0.1 only, for the scaling benchmark.

`ray start --head` works on loopback, but Ray 2.60's `ray start --address=...` refuses to add a
second node unless RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=1, and with that set it rewrites 127.0.0.1 to
the machine's external address (ray/_private/services.py, resolve_ip_for_localhost). So this script
starts the nodes the way Ray's own multi-node tests do (`ray.cluster_utils.Cluster`: a head and
worker nodes, each its own raylet and worker pool), prints the address, and keeps them up until
it is interrupted (Ctrl-C or SIGTERM), then stops every node it started.

Usage: .venv/bin/python bench/local_cluster.py --nodes 2 --cpus-per-node 1 [--head-cpus 0]
       then: .venv/bin/python bench/tournament_scaling.py scaling --ray-address <printed address>
"""

from __future__ import annotations

import argparse
import os
import signal
import threading

for _name, _value in (("RAY_USAGE_STATS_ENABLED", "0"), ("RAY_AUTH_MODE", "disabled"),
                      ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0"), ("RAY_worker_niceness", "0")):
    os.environ.setdefault(_name, _value)

from ray.cluster_utils import Cluster  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=2, help="worker nodes besides the head (default 2)")
    parser.add_argument("--cpus-per-node", type=int, default=1)
    parser.add_argument("--head-cpus", type=int, default=0, help="CPUs the head offers to tasks (default 0)")
    parser.add_argument("--port", type=int, default=6390)
    args = parser.parse_args()
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": args.head_cpus, "node_ip_address": "127.0.0.1", "gcs_server_port": args.port,
        "include_dashboard": False, "object_store_memory": 100 * 1024**2})
    for _ in range(args.nodes):
        cluster.add_node(num_cpus=args.cpus_per_node, node_ip_address="127.0.0.1",
                         object_store_memory=100 * 1024**2)
    cluster.wait_for_nodes()
    print(f"cluster up: {cluster.address} ({args.nodes} nodes x {args.cpus_per_node} CPUs, head {args.head_cpus})",
          flush=True)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()
    cluster.shutdown()
    print("cluster stopped", flush=True)


if __name__ == "__main__":
    main()
