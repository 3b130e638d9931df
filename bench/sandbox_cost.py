"""What the sandbox costs: a launched, sandboxed bot against the same bot connected unsandboxed.

    .venv/bin/python bench/sandbox_cost.py [--decisions 2000] [--launches 5] [--game riviera]

One `arena serve` process (its own, on 127.0.0.1), the runner here, the bot a third process tree:
- connected: the example bot started here as a plain process dialling the TCP port;
- sandboxed: the same example registered with `--command` and `--files` (its folder), launched by
  the gateway in its sandbox (bwrap, its own uid, cgroups where possible), dialling the Unix socket.
Measured for the Python SDK example and the Node.js example:
- launch to first decision: from starting the process (connected) or from `OpenSeat` (sandboxed,
  which launches it) to the first answered `Decide`; the median of `--launches` cold starts;
- per decision: a whole `MatchHost.Decide` call from the runner (p50, p99), as in
  bench/gateway_latency.py, whose helpers this reuses. Figures go to BENCHMARKS.md.
Both ways run through the same gateway, interleaved, so a busy shared machine weighs on both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from gateway_latency import free_port, percentiles, sample_request  # noqa: E402

from arena.link.client import GatewayClient  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.v1 import bot_pb2 as pb  # noqa: E402

KEY = "bench-key"
BOTS = {  # kind: (folder, command run in it)
    "python-sdk": (ROOT / "bots/examples/python", "python3 random_bot.py"),
    "node": (ROOT / "bots/examples/node", "node bot.js"),
}


@contextmanager
def gateway() -> Iterator[tuple[str, str, Store]]:
    """`arena serve` on a free port with a throwaway database; launched bots linger 2 s."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "ARENA_DB": f"sqlite:///{folder}/bench.db", "ARENA_HOST_KEY": KEY}
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", str(port),
                                   "--log-level", "warning"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        try:
            yield f"127.0.0.1:{port}", env["ARENA_DB"], Store(env["ARENA_DB"])
        finally:
            server.terminate()
            server.wait()


def first_decision(client: GatewayClient, name: str, request: pb.DecisionRequest, start: Callable[[], object]) -> float:
    """Milliseconds from `start()` (a process start, or nothing) to the bot's first answer."""
    started = time.perf_counter()
    start()
    seat = client.open_seat(name, pb.MatchStart(match_id=f"bench-{time.time_ns()}", game_id=request.game_id), 30_000)
    assert seat.fault == pb.TERMINATION_NORMAL, seat.reason
    reply = client.decide(name, request, 10_000)
    assert reply.fault == pb.TERMINATION_NORMAL, reply.reason
    return (time.perf_counter() - started) * 1000


def decide_ms(client: GatewayClient, name: str, request: pb.DecisionRequest, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        client.decide(name, request, 5000)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def compare(kind: str, request: pb.DecisionRequest, count: int, launches: int) -> dict[str, dict[str, object]]:
    """Both ways through one gateway, interleaved (a start each, then blocks of 100 decisions each
    in turn), so that the load of a shared machine falls on both alike."""
    folder, command = BOTS[kind]
    argv = [sys.executable if word == "python3" else word for word in command.split()]  # this venv's python
    starts: dict[str, list[float]] = {"connected": [], "sandboxed": []}
    processes: list[subprocess.Popen[bytes]] = []
    with gateway() as (address, _, store), GatewayClient(address, key=KEY) as client:
        wait_serving(client)
        for index in range(launches):
            token = store.register_bot(f"plain{index}")
            env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_TOKEN": token, "PYTHONPATH": str(ROOT)}

            def start(env: dict[str, str] = env) -> None:  # this index's env, bound now
                processes.append(subprocess.Popen(argv, cwd=folder, env=env,
                                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

            starts["connected"].append(first_decision(client, f"plain{index}", request, start))
            store.register_bot(f"boxed{index}", command=command, files=str(folder))
            starts["sandboxed"].append(first_decision(client, f"boxed{index}", request, lambda: None))
        samples: dict[str, list[float]] = {"connected": [], "sandboxed": []}
        for _ in range(max(1, count // 100) + 1):  # the first block of each is the warm-up
            samples["connected"] += decide_ms(client, f"plain{launches - 1}", request, 100)
            samples["sandboxed"] += decide_ms(client, f"boxed{launches - 1}", request, 100)
        for process in processes:
            process.terminate()
            process.wait()
    return {how: {"launch_to_first_decision_ms": round(statistics.median(starts[how]), 1),
                  "decide": percentiles(samples[how][100:])} for how in starts}


def wait_serving(client: GatewayClient, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            client.close_seat("nobody", pb.MatchEnd())
            return
        except Exception:  # noqa: BLE001 - the gateway is still starting
            time.sleep(0.1)
    raise SystemExit("the gateway did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--launches", type=int, default=5)
    parser.add_argument("--game", default="riviera")
    args = parser.parse_args()
    request = sample_request(args.game)
    results = {kind: compare(kind, request, args.decisions, args.launches) for kind in BOTS}
    print(json.dumps(results, indent=2))
    print("\n| bot | how | launch to first decision ms | Decide p50 ms | p99 ms | p50 vs connected |"
          "\n|---|---|---|---|---|---|")
    for kind, pair in results.items():
        base = pair["connected"]["decide"]["p50_ms"]
        for how, row in pair.items():
            d = row["decide"]
            print(f"| {kind} | {how} | {row['launch_to_first_decision_ms']} | {d['p50_ms']} | {d['p99_ms']} | "
                  f"{d['p50_ms'] / base:.2f}x |")


if __name__ == "__main__":
    main()
