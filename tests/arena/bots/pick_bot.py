"""An SDK bot that always picks its first (`--pick first`) or last (`--pick last`) legal action.

    python tests/arena/bots/pick_bot.py --pick first ADDRESS TOKEN

Two of them, one of each, tell apart whose answer a seat got (tests/arena/link/test_host_stream.py).
"""

import argparse

from bots.sdk import run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pick", choices=("first", "last"), required=True)
    parser.add_argument("address")
    parser.add_argument("token")
    args = parser.parse_args()
    index = 0 if args.pick == "first" else -1
    run(args.address, args.token, lambda observation, legal_actions: legal_actions[index])


if __name__ == "__main__":
    main()
