"""A scripted bot for the gateway tests: plays randomly, then misbehaves in one chosen way.

    python tests/arena/bots/fault_bot.py --mode MODE [--after N] [--record FILE] [--trace FILE] [--sleep S]

It speaks the protocol with raw bytes (not the SDK), so it can also send what no SDK would:
undecodable bytes, messages of an unknown type, Actions without an action id. Modes, applied from
the N-th decision request on (0-based; earlier ones get a random legal answer):
  ok          answer every request with a random legal action
  slow        answer after sleeping --sleep seconds
  silent      never answer
  illegal     answer an id that is not legal
  garbage     send bytes that do not parse as a BotMessage
  unknown     send a BotMessage with only an unknown field, then answer with a random legal action
  noaction    send an Action without action_id
  disconnect  close the stream and exit with status 0
  redial      once: drop the connection without answering, sleep --sleep seconds, dial in again
  hangup      once: answer, then drop the connection, sleep --sleep seconds, dial in again
  crash       exit with status 3 at once, after a line on stderr
  noconnect   never dial in (sleeps); for launched-bot tests
  steal       besides answering its own requests, answer the 20 request ids around its own (other
              bots': ids are numbered across the gateway), few enough to stay under the flood throttle
  spin        burn CPU forever (for the launched bots' CPU-time limit)
  hog         allocate memory until it fails (for the launched bots' memory limit)
--record FILE appends every DecisionRequest received, as JSON lines (the wire-level record).
--trace FILE appends every message received, as JSON lines {stream, kind, match_id, request_id, time_left_ms, at}
  (`at`: time.monotonic() when it was read, a clock the processes of one machine share).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import sys
import threading
import time

import grpc

from arena.v1 import bot_pb2 as pb

GARBAGE = b"\xff\xfe garbage that is not protobuf \x00\x01"
UNKNOWN = b"\xf8\x07\x01"  # field 127, varint 1: parses, but sets no known field


class Redial(Exception):
    """Raised by a redial mode: drop this stream and dial in again."""


def main() -> None:
    args = parse_args()
    if args.mode == "noconnect":
        time.sleep(60)
        return
    rng = random.Random(args.seed)
    state = {"decisions": 0, "streams": 0}
    while True:
        try:
            play_stream(args, rng, state)
            return
        except Redial:
            time.sleep(args.sleep)


def play_stream(args: argparse.Namespace, rng: random.Random, state: dict[str, int]) -> None:
    """One connection: answer (or misbehave on) every DecisionRequest until the stream ends."""
    state["streams"] += 1
    outbox: queue.Queue[bytes | None] = queue.Queue()
    channel = grpc.insecure_channel(args.address)
    play = channel.stream_stream("/arena.v1.BotGateway/Play", request_serializer=None,
                                 response_deserializer=pb.ArenaMessage.FromString)
    responses = play(iter(outbox.get, None), metadata=(("authorization", f"Bearer {args.token}"),))
    try:
        for message in responses:
            trace(args, state["streams"], message)
            if message.WhichOneof("kind") != "decision":
                continue
            request = message.decision
            if args.record:
                with open(args.record, "a") as file:
                    file.write(json.dumps({"match_id": request.match_id, "seat": request.seat, "step": request.step,
                                           "observation_json": request.observation_json,
                                           "legal": [a.id for a in request.legal_actions],
                                           "decision_ms": request.decision_ms}) + "\n")
            mode = args.mode if state["decisions"] >= args.after else "ok"
            if mode in ("redial", "hangup") and state["streams"] > 1:
                mode = "ok"  # a redial mode drops the connection once
            state["decisions"] += 1
            misbehave(mode, request, outbox, rng, args)
    finally:
        channel.close()


def trace(args: argparse.Namespace, stream: int, message: pb.ArenaMessage) -> None:
    if args.trace:
        kind = message.WhichOneof("kind")
        body = getattr(message, kind)
        with open(args.trace, "a") as file:
            file.write(json.dumps({"stream": stream, "kind": kind, "match_id": getattr(body, "match_id", ""),
                                   "request_id": getattr(body, "request_id", 0),
                                   "time_left_ms": getattr(body, "time_left_ms", 0), "at": time.monotonic()}) + "\n")


def misbehave(mode: str, request: pb.DecisionRequest, outbox: queue.Queue, rng: random.Random,
              args: argparse.Namespace) -> None:
    legal = [a.id for a in request.legal_actions]

    def answer(action_id: int) -> None:
        outbox.put(pb.BotMessage(action=pb.Action(request_id=request.request_id, action_id=action_id))
                   .SerializeToString())

    if mode == "ok":
        answer(rng.choice(legal))
    elif mode == "slow":
        threading.Timer(args.sleep, answer, (rng.choice(legal),)).start()
    elif mode == "illegal":
        answer(max(legal) + 1000)
    elif mode == "garbage":
        outbox.put(GARBAGE)
    elif mode == "unknown":
        outbox.put(UNKNOWN)
        answer(rng.choice(legal))
    elif mode == "redial":
        raise Redial
    elif mode == "hangup":
        answer(rng.choice(legal))
        time.sleep(0.05)  # let the answer go out before the connection drops
        raise Redial
    elif mode == "noaction":
        outbox.put(pb.BotMessage(action=pb.Action(request_id=request.request_id)).SerializeToString())
    elif mode == "disconnect":
        outbox.put(None)
        time.sleep(0.2)
        os._exit(0)
    elif mode == "crash":
        print("fault bot: crashing on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    elif mode == "steal":
        for request_id in range(max(1, request.request_id - 10), request.request_id + 11):
            if request_id != request.request_id:
                outbox.put(pb.BotMessage(action=pb.Action(request_id=request_id, action_id=0)).SerializeToString())
        answer(rng.choice(legal))
    elif mode == "spin":
        while True:
            pass
    elif mode == "hog":
        hoard = []
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))
    elif mode != "silent":
        raise SystemExit(f"unknown mode {mode!r}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="ok")
    parser.add_argument("--after", type=int, default=0)
    parser.add_argument("--sleep", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record")
    parser.add_argument("--trace")
    parser.add_argument("--address", default=os.environ.get("ARENA_ADDRESS"))
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN"))
    return parser.parse_args()


if __name__ == "__main__":
    main()
