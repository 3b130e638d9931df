"""Where a launched bot's decision goes beyond the bare echo: the echo made like the hop, one factor at a time.

    .venv/bin/python bench/hop_gap.py [--round-trips 3000] [--rounds 3] [--variants echo,options,...] [--pin same|split]

The bare echo of bench/gateway_latency.py (a grpc.aio server on a Unix socket sends a
DecisionRequest-sized message on a bidi stream, a client process sends it back; round trip
timed at the server) against the same echo changed in one way each, in blocks taking turns
(a fresh server and client per block), so the machine's load falls on all alike:

- `echo`: as bench/node_launch.py's (a generator handler, `grpc.aio.server()`, raw bytes).
- `system`: the echo, its client run by the system's `/usr/bin/python3` (with this venv's
  packages), the interpreter a sandboxed Python bot runs (arena/launch/sandbox.py), where the
  echo's client runs this venv's.
- `options`: the server made with the bots' server's options (`BOT_SERVER_OPTIONS`: keepalive,
  message size limit, no BDP probe), as the node host makes it.
- `write`: the handler shaped as the gateway's `Play` (arena/gateway/service.py): messages
  written with `context.write` from an outbox drained by the handler, the replies read by a task
  of their own that resolves what the round trip waits on.
- `serialize`: `write`, the server serializing an ArenaMessage (the client sends the bytes back);
  `answer`: `write`, the client parsing them and answering an Action, which the server parses.
- `message`: `write`, and the messages are the protocol's: the server serializes an ArenaMessage
  (the response serializer), the client parses it and answers an Action as the benchmark's
  minimal bot does, the server parses the BotMessage.
- `shared`: `write`, with the server's loop not kept running but run by the timing thread for
  each round trip and stopped when the reply is in (arena/node/loop.py's `SharedLoop.wait`), as
  the runner's thread runs the node host's; timed on that thread.
- `hop`: all of the above at once (the node's path, less the gateway's bookkeeping).

Per variant: p50 / p99 / mean ms over the blocks, × the echo's, and the loop's turns
(`_run_once`) and selector waits per round trip on the server's side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gateway_latency import percentiles, sample_request  # noqa: E402

from arena.gateway.server import BOT_SERVER_OPTIONS  # noqa: E402
from arena.node.loop import Answer, SharedLoop  # noqa: E402
from arena.v1 import bot_pb2 as pb  # noqa: E402

VARIANTS = {  # name: (server options, write-style handler, protocol messages, shared loop)
    # protocol messages: "" raw bytes both ways, "s" the server serializes an ArenaMessage (the client
    # sends it back as it is), "a" the client parses and answers an Action (the server parses it), "sa" both
    "echo": (False, False, "", False),
    "system": (False, False, "", False),  # the echo, its client run by the system's python3
    "options": (True, False, "", False),
    "write": (False, True, "", False),
    "serialize": (False, True, "s", False),
    "answer": (False, True, "a", False),
    "message": (False, True, "sa", False),
    "shared": (False, True, "", True),
    "hop": (True, True, "sa", True),
}
WARM_UP = 100


class Counted:
    """Counts the loop's turns and its selector's waits (instance attributes wrapped)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.turns = 0
        self.waits = 0
        run_once, select = loop._run_once, loop._selector.select  # type: ignore[attr-defined]

        def counted_run_once() -> None:
            self.turns += 1
            run_once()

        def counted_select(timeout: float | None = None) -> Any:
            self.waits += 1
            return select(timeout)

        loop._run_once = counted_run_once  # type: ignore[attr-defined]
        loop._selector.select = counted_select  # type: ignore[attr-defined]


