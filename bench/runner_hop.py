"""What one runner -> gateway hop costs in Python, by framing: the floor under a connected decision
measured at the match runner (bench/gateway_latency.py, BENCHMARKS.md "Gateway latency").

    .venv/bin/python bench/runner_hop.py [--count 3000]

A grpc.aio echo server in a child process (the gateway's side is grpc.aio too) and, in this
process, a synchronous client as the match runner has, sending a DecisionRequest-sized message and
waiting for it to come back, three ways in alternating blocks: a unary call per message, a message
on one long-lived bidirectional stream (a reader thread hands the reply to the caller, as
arena/link/host_stream.py does), and a length-prefixed frame on a plain TCP socket
(asyncio streams on the server's side; no gRPC).
"""

from __future__ import annotations

import argparse
import asyncio
import queue
import socket
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gateway_latency import percentiles  # noqa: E402

PAYLOAD = b"x" * 850  # the size of Riviera's first DecisionRequest
HEADER = struct.Struct(">I")


async def serve() -> None:
    """Echo on gRPC (unary and bidi) and on TCP frames; print both ports, run until killed."""
    async def unary(message: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return message

    async def stream(messages, context: grpc.aio.ServicerContext) -> None:  # noqa: ANN001
        async for message in messages:
            await context.write(message)

    async def frames(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            size = await reader.readexactly(HEADER.size)
            writer.write(size + await reader.readexactly(HEADER.unpack(size)[0]))

    server = grpc.aio.server()
    handlers = {"Unary": grpc.unary_unary_rpc_method_handler(unary),
                "Stream": grpc.stream_stream_rpc_method_handler(stream)}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Hop", handlers),))
    grpc_port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    tcp = await asyncio.start_server(frames, "127.0.0.1", 0)
    print(grpc_port, tcp.sockets[0].getsockname()[1], flush=True)
    await server.wait_for_termination()


class StreamHop:
    """One long-lived bidi stream; a reader thread resolves the waiting caller's future."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.waiting: Future[bytes] | None = None
        replies = channel.stream_stream("/bench.Hop/Stream")(iter(self.outbox.get, None))
        threading.Thread(target=self._read, args=(replies,), daemon=True).start()

    def _read(self, replies) -> None:  # noqa: ANN001
        for reply in replies:
            self.waiting.set_result(reply)  # type: ignore[union-attr]

    def __call__(self) -> None:
        self.waiting = Future()
        self.outbox.put(PAYLOAD)
        self.waiting.result(5)


class FrameHop:
    """A plain TCP socket: a 4-byte length, then the bytes; the reply read back the same way."""

    def __init__(self, port: int) -> None:
        self.socket = socket.create_connection(("127.0.0.1", port))
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.socket.makefile("rb")

    def __call__(self) -> None:
        self.socket.sendall(HEADER.pack(len(PAYLOAD)) + PAYLOAD)
        self.reader.read(HEADER.unpack(self.reader.read(HEADER.size))[0])


def timed(hop, count: int) -> list[float]:  # noqa: ANN001
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        hop()
        samples.append((time.perf_counter() - started) * 1000)
    return samples[100:]  # warm-up


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve())
        return
    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
    grpc_port, tcp_port = map(int, server.stdout.readline().split())  # type: ignore[union-attr]
    channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
    unary = channel.unary_unary("/bench.Hop/Unary")
    hops = {"gRPC unary call": lambda: unary(PAYLOAD, timeout=5), "gRPC bidi stream": StreamHop(channel),
            "TCP frame": FrameHop(tcp_port)}
    samples: dict[str, list[float]] = {name: [] for name in hops}
    for _ in range(3):
        for name, hop in hops.items():
            samples[name] += timed(hop, args.count // 3 + 100)
    server.kill()
    print("| runner -> gateway hop (850 B each way) | p50 ms | p99 ms |\n|---|---|---|")
    for name, values in samples.items():
        row = percentiles(values)
        print(f"| {name} | {row['p50_ms']} | {row['p99_ms']} |")


if __name__ == "__main__":
    main()
