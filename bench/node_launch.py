"""Submitted bots launched on the node of their match (arena/node/): one decision, and a tournament.

    .venv/bin/python bench/node_launch.py latency [--decisions 2000] [--game riviera] [--bots minimal,...] [--pin]
    .venv/bin/python bench/node_launch.py scaling [--matches 24] [--game gang_of_dice]
    .venv/bin/python bench/node_launch.py tail [--decisions 6000]

latency: a submitted bot (a minimal one that does what the echo client does, the Python kit's
example and the Node.js one), launched in its real sandbox by a `NodeHost` in this process, as a
Ray worker launches it; one whole decision timed at the runner, what a match waits: `NodeHost.decide`
(the runner's thread runs the host's loop and sends onto the bot's gRPC stream on the node's Unix
socket, arena/node/hop.py) and, in blocks taking turns with it, the gateway's path it replaced
(`NodeHost.decide_as_gateway`: `Gateway.decide` as a task on the loop, the runner's thread handing
it over). Beside them, in blocks that take turns with them, a bare gRPC bidirectional echo over a
Unix socket (the same kind of socket): a grpc.aio server sends the DecisionRequest-sized message,
a minimal client process sends it back; its server in a process of its own (`echo_block`), and, as
before issue 36's third pass, in this process beside the host (slower: see `echo_block`). Last,
the Python kit's own work on one decision, alone. `--pin`: this process on CPU 0, the bot and the
echo's clients on CPU 1.

tail: the minimal bot's decisions in a row, the ones over 1 ms and the longest, with and without
`gc.freeze()` after the host started (two runs of each in turn).

scaling: `arena serve` in its own process (the gateway), a Ray cluster on loopback with 1 and then
2 worker nodes of 1 CPU each (tests/arena/node/loopback_cluster.py), and a round robin of two
launched Python bots that spend `--think-ms` of CPU a decision and a built-in one (`--rounds` to
reach about `--matches` matches); once with the bots launched by the gateway (registered as a
command with a folder: how every launched bot ran before) and once as submitted versions,
launched on the nodes. Matches per second of the run, and the CPU the gateway process and the
driver (`arena tournament run`) used per match.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gateway_latency import echo_server, percentiles, sample_request  # noqa: E402

from arena.node.files import FilesCache  # noqa: E402
from arena.node.host import NodeHost  # noqa: E402
from arena.submissions import pack_tree, store_submission  # noqa: E402
from arena.v1 import bot_pb2 as pb  # noqa: E402

EXAMPLES = {"python-sdk": (ROOT / "bots/examples/python", "python3 random_bot.py"),
            "node": (ROOT / "bots/examples/node", "node bot.js"),
            "minimal": (None, "python3 minimal_bot.py")}

# A bot that does what the echo client does and no more: raw bytes on its stream, the request
# parsed for its id, the first legal action answered. Beside the echo, it shows the arena's own
# path; beside the kit's bot, the kit's own work (parsing the observation's JSON, its objects).
MINIMAL_BOT = """import asyncio, os
import grpc
from arena_sdk.v1 import bot_pb2 as pb


async def main():
    outbox = asyncio.Queue()
    outbox.put_nowait(pb.BotMessage(hello=pb.Hello(client="minimal")).SerializeToString())

    async def sends():
        while True:
            yield await outbox.get()

    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        play = channel.stream_stream("/arena.v1.BotGateway/Play", request_serializer=None, response_deserializer=None)
        async for data in play(sends(), metadata=(("authorization", "Bearer " + os.environ["ARENA_TOKEN"]),)):
            message = pb.ArenaMessage.FromString(data)
            if message.WhichOneof("kind") == "decision":
                asked = message.decision
                action = pb.Action(request_id=asked.request_id, action_id=asked.legal_actions[0].id)
                outbox.put_nowait(pb.BotMessage(action=action).SerializeToString())


