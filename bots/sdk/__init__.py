"""The Python SDK for arena bots, as the arena's own code and older bots import it (`bots.sdk`).

The SDK itself is the stand-alone kit `arena_sdk` in this folder (bots/sdk/README.md,
`pip install ./bots/sdk`); this package only re-exports it, so `from bots.sdk import run` and
`from arena_sdk import run` are the same function.
"""

from arena_sdk import Bot, Connection, Decision, TLSMismatch, TokenRejected, as_bot, run

__all__ = ["Bot", "Connection", "Decision", "TLSMismatch", "TokenRejected", "as_bot", "run"]
