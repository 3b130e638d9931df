"""The `arena` command. Each sub-command lives in its own module with a `register(subparsers)`.

Bad input ends with a one-line `arena: error: ...` that says what is valid, and exit status 2;
never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from arena.errors import UsageError

COMMAND_MODULES = [
    "arena.cli.play",
    "arena.cli.demo",
    "arena.cli.tournament",
    "arena.cli.sprt",
    "arena.cli.leaderboard",
    "arena.cli.dashboard",
    "arena.cli.serve",
    "arena.cli.bot",
    "arena.cli.check_bot",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="Tournaments and a bot arena for four tabletop games."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:  # engine.implementation refuses a bad ARENA_ENGINE or a stale compiled engine at import
        import engine  # noqa: F401
    except (RuntimeError, ValueError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except UsageError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
