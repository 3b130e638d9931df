"""The arena's own Python per decision of a launched bot on its node, without I/O.

    .venv/bin/python bench/hop_cpu.py [--decisions 20000] [--game riviera] [--profile]

A `NodeHost` (its loop, gateway and sessions, arena/node/) whose bot is answered in-process: a
session opened on the host's gateway as a launched bot's stream opens it, drained by a `write`
that answers each DecisionRequest at once (the Action queued on the loop for `Session.receive`,
as the stream's reader hands it over), so that what is left is the arena's own work: the
decision numbered and noted, its deadline, the session's outbox and drain, the Action parsed and
matched, the loop run by the runner's thread. Microseconds of wall time per decision on one
thread (CPU: nothing waits), for `NodeHost.decide` (one hop) and `NodeHost.decide_as_gateway`
(`Gateway.decide` as a task on the loop), in blocks taking turns. The stand-in bot's own work
(one `Action` serialized) is timed alone and reported beside them. `--profile`: cProfile's top
functions of the one-hop path, by their own time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gateway_latency import sample_request  # noqa: E402

from arena.node.host import NodeHost  # noqa: E402
from arena.v1 import bot_pb2 as pb  # noqa: E402

BOT = "inproc@1"


def answer(request: pb.DecisionRequest) -> bytes:
    """What the stand-in bot sends back: its first legal action."""
    return pb.BotMessage(action=pb.Action(request_id=request.request_id,
                                          action_id=request.legal_actions[0].id)).SerializeToString()


async def in_process_bot(host: NodeHost) -> None:
    """A session for BOT on the host's gateway, drained by a write that answers at once."""
    assert host.gateway is not None
    session = await host.gateway.connect(BOT, "in-process")
    loop = asyncio.get_running_loop()

    async def write(message: pb.ArenaMessage) -> None:
        message.SerializeToString()  # what grpc's serializer does with it
        if message.WhichOneof("kind") == "decision":
            loop.call_soon(session.receive, answer(message.decision))

    loop.create_task(session.drain(write))


def block(host: NodeHost, request: pb.DecisionRequest, count: int, gateway_path: bool) -> float:
    """Microseconds per decision over `count` decisions."""
    decide = host.decide_as_gateway if gateway_path else host.decide
    started = time.perf_counter()
    for _ in range(count):
        reply = decide(BOT, request, 5000)
        assert reply.fault == pb.TERMINATION_NORMAL, reply.reason
    return (time.perf_counter() - started) / count * 1e6


def measure(request: pb.DecisionRequest, count: int, rounds: int = 5) -> dict[str, Any]:
    host = NodeHost().start()
    try:
        host.call(in_process_bot(host))
        block(host, request, 500, False)  # warm-up
        block(host, request, 500, True)
        hop, gateway = [], []
        for _ in range(rounds):
            hop.append(block(host, request, count // rounds, False))
            gateway.append(block(host, request, count // rounds, True))
    finally:
        host.stop()
    started = time.perf_counter()
    for _ in range(count):
        answer(request)
    bot_us = (time.perf_counter() - started) / count * 1e6
    return {"one_hop_us": sorted(round(x, 1) for x in hop), "gateway_path_us": sorted(round(x, 1) for x in gateway),
            "stand_in_bot_us": round(bot_us, 1)}


def profile(request: pb.DecisionRequest, count: int) -> None:
    host = NodeHost().start()
    try:
        host.call(in_process_bot(host))
        block(host, request, 500, False)
        profiler = cProfile.Profile()
        profiler.enable()
        block(host, request, count, False)
        profiler.disable()
    finally:
        host.stop()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=20_000)
    parser.add_argument("--game", default="riviera")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    request = sample_request(args.game)
    if args.profile:
        profile(request, args.decisions)
        return
    load = os.getloadavg()[0]
    print(json.dumps({**measure(request, args.decisions), "load_average_1min": [load, os.getloadavg()[0]]}))


if __name__ == "__main__":
    main()
