"""The Python SDK for arena bots: subclass `Bot` (or write an `act` function) and call `run`.

    from bots.sdk import run
    run("127.0.0.1:50051", TOKEN, lambda observation, legal_actions: legal_actions[0])

The protocol itself is in proto/arena/v1/bot.proto and docs/protocol.md.
"""

from bots.sdk.client import Bot, Connection, Decision, TokenRejected, as_bot, run

__all__ = ["Bot", "Connection", "Decision", "TokenRejected", "as_bot", "run"]