class EchoServer:
    """One block's server: the handler of the variant, and the round trip the timing waits on."""

    def __init__(self, variant: str, payload: bytes, request: pb.DecisionRequest, count: int) -> None:
        self.options, self.write_style, self.protocol, self.shared = VARIANTS[variant]
        self.system = variant == "system"
        self.payload, self.count = payload, count
        self.message = pb.ArenaMessage(decision=request)
        self.samples: list[float] = []
        self.outbox: asyncio.Queue[Any] = asyncio.Queue() if not self.shared else None  # type: ignore[assignment]
        self.waiting: Any = None  # what the current round trip waits on: an asyncio future or an Answer
        self.connected: asyncio.Event | None = None
        self.done: asyncio.Event | None = None

    def handler(self) -> grpc.GenericRpcHandler:
        method = self.play if self.write_style else self.generator
        serializer = pb.ArenaMessage.SerializeToString if "s" in self.protocol else None
        handler = grpc.stream_stream_rpc_method_handler(method, request_deserializer=None,
                                                        response_serializer=serializer)
        return grpc.method_handlers_generic_handler("bench.Echo", {"Stream": handler})

    async def generator(self, requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
        """bench/gateway_latency.py's echo: yield, then read the reply; timed here."""
        replies = requests.__aiter__()
        for _ in range(self.count):
            started = time.perf_counter()
            yield self.payload
            await replies.__anext__()
            self.samples.append((time.perf_counter() - started) * 1000)
        assert self.done is not None
        self.done.set()

    async def play(self, requests: AsyncIterator[bytes], context: Any) -> None:
        """The gateway's `Play` shape: a reader task, and the outbox drained with context.write."""
        reader = asyncio.create_task(self.read(requests))
        assert self.connected is not None
        self.connected.set()
        try:
            while (message := await self.outbox.get()) is not None:
                await context.write(message)
        finally:
            reader.cancel()

    async def read(self, requests: AsyncIterator[bytes]) -> None:
        async for data in requests:
            if "a" in self.protocol:
                pb.BotMessage.FromString(data).action.action_id  # noqa: B018 - the parse the session does
            if self.waiting is not None and not self.waiting.done():
                self.waiting.set_result(data)

    def outgoing(self) -> Any:
        return self.message if "s" in self.protocol else self.payload

    async def round_trips(self) -> None:
        """The write-style round trips on a running loop, timed on it."""
        loop = asyncio.get_running_loop()
        for _ in range(self.count):
            started = time.perf_counter()
            self.waiting = loop.create_future()
            self.outbox.put_nowait(self.outgoing())
            await self.waiting
            self.samples.append((time.perf_counter() - started) * 1000)
        self.outbox.put_nowait(None)


SYSTEM_PYTHON = "/usr/bin/python3"


CLIENT_CPUS: set[int] | None = None  # --pin: the client's CPUs (the server's are set on this process)


def client_process(address: str, protocol: str, system: bool = False) -> subprocess.Popen[bytes]:
    python, env = sys.executable, None
    if system:
        python = SYSTEM_PYTHON
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([sysconfig.get_paths()["purelib"], str(ROOT)])}
    argv = [python, __file__, "--client", address] + (["--protocol"] if "a" in protocol else [])
    if CLIENT_CPUS is not None:
        argv += ["--client-cpus", ",".join(map(str, sorted(CLIENT_CPUS)))]
    return subprocess.Popen(argv, env=env)


async def start_server(echo: EchoServer, address: str) -> grpc.aio.Server:
    server = grpc.aio.server(options=BOT_SERVER_OPTIONS) if echo.options else grpc.aio.server()
    server.add_generic_rpc_handlers((echo.handler(),))
    server.add_insecure_port(address)
    await server.start()
    echo.connected, echo.done = asyncio.Event(), asyncio.Event()
    if echo.shared:
        echo.outbox = asyncio.Queue()
    return server


async def running_block(echo: EchoServer, address: str) -> Counted:
    """A block on a loop that keeps running (asyncio.run), as the echo's."""
    counted = Counted(asyncio.get_running_loop())
    server = await start_server(echo, address)
    client = client_process(address, echo.protocol, echo.system)
    if echo.write_style:
        assert echo.connected is not None
        await echo.connected.wait()
        await echo.round_trips()
    else:
        assert echo.done is not None
        await echo.done.wait()
    client.terminate()
    client.wait()
    await server.stop(0)
    return counted


def shared_block(echo: EchoServer, address: str) -> Counted:
    """A block on a SharedLoop: this thread runs the loop for each round trip, as the runner's thread."""
    shared = SharedLoop()
    shared.start()
    counted = Counted(shared.loop)
    server = shared.run(start_server(echo, address))
    client = client_process(address, echo.protocol)
    assert echo.connected is not None
    shared.run(echo.connected.wait())
    time.sleep(0.05)  # let the background thread let go (IDLE_S) before the first timed round trip
    for _ in range(echo.count):
        started = time.perf_counter()
        echo.waiting = Answer()
        shared.wait(echo.waiting, 5.0, start=lambda: echo.outbox.put_nowait(echo.outgoing()), guard=False)
        echo.samples.append((time.perf_counter() - started) * 1000)
    shared.run(echo.outbox.put(None))
    client.terminate()
    client.wait()
    shared.run(server.stop(0))
    shared.close()
    return counted


