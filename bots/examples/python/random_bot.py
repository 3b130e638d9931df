"""A complete arena bot with the Python SDK: it plays a uniformly random legal action.

    python3 random_bot.py --token TOKEN [--address 127.0.0.1:50051] [--ca CA.pem]

It needs only the bot kit (`pip install ./bots/sdk`: the `arena_sdk` package, grpcio and protobuf),
which the arena's checkout venv has too.

Without --token it reads $ARENA_TOKEN (and $ARENA_ADDRESS), which is what the arena sets when it
launches a bot registered with --command.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
from typing import Any

from arena_sdk import Bot, TLSMismatch, run


class RandomBot(Bot):
    """Any legal action, uniformly: the simplest valid bot for every game."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        return self.rng.choice(legal_actions)


def main() -> None:
    parser = argparse.ArgumentParser(description="A random arena bot (Python SDK example).")
    parser.add_argument("--address", default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"))
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="bot token (default $ARENA_TOKEN)")
    parser.add_argument("--seed", type=int, help="seed for reproducible choices")
    parser.add_argument("--matches", type=int, help="stop after this many matches (default: run until stopped)")
    parser.add_argument("--version", default="", help="this bot's version, recorded with every seat it plays")
    parser.add_argument("--tls", action="store_true", default=None,
                        help="dial over TLS, verified against the system's roots (default: $ARENA_TLS=1)")
    parser.add_argument("--ca", metavar="FILE",
                        help="dial over TLS, verified against this CA file (default $ARENA_TLS_CA)")
    args = parser.parse_args()
    if not args.token:
        parser.error("give --token TOKEN (from `arena bot register NAME`) or set ARENA_TOKEN")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        played = run(args.address, args.token, RandomBot(args.seed), max_matches=args.matches,
                     client_name="python-example/1.0", version=args.version, tls=args.tls, ca_file=args.ca)
    except (TLSMismatch, ValueError) as error:
        sys.exit(f"random_bot: {error}")
    print(f"played {played} matches")


if __name__ == "__main__":
    main()
