"""`arena demo`: the README's main job — a match of every registered game between built-in bots."""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli.play import format_summary
from arena.match import run_match
from engine import registry


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="play every game once between built-in bots")
    parser.add_argument("--seed", type=int, default=1)
    parser.set_defaults(handler=demo_command)


def demo_command(args: argparse.Namespace) -> int:
    for game_id in registry.game_ids():
        info = registry.info(game_id)
        print(format_summary(run_match(game_id, ["random"] * info.max_players, args.seed)))
        print()
    return 0
