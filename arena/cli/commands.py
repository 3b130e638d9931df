"""The sub-commands of `arena` and its argument parser.

Each sub-command lives in its own module, named after it, with a `register(subparsers)`; packages
above arena/ add theirs as entry points of the group PLUGIN_GROUP (pyproject.toml: `arena dashboard`
comes from dashboards/cli.py), since arena/ imports nothing of them.
"""

from __future__ import annotations

import argparse
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from arena.cli import author, bot, check_bot, demo, ladder, leaderboard, play, serve, sprt, store, tournament

# the order of the help
COMMANDS = [play, demo, tournament, ladder, sprt, leaderboard, serve, bot, author, check_bot, store]
PLUGIN_GROUP = "arena.commands"


def plugin_commands() -> list[Any]:
    """The `register(subparsers)` functions of the sub-commands installed under PLUGIN_GROUP."""
    return [point.load() for point in sorted(entry_points(group=PLUGIN_GROUP), key=lambda point: point.name)]


@cache
def parser() -> argparse.ArgumentParser:
    """The parser, built once per process: building it (every sub-command's arguments, argparse's
    message lookups, the plugins' entry points) costs far more than `arena leaderboard` reading its
    table, which a caller running commands in process (tests, bench/scale.py) would pay every time.
    Parsing leaves a parser as it was, so one serves every call."""
    return build_parser()


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
