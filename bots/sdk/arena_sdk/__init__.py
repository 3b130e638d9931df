"""The arena's Python bot kit: subclass `Bot` (or write an `act` function) and call `run`.

    from arena_sdk import run
    run("127.0.0.1:50051", TOKEN, lambda observation, legal_actions: legal_actions[0])

Stand-alone (`pip install ./bots/sdk`: grpcio and protobuf only); its own stubs of the protocol
are `arena_sdk.v1.bot_pb2` / `bot_pb2_grpc`. The protocol is proto/arena/v1/bot.proto; the guide
is bots/sdk/README.md.
"""

from arena_sdk.client import Bot, Connection, Decision, TLSMismatch, TokenRejected, as_bot, run

__all__ = ["Bot", "Connection", "Decision", "TLSMismatch", "TokenRejected", "as_bot", "run"]
