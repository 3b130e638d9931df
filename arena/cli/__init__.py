"""The `arena` command. Each sub-command lives in its own module, named after it, with a `register(subparsers)`.

Bad input ends with a one-line `arena: error: ...` that says what is valid, and exit status 2;
never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

from arena.cli import author, bot, check_bot, demo, leaderboard, play, serve, sprt, tournament
from arena.errors import UsageError

# `arena`'s own sub-commands, in the order of its help; packages above arena/ add theirs as entry
# points of this group (pyproject.toml: `arena dashboard` comes from dashboards/cli.py).
COMMANDS = [play, demo, tournament, sprt, leaderboard, serve, bot, author, check_bot]
PLUGIN_GROUP = "arena.commands"


def plugin_commands() -> list[Any]:
    """The `register(subparsers)` functions of the sub-commands installed under PLUGIN_GROUP."""
    return [point.load() for point in sorted(entry_points(group=PLUGIN_GROUP), key=lambda point: point.name)]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="Tournaments and a bot arena for four tabletop games."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(subparsers)
    for register in plugin_commands():
        register(subparsers)
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