def block(variant: str, payload: bytes, request: pb.DecisionRequest, count: int, folder: str) -> dict[str, Any]:
    echo = EchoServer(variant, payload, request, count + WARM_UP)
    address = f"unix:{folder}/{variant}.sock"
    counted = shared_block(echo, address) if echo.shared else asyncio.run(running_block(echo, address))
    trips = count + WARM_UP
    return {"samples": echo.samples[WARM_UP:], "turns": counted.turns / trips, "waits": counted.waits / trips}


async def client(address: str, protocol: bool) -> None:
    """The echo's client (raw bytes back), or with `protocol` the minimal bot's work on each message."""
    outbox: asyncio.Queue[bytes] = asyncio.Queue()

    async def sends() -> AsyncIterator[bytes]:
        while True:
            yield await outbox.get()

    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream("/bench.Echo/Stream", request_serializer=None, response_deserializer=None)
        async for data in call(sends()):
            if protocol:
                asked = pb.ArenaMessage.FromString(data).decision
                action = pb.Action(request_id=asked.request_id, action_id=asked.legal_actions[0].id)
                data = pb.BotMessage(action=action).SerializeToString()
            outbox.put_nowait(data)


def paired(p50s: list[float], echo: dict[str, Any] | None) -> dict[str, str]:
    """Each block's p50 over the echo block's of the same round: median and quartiles over the rounds
    (the machine's load moves between rounds more than between two blocks of one)."""
    if echo is None or len(p50s) < 2:
        return {}
    ratios = sorted(mine / theirs for mine, theirs in zip(p50s, echo["p50s"], strict=True))
    low, mid, high = statistics.quantiles(ratios, n=4)
    return {"paired": f"{mid:.2f} ({low:.2f}-{high:.2f})"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round-trips", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--game", default="riviera")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--protocol", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--client-cpus", help=argparse.SUPPRESS)
    parser.add_argument("--pin", choices=["same", "split"],
                        help="server and client on CPU 0 (same), or server on CPU 0 and client on CPU 1 (split)")
    args = parser.parse_args()
    if args.client_cpus:
        os.sched_setaffinity(0, {int(cpu) for cpu in args.client_cpus.split(",")})
    if args.client:
        asyncio.run(client(args.client, args.protocol))
        return
    variants = args.variants.split(",")
    unknown = [name for name in variants if name not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; valid: {', '.join(VARIANTS)}")
    if args.pin:  # before any thread starts (grpc's poller inherits it)
        global CLIENT_CPUS
        os.sched_setaffinity(0, {0})
        CLIENT_CPUS = {0} if args.pin == "same" else {1}
    request = sample_request(args.game)
    request.request_id = 1
    payload = pb.ArenaMessage(decision=request).SerializeToString()
    load = os.getloadavg()[0]
    results: dict[str, dict[str, Any]] = {name: {"samples": [], "turns": [], "waits": [], "p50s": []}
                                          for name in variants}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.rounds):
            for name in variants:
                got = block(name, payload, request, args.round_trips // args.rounds, folder)
                results[name]["samples"] += got["samples"]
                results[name]["p50s"].append(statistics.median(got["samples"]))
                results[name]["turns"].append(got["turns"])
                results[name]["waits"].append(got["waits"])
    table = {name: {**percentiles(row["samples"]), **paired(row["p50s"], results.get("echo")),
                    "loop_turns": round(sum(row["turns"]) / len(row["turns"]), 2),
                    "selector_waits": round(sum(row["waits"]) / len(row["waits"]), 2)} for name, row in results.items()}
    print(json.dumps({"variants": table, "load_average_1min": [load, os.getloadavg()[0]]}, indent=2))
    base = table.get("echo")
    print("\n| variant | p50 / p99 / mean ms | × echo p50 / p99 | × echo p50, paired blocks: median (quartiles) "
          "| loop turns / selector waits a round trip |\n|---|---|---|---|---|")
    for name, row in table.items():
        ratio = f"{row['p50_ms'] / base['p50_ms']:.2f} / {row['p99_ms'] / base['p99_ms']:.2f}" if base else "-"
        print(f"| {name} | {row['p50_ms']} / {row['p99_ms']} / {row['mean_ms']} | {ratio} | {row.get('paired', '-')} "
              f"| {row['loop_turns']} / {row['selector_waits']} |")


if __name__ == "__main__":
    main()