asyncio.run(main())
"""


def example_folder(kind: str, scratch: Path) -> Path:
    folder = EXAMPLES[kind][0]
    if folder is not None:
        return folder
    folder = scratch / "minimal"
    folder.mkdir(mode=0o755)
    (folder / "minimal_bot.py").write_text(MINIMAL_BOT)
    return folder


# -- one decision ---------------------------------------------------------------------------------

async def unix_echo(payload: bytes, count: int, folder: str) -> list[float]:
    """Round trips of `payload` on a bidi stream over a Unix socket, timed at the server."""
    return await echo_server(payload, count, f"unix:{folder}/echo.sock")


PINNED = False
BENCH_CPU, PEER_CPU = {0}, {1}  # --pin: this process (the host, the echo's server) and the bot or echo client


def pin_peers() -> None:
    """--pin: the echo's client processes (gateway_latency.echo_server starts them) on PEER_CPU."""
    import types

    import gateway_latency

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[Any]:
        started = subprocess.Popen(*args, **kwargs)
        os.sched_setaffinity(started.pid, PEER_CPU)  # (its threads start after: they inherit it)
        return started

    gateway_latency.subprocess = types.SimpleNamespace(Popen=popen)  # type: ignore[assignment]


def pin_tree(pid: int) -> None:
    """--pin: every thread of the process `pid` and of its descendants on PEER_CPU (a launched bot)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        os.sched_setaffinity(int(task.name), PEER_CPU)
        for child in (task / "children").read_text().split():
            pin_tree(int(child))


def echo_block(payload: bytes, count: int, folder: str, here: bool = False) -> list[float]:
    """A block of the bare echo, its server in a process of its own (default), or `here`: in this
    process, beside the `NodeHost`, as before issue 36's third pass. Here its server's events come
    through the host's loop: grpc.aio has one completion queue a process, whose reader is on the
    loop that made the first server (the host's), and events of another loop are handed to it from
    there (`call_soon_threadsafe`): a thread more than the bare echo, and than the hop."""
    if here:
        return asyncio.run(unix_echo(payload, count, folder))
    (Path(folder) / "echo.payload").write_bytes(payload)
    pin = ["--pin"] if PINNED else []
    out = subprocess.run([sys.executable, __file__, "echo-block", "--decisions", str(count), "--folder", folder, *pin],
                         check=True, capture_output=True, text=True).stdout
    return [float(sample) for sample in json.loads(out)]


def node_decisions(host: NodeHost, name: str, request: pb.DecisionRequest, count: int,
                   at_runner: list[float], at_host: list[float], before: bool = False) -> None:
    """`count` decisions after 100 of warm-up: timed at the runner, and on the host's loop (elapsed_ms);
    `before`: the gateway's path (`NodeHost.decide_as_gateway`), else the node's (`NodeHost.decide`)."""
    for number in range(count + 100):
        started = time.perf_counter()
        decide = host.decide_as_gateway if before else host.decide
        reply = decide(name, request, 5000)
        assert reply.fault == pb.TERMINATION_NORMAL, reply.reason
        if number >= 100:
            at_runner.append((time.perf_counter() - started) * 1000)
            at_host.append(reply.elapsed_ms)


def kit_work(request: pb.DecisionRequest, count: int = 20_000) -> dict[str, float]:
    """The Python kit's own work on one decision, in this process (no stream): parsing the
    ArenaMessage, then what its connection does with it (`Decision.from_message`: the observation's
    JSON and the legal actions; the random bot's `act`; the Action queued). Microseconds per decision."""
    import random

    from arena_sdk.client import Bot, Connection
    from arena_sdk.v1 import bot_pb2 as kit_pb

    class RandomBot(Bot):
        def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
            return random.choice(legal_actions)

    data = pb.ArenaMessage(decision=request).SerializeToString()
    connection = Connection("unix:unused", "unused", RandomBot(), "bench", None)
    outbox: asyncio.Queue[Any] = asyncio.Queue()
    started = time.perf_counter()
    for _ in range(count):
        connection._handle(kit_pb.ArenaMessage.FromString(data), outbox, set())
        outbox.get_nowait().SerializeToString()
    return {"kit_us_per_decision": round((time.perf_counter() - started) / count * 1e6, 1)}


def latency(kind: str, request: pb.DecisionRequest, count: int, rounds: int = 3) -> dict[str, Any]:
    command = EXAMPLES[kind][1]
    with tempfile.TemporaryDirectory() as scratch:
        stored = store_submission(example_folder(kind, Path(scratch)), Path(scratch) / "submissions")
        cache = FilesCache(Path(scratch) / "cache")
        host = NodeHost().start()
        name = "benchbot@1"
        files = cache.folder(stored.sha256, lambda: pack_tree(stored.folder))
        host.bots.add(name, command, files)
        try:
            start = pb.MatchStart(match_id=request.match_id, seat=request.seat, game_id=request.game_id,
                                  ruleset=request.ruleset)
            opened = host.open_seat(name, start, 30_000)
            assert opened.fault == pb.TERMINATION_NORMAL, opened.reason
            if PINNED:
                pin_tree(host.running()[name])
            echo: list[float] = []
            echo_here: list[float] = []
            node: list[float] = []
            loop: list[float] = []
            before: list[float] = []
            before_loop: list[float] = []
            payload = pb.ArenaMessage(decision=request).SerializeToString()
            for _ in range(rounds):  # blocks in turn, so the machine's load falls on each alike
                echo += echo_block(payload, count // rounds + 100, scratch)
                echo_here += echo_block(payload, count // rounds + 100, scratch, here=True)
                node_decisions(host, name, request, count // rounds, node, loop)
                node_decisions(host, name, request, count // rounds, before, before_loop, before=True)
            host.close_seat(name, pb.MatchEnd(match_id=request.match_id, seat=request.seat))
        finally:
            host.stop()
    return {"echo_unix": percentiles(echo), "echo_beside_host": percentiles(echo_here),
            "node_at_runner": percentiles(node), "node_at_host": percentiles(loop),
            "before_at_runner": percentiles(before), "before_at_host": percentiles(before_loop)}


def tail(request: pb.DecisionRequest, count: int, freeze: bool) -> dict[str, Any]:
    """The node path's tail: `count` decisions of the minimal bot in a row, how many took over 1 ms
    at the runner, the longest (at the runner and as charged, `elapsed_ms`), and the full collections
    of this process's heap meanwhile; `freeze`: `gc.freeze()` after the host started (the objects
    alive then are left out of later collections)."""
    import gc

    full: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        stored = store_submission(example_folder("minimal", Path(scratch)), Path(scratch) / "submissions")
        files = FilesCache(Path(scratch) / "cache").folder(stored.sha256, lambda: pack_tree(stored.folder))
        host = NodeHost().start()
        host.bots.add("benchbot@1", EXAMPLES["minimal"][1], files)
        try:
            start = pb.MatchStart(match_id=request.match_id, seat=request.seat, game_id=request.game_id,
                                  ruleset=request.ruleset)
            assert host.open_seat("benchbot@1", start, 30_000).fault == pb.TERMINATION_NORMAL
            if freeze:
                gc.collect()
                gc.freeze()
            watch = lambda phase, info: phase == "start" and info["generation"] == 2 and full.append(1)  # noqa: E731
            gc.callbacks.append(watch)
            timed = []
            for _ in range(count):
                started = time.perf_counter()
                reply = host.decide("benchbot@1", request, 5000)
                timed.append(((time.perf_counter() - started) * 1000, reply.elapsed_ms))
            gc.callbacks.remove(watch)
        finally:
            host.stop()
            gc.unfreeze()
    return {"gc_freeze": freeze, "decisions": count, "over_1ms": sum(1 for at_runner, _ in timed if at_runner > 1.0),
            "longest_at_runner_ms": round(max(at_runner for at_runner, _ in timed), 2),
            "longest_charged_ms": max(charged for _, charged in timed), "full_collections": len(full)}


# -- a tournament on 1 and 2 nodes --------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


THINKER = """import random, time
from arena_sdk import run


def act(observation, legal):
    end = time.process_time() + THINK_S  # CPU, as a bot that searches spends it
    while time.process_time() < end:
        pass
    return random.choice(legal)


run(None, None, act)
"""


def thinker(folder: Path, think_ms: float) -> Path:
    """A submitted Python bot that spends `think_ms` of CPU on each decision."""
    folder.mkdir(mode=0o755)
    (folder / "thinker.py").write_text(THINKER.replace("THINK_S", str(think_ms / 1000)))
    return folder


def register(store: Any, where: str, name: str, folder: Path, root: Path) -> None:
    """`node`: a submitted version (launched on the node of its match); `gateway`: the same files
    registered as a command with a folder, which the gateway launches (how every launched bot ran before)."""
    command = "python3 thinker.py"
    if where == "gateway":
        store.register_bot(name, command=command, files=str(folder))
        return
    stored = store_submission(folder, root)
    store.register_bot(name)
    store.add_version(name, command, str(stored.folder), stored.sha256)


def scaling(where: str, nodes: int, matches: int, game: str, think_ms: float) -> dict[str, Any]:
    from arena.store import Store

    with tempfile.TemporaryDirectory() as scratch:
        os.chmod(scratch, 0o755)  # the gateway's sandboxes read the bot's folder from here
        env = {**os.environ, "ARENA_DB": f"sqlite:///{scratch}/bench.db", "ARENA_HOST_KEY": "bench-key",
               "ARENA_SUBMISSIONS": f"{scratch}/submissions"}
        store = Store(env["ARENA_DB"])
        folder = thinker(Path(scratch) / "thinker", think_ms)
        for name in ("alpha", "beta"):
            register(store, where, name, folder, Path(env["ARENA_SUBMISSIONS"]))
        server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", "0", "--log-level", "warning"],
                                  env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None
        address = server.stdout.readline().split("listening on ")[1].split(",")[0].split()[0]
        cluster, ray_address = start_cluster(nodes, scratch, env)
        rounds = max(1, matches // 6)  # 3 entrants, 2 seats: 6 matches a round
        try:
            cpu_before, driver_before = cpu_seconds(server.pid), _children_cpu()
            started = time.perf_counter()
            run = subprocess.run([sys.executable, "-m", "arena.cli", "tournament", "run", "--game", game,
                                  "--bots", "alpha,beta,random", "--players-per-match", "2", "--rounds", str(rounds),
                                  "--ray-address", ray_address, "--gateway", address, "--quiet"],
                                 env=env, cwd=ROOT, capture_output=True, text=True, timeout=1800)
            seconds = time.perf_counter() - started
            gateway_cpu, driver_cpu = cpu_seconds(server.pid) - cpu_before, _children_cpu() - driver_before
            assert run.returncode == 0, run.stderr
        finally:
            cluster.send_signal(signal.SIGTERM)
            cluster.wait(60)
            server.terminate()
            server.wait(15)
        [info] = store.tournaments()
        played = store.matches(tournament_id=info.id)
        assert all(s.termination == "normal" for m in played for s in m.seats)
        decisions = sum(m.decisions for m in played)
    done = info.done_matches
    return {"bots_at": where, "nodes": nodes, "matches": done, "decisions": decisions, "seconds": round(seconds, 2),
            "matches_per_s": round(done / seconds, 3), "gateway_cpu_ms_per_match": round(1000 * gateway_cpu / done, 2),
            "driver_cpu_ms_per_match": round(1000 * driver_cpu / done, 2),
            "nodes_used": sorted({m.node for m in played})}


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start_cluster(nodes: int, scratch: str, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cluster = subprocess.Popen([sys.executable, str(ROOT / "tests/arena/node/loopback_cluster.py"), "--port", str(port),
                                "--nodes", str(nodes), "--cache", f"{scratch}/cache"], env=env, cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    assert cluster.stdout is not None and cluster.stdout.readline().startswith("cluster up")
    return cluster, f"127.0.0.1:{port}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["latency", "scaling", "tail", "echo-block"])
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--game", help="default: riviera (latency), gang_of_dice (scaling)")
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--bots", default="minimal,python-sdk,node",
                        help="latency: which bots (" + ", ".join(EXAMPLES) + ")")
    parser.add_argument("--think-ms", type=float, default=5.0, help="scaling: CPU the submitted bots spend a decision")
    parser.add_argument("--folder", help=argparse.SUPPRESS)  # echo-block: where its socket and payload are
    parser.add_argument("--pin", action="store_true",
                        help="latency: this process on CPU 0, the bot and the echo's client on CPU 1 (the machine's "
                             "scheduler otherwise puts them on one core or two, block by block)")
    args = parser.parse_args()
    if args.pin:
        global PINNED
        PINNED = True
        os.sched_setaffinity(0, BENCH_CPU)  # before any thread starts: they inherit it
        pin_peers()
    if args.what == "echo-block":  # one block of the bare echo in a process of its own (echo_block)
        payload = (Path(args.folder) / "echo.payload").read_bytes()
        print(json.dumps(asyncio.run(unix_echo(payload, args.decisions, args.folder))))
        return
    load = os.getloadavg()[0]
    if args.what == "tail":  # in turn, with and without gc.freeze()
        request = sample_request(args.game or "riviera")
        runs = [tail(request, args.decisions, freeze) for _ in range(2) for freeze in (False, True)]
        print(json.dumps({"runs": runs, "load_average_1min": [load, os.getloadavg()[0]]}, indent=2))
        return
    if args.what == "latency":
        request = sample_request(args.game or "riviera")
        results = {kind: latency(kind, request, args.decisions) for kind in args.bots.split(",")}
        print(json.dumps({**results, "python_kit_alone": kit_work(request),
                          "load_average_1min": [load, os.getloadavg()[0]]}, indent=2))
        print("\n| bot | path | bare echo, Unix socket: p50 / p99 ms | at runner: p50 / p99 ms | × echo p50 / p99 "
              "| on the host's loop: p50 / p99 ms | × echo p50 |\n|---|---|---|---|---|---|---|")
        for kind, row in results.items():
            here = row["echo_beside_host"]
            print(f"| {kind} | bare echo beside the host (before the third pass) | {here['p50_ms']} / {here['p99_ms']} "
                  f"| | {here['p50_ms'] / row['echo_unix']['p50_ms']:.2f} / "
                  f"{here['p99_ms'] / row['echo_unix']['p99_ms']:.2f} | | |")
            for path, at_runner, at_host in (("node (now)", "node_at_runner", "node_at_host"),
                                             ("gateway's (before)", "before_at_runner", "before_at_host")):
                echo, node, loop = row["echo_unix"], row[at_runner], row[at_host]
                print(f"| {kind} | {path} | {echo['p50_ms']} / {echo['p99_ms']} | {node['p50_ms']} / {node['p99_ms']} "
                      f"| {node['p50_ms'] / echo['p50_ms']:.2f} / {node['p99_ms'] / echo['p99_ms']:.2f} "
                      f"| {loop['p50_ms']} / {loop['p99_ms']} | {loop['p50_ms'] / echo['p50_ms']:.2f} |")
        return
    runs = [scaling(where, nodes, args.matches, args.game or "gang_of_dice", args.think_ms)
            for where in ("gateway", "node") for nodes in (1, 2)]
    print(json.dumps({"runs": runs, "load_average_1min": [load, os.getloadavg()[0]]}, indent=2))
    print("\n| launched bots at | nodes | matches | decisions | s | matches/s | gateway CPU ms/match "
          "| driver CPU ms/match |"
          "\n|---|---|---|---|---|---|---|---|")
    for run in runs:
        print(f"| {run['bots_at']} | {run['nodes']} | {run['matches']} | {run['decisions']} | {run['seconds']} "
              f"| {run['matches_per_s']} | {run['gateway_cpu_ms_per_match']} | {run['driver_cpu_ms_per_match']} |")


if __name__ == "__main__":
    main()
