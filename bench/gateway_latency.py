"""Round-trip latency and decisions per second of a connected bot through the gateway, beside a
bare gRPC bidirectional echo on the same machine (the transport's own limit).

    .venv/bin/python bench/gateway_latency.py [--decisions 3000] [--game riviera]
    .venv/bin/python bench/gateway_latency.py --flood 5000 [--decisions 3000]

What is measured (all on 127.0.0.1, the bot always a separate process):
- echo: a grpc.aio server sends a DecisionRequest-sized message on a bidi stream, a minimal
  grpc.aio client process sends it back; round trip timed at the server; in blocks taking turns
  with the gateway's below (a fresh echo server and client each).
- gateway (at the gateway): `DecideReply.elapsed_ms`, from queueing the DecisionRequest on the
  bot's stream to resolving its Action — what the time control charges.
- gateway (at the runner): one whole decision from the match runner's process (runner -> gateway
  -> bot stream -> back), what a match actually waits; the runner's three ways to the gateway side
  by side: `host-leg` (a frame on the gateway's host leg, a plain TCP connection: what the arena
  uses), `stream` (a message on a long-lived gRPC stream `MatchHost.Host`) and `unary` (one
  `MatchHost.Decide` call per decision), in alternating blocks against the same gateway and bot so
  the machine's load falls on all alike.
- a full match: run_match with the bot in one seat, decisions of that seat per second, each way.
For the Python SDK bot and the Node.js example bot. Figures go to BENCHMARKS.md.

`--flood RATE`: the Python SDK bot's decisions at the gateway with and without a second
connection sending RATE Hellos per second (the same gateway; three blocks of each in turn, a
fresh flooder process per block), the Hellos the flooder got onto the wire, and how much the
gateway's log grew.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.link.client import GatewayClient  # noqa: E402
from arena.match.runner import run_match  # noqa: E402
from arena.match.seats import observation_json  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.v1 import bot_pb2 as pb  # noqa: E402
from engine import registry  # noqa: E402
from engine.core import NodeKind, sample_chance  # noqa: E402

KEY = "bench-key"
ECHO_METHOD = "/bench.Echo/Stream"


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"p50_ms": round(pick(0.50), 3), "p99_ms": round(pick(0.99), 3),
            "mean_ms": round(statistics.fmean(ordered), 3), "per_s": round(1000 / statistics.fmean(ordered))}


def sample_request(game_id: str) -> pb.DecisionRequest:
    """A realistic DecisionRequest: the first decision of a game, with its labels."""
    import random

    game = registry.make(game_id, registry.info(game_id).min_players)
    state, rng = game.initial_state(), random.Random(1)
    while state.kind is NodeKind.CHANCE:
        state = state.apply_chance(sample_chance(state, rng))
    seat = state.acting_players()[0]
    return pb.DecisionRequest(
        match_id="bench", seat=seat, game_id=game_id, ruleset=game.ruleset, step=0,
        observation_json=observation_json(state.observation(seat)),
        legal_actions=[pb.LegalAction(id=a, label=game.action_label(a)) for a in state.legal_actions(seat)],
        time_left_ms=11_000, decision_ms=1000, bank_ms=10_000,
    )


# -- the bare echo ------------------------------------------------------------------------------

async def echo_server(payload: bytes, count: int, address: str = "127.0.0.1:0") -> list[float]:
    """Round trips of `payload` timed at the server; `address` may be `unix:PATH` (bench/node_launch.py)."""
    samples: list[float] = []
    done = asyncio.Event()

    async def stream(requests, context):  # noqa: ANN001, ANN202
        replies = requests.__aiter__()
        for _ in range(count):
            started = time.perf_counter()
            yield payload
            await replies.__anext__()
            samples.append((time.perf_counter() - started) * 1000)
        done.set()

    server = grpc.aio.server()
    handler = grpc.stream_stream_rpc_method_handler(stream, request_deserializer=None, response_serializer=None)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"Stream": handler}),))
    port = server.add_insecure_port(address)
    await server.start()
    dial = address if address.startswith("unix:") else f"127.0.0.1:{port}"
    client = subprocess.Popen([sys.executable, __file__, "--echo-client", dial])
    await done.wait()
    client.terminate()
    client.wait()
    await server.stop(0)
    return samples[100:]  # warm-up


async def echo_client(address: str) -> None:
    outbox: asyncio.Queue[bytes] = asyncio.Queue()

    async def sends():  # noqa: ANN202
        while True:
            yield await outbox.get()

    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(ECHO_METHOD, request_serializer=None, response_deserializer=None)(sends())
        async for message in call:
            outbox.put_nowait(message)


# -- through the gateway ------------------------------------------------------------------------

def start_bot(kind: str, address: str, token: str) -> subprocess.Popen[bytes]:
    if kind == "python-sdk":
        argv = [sys.executable, str(ROOT / "bots/examples/python/random_bot.py"),
                "--address", address, "--token", token]
    else:
        argv = ["node", str(ROOT / "bots/examples/node/bot.js"), "--address", address, "--token", token]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


MODES = ("host-leg", "stream", "unary")  # how the runner reaches the gateway: GatewayClient(leg=...)


def through_gateway(kind: str, request: pb.DecisionRequest, count: int, game_id: str,
                    rounds: int = 3) -> dict[str, object]:
    """The gateway as deployed: `arena serve` in its own process, the runner here, the bot a third.
    The runner's ways to the gateway and a block of the bare echo take turns, so the machine's load
    falls on all alike (the × echo ratios compare blocks of the same minutes)."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "ARENA_DB": f"sqlite:///{folder}/bench.db", "ARENA_HOST_KEY": KEY}
        token = Store(env["ARENA_DB"]).register_bot("benchbot")
        port = free_port()
        address = f"127.0.0.1:{port}"
        server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", str(port),
                                   "--log-level", "warning"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        bot = start_bot(kind, address, token)
        try:
            clients = {mode: GatewayClient(address, key=KEY, leg=mode) for mode in MODES}
            wait_for_bot(clients["unary"], request)
            samples = {mode: ([], []) for mode in MODES}
            echo: list[float] = []
            payload = pb.ArenaMessage(decision=request).SerializeToString()
            for _ in range(rounds):
                echo += asyncio.run(echo_server(payload, count // rounds + 100))
                for mode, client in clients.items():
                    timed_decisions(client, request, count // rounds + 100, *samples[mode])
            results: dict[str, object] = {"echo": percentiles(echo)}
            results |= {mode: {"at_gateway": percentiles(at_gateway), "at_runner": percentiles(at_runner),
                               "match": full_match(clients[mode], game_id)}
                        for mode, (at_gateway, at_runner) in samples.items()}
            for client in clients.values():
                client.close()
        finally:
            for process in (bot, server):
                process.terminate()
                process.wait()
    return results


def timed_decisions(client: GatewayClient, request: pb.DecisionRequest, count: int,
                    at_gateway: list[float], at_runner: list[float], warm_up: int = 100) -> None:
    """`count` decisions, the first `warm_up` not kept: elapsed at the gateway and at the runner."""
    for number in range(count):
        started = time.perf_counter()
        reply = client.decide("benchbot", request, 5000)
        if number >= warm_up:
            at_runner.append((time.perf_counter() - started) * 1000)
            at_gateway.append(reply.elapsed_ms)


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_bot(client: GatewayClient, request: pb.DecisionRequest, timeout_s: float = 20.0) -> None:
    """Until the gateway is up and the bot answers (a fault reply means: not connected yet)."""
    deadline, last = time.monotonic() + timeout_s, None
    while time.monotonic() < deadline:
        try:
            if client.decide("benchbot", request, 2000).fault == pb.TERMINATION_NORMAL:
                return
        except Exception as error:  # noqa: BLE001 - the gateway is still starting
            last = error
        time.sleep(0.1)
    raise SystemExit(f"the bot did not connect to the gateway ({last})")


def full_match(client: GatewayClient, game_id: str) -> dict[str, float]:
    players = registry.info(game_id).min_players
    started = time.perf_counter()
    decisions = 0
    for seed in range(5):
        record = run_match(game_id, ["benchbot", *["random"] * (players - 1)], seed, gateway=client)
        decisions += sum(1 for step in record.steps if step.actions and 0 in step.actions)
    seconds = time.perf_counter() - started
    return {"bot_decisions": decisions, "seconds": round(seconds, 3), "bot_decisions_per_s": round(decisions / seconds)}


# -- a flooding neighbour ----------------------------------------------------------------------

def flood_run(request: pb.DecisionRequest, count: int, rate: int) -> dict[str, object]:
    """`arena serve` (logging at info), the SDK bot, then a flooder beside it; same gateway."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "ARENA_DB": f"sqlite:///{folder}/bench.db", "ARENA_HOST_KEY": KEY}
        store = Store(env["ARENA_DB"])
        token, flood_token = store.register_bot("benchbot"), store.register_bot("flooder")
        port, log_path = free_port(), Path(folder) / "serve.log"
        address = f"127.0.0.1:{port}"
        with open(log_path, "wb") as log_file:
            server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", str(port)],
                                      env=env, cwd=ROOT, stdout=log_file, stderr=subprocess.STDOUT)
            bot = start_bot("python-sdk", address, token)
            try:
                return flood_phases(address, flood_token, request, count, rate, log_path)
            finally:
                for process in (bot, server):
                    process.terminate()
                    process.wait()


def flood_phases(address: str, flood_token: str, request: pb.DecisionRequest, count: int, rate: int,
                 log_path: Path, rounds: int = 3) -> dict[str, object]:
    """Blocks alone and beside a fresh flooder in turn, so the machine's own load falls on both alike."""
    quiet: list[float] = []
    flooded: list[float] = []
    sent = seconds = 0.0
    with GatewayClient(address, key=KEY) as client:
        wait_for_bot(client, request)
        log_before = log_path.stat().st_size
        for _ in range(rounds):
            quiet += decide_samples(client, request, count // rounds)
            samples, block_sent, block_seconds = flood_block(client, address, flood_token, request,
                                                             count // rounds, rate)
            flooded, sent, seconds = flooded + samples, sent + block_sent, seconds + block_seconds
    log_growth = log_path.stat().st_size - log_before
    return {"without_flood": percentiles(quiet), "with_flood": percentiles(flooded), "attempted_per_s": rate,
            "hellos_sent": int(sent), "hellos_sent_per_s": round(sent / seconds),
            "log_bytes": log_growth, "log_bytes_per_10000_hellos": round(log_growth * 10_000 / max(sent, 1))}


def flood_block(client: GatewayClient, address: str, flood_token: str, request: pb.DecisionRequest, count: int,
                rate: int) -> tuple[list[float], int, float]:
    """`count` decisions beside a flooder process; with the Hellos it got out and its seconds."""
    flooder = subprocess.Popen([sys.executable, __file__, "--flood-client", address, flood_token, str(rate)],
                               stdout=subprocess.PIPE, text=True)
    started = time.perf_counter()
    time.sleep(1.0)  # the flood is under way
    samples = decide_samples(client, request, count)
    flooder.terminate()
    sent = int(flooder.communicate()[0].strip() or 0)
    return samples, sent, time.perf_counter() - started


def decide_samples(client: GatewayClient, request: pb.DecisionRequest, count: int) -> list[float]:
    """`elapsed_ms` at the gateway of `count` decisions (after 100 of warm-up)."""
    samples = [client.decide("benchbot", request, 5000).elapsed_ms for _ in range(count + 100)]
    return samples[100:]


def flood_client(address: str, token: str, rate: int) -> None:
    """Send Hellos at `rate` per second until SIGTERM; then print how many gRPC took."""
    import signal

    sent = 0

    def stop(*_: object) -> None:
        print(sent, flush=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    hello = pb.BotMessage(hello=pb.Hello(client="flood " * 8)).SerializeToString()

    def hellos():  # noqa: ANN202
        nonlocal sent
        started = time.perf_counter()
        while True:
            ahead = sent / rate - (time.perf_counter() - started)
            if ahead > 0:
                time.sleep(ahead)
            sent += 1
            yield hello

    with grpc.insecure_channel(address) as channel:
        play = channel.stream_stream("/arena.v1.BotGateway/Play", request_serializer=None, response_deserializer=None)
        for _ in play(hellos(), metadata=(("authorization", f"Bearer {token}"),)):
            pass


def print_flood(result: dict[str, Any]) -> None:
    print(json.dumps(result, indent=2))
    quiet, flooded = result["without_flood"], result["with_flood"]
    print("\n| Python SDK bot at gateway | p50 ms | p99 ms |\n|---|---|---|")
    print(f"| alone | {quiet['p50_ms']} | {quiet['p99_ms']} |")
    print(f"| beside a {result['attempted_per_s']}/s Hello flood | {flooded['p50_ms']} | {flooded['p99_ms']} |")
    print(f"\np50 ratio {flooded['p50_ms'] / quiet['p50_ms']:.2f}x; the flooder got {result['hellos_sent']} Hellos "
          f"onto the wire ({result['hellos_sent_per_s']}/s); log +{result['log_bytes']} bytes "
          f"({result['log_bytes_per_10000_hellos']} per 10,000 Hellos)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--game", default="riviera")
    parser.add_argument("--flood", type=int, metavar="RATE", help="Hellos per second of a flooding neighbour")
    parser.add_argument("--echo-client", help=argparse.SUPPRESS)
    parser.add_argument("--flood-client", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_client:
        asyncio.run(echo_client(args.echo_client))
        return
    if args.flood_client:
        flood_client(args.flood_client[0], args.flood_client[1], int(args.flood_client[2]))
        return
    if args.flood:
        print_flood(flood_run(sample_request(args.game), args.decisions, args.flood))
        return
    request = sample_request(args.game)
    message_bytes = pb.ArenaMessage(decision=request).ByteSize()
    load_before = os.getloadavg()[0]
    results = {"message_bytes": message_bytes,
               "python-sdk": through_gateway("python-sdk", request, args.decisions, args.game),
               "node": through_gateway("node", request, args.decisions, args.game),
               "load_average_1min": [load_before, os.getloadavg()[0]]}
    print(json.dumps(results, indent=2))
    print_latency(results, message_bytes, args.game)


def print_latency(results: dict[str, Any], message_bytes: int, game_id: str) -> None:
    print("\n| path | runner -> gateway | p50 ms | p99 ms | per second | × echo p50 | × echo p99 |"
          "\n|---|---|---|---|---|---|---|")
    for kind in ("python-sdk", "node"):
        echo = results[kind]["echo"]
        print(f"| bare gRPC bidi echo ({message_bytes} B), blocks beside the {kind} bot's | | {echo['p50_ms']} "
              f"| {echo['p99_ms']} | {echo['per_s']} | 1.0 | 1.0 |")
        for where in ("at_gateway", "at_runner"):
            for mode in MODES:
                row = results[kind][mode][where]
                print(f"| {kind} bot, {where.replace('_', ' ')} | {mode} | {row['p50_ms']} | {row['p99_ms']} "
                      f"| {row['per_s']} | {row['p50_ms'] / echo['p50_ms']:.2f} "
                      f"| {row['p99_ms'] / echo['p99_ms']:.2f} |")
    for kind in ("python-sdk", "node"):
        for mode in MODES:
            match = results[kind][mode]["match"]
            print(f"\n{kind}, {mode}: 5 full {game_id} matches, {match['bot_decisions']} bot decisions in "
                  f"{match['seconds']} s = {match['bot_decisions_per_s']} bot decisions/s")


if __name__ == "__main__":
    os.environ.setdefault("ARENA_HOST_KEY", KEY)
    main()
