"""An SDK bot that prints: for the bot-log tests (arena/gateway/core.py `seat_output`).

    python3 log_bot.py --marker-hex HEX [--spam BYTES] [--crash-at-start]

On every decision it prints `WORD match=<match id> step=<n> hand=<its observation>` to stdout and
`WORD-err match=<match id>` to stderr (flushed: a launched bot's stdout is a pipe), then plays a
random legal action. WORD is given hex-encoded, so that the command line (which the dashboard
shows with the bot) does not carry it: only the bot's output does. --spam BYTES: on its first
decision of a match, also print BYTES bytes of numbered filler lines first. --crash-at-start:
print the marker and exit with status 3 before dialling in (a launched bot that never connects).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Any

from bots.sdk import Bot, Decision, run


class LogBot(Bot):
    def __init__(self, marker: str, spam: int) -> None:
        self.marker, self.spam = marker, spam
        self.spammed: set[str] = set()

    def decide(self, decision: Decision) -> int:
        match = decision.match_id
        if self.spam and match not in self.spammed:
            self.spammed.add(match)
            line = 0
            while line * 20 < self.spam:
                print(f"filler {line:>12}")  # 20 bytes a line with its newline
                line += 1
        print(f"{self.marker} match={match} step={decision.step} hand={decision.observation}", flush=True)
        print(f"{self.marker}-err match={match}", file=sys.stderr, flush=True)
        return random.choice(decision.legal_actions)

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        raise AssertionError("decide() answers")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--marker-hex", required=True, help="the marker WORD, hex-encoded")
    parser.add_argument("--spam", type=int, default=0)
    parser.add_argument("--crash-at-start", action="store_true")
    args = parser.parse_args()
    args.marker = bytes.fromhex(args.marker_hex).decode()
    if args.crash_at_start:
        print(f"{args.marker} crashing before it connects", flush=True)
        sys.exit(3)
    run(os.environ["ARENA_ADDRESS"], os.environ["ARENA_TOKEN"], LogBot(args.marker, args.spam))


if __name__ == "__main__":
    main()
