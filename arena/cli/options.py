"""Turning command-line words into game options and bot lists, with errors that name valid values."""

from __future__ import annotations

import argparse
from typing import Any

from arena.errors import UsageError
from arena.match.clock import TimeControl, per_move
from engine import registry
from engine.core import GameInfo


def add_time_per_move(parser: argparse.ArgumentParser) -> None:
    """`--time-per-move-ms`, the time control of connected bots: shared by tournaments and `arena play`."""
    parser.add_argument("--time-per-move-ms", type=int,
                        help="time budget per decision for connected bots (default 1000; bank 10000, grace 250)")


def time_control(time_per_move_ms: int | None) -> TimeControl:
    """The TimeControl of `--time-per-move-ms`, or a one-line UsageError."""
    try:
        return per_move(time_per_move_ms)
    except ValueError as error:
        raise UsageError(str(error)) from None


def game_info(game_id: str) -> GameInfo:
    """The GameInfo of a game id, or a UsageError naming the valid games."""
    try:
        return registry.info(game_id)
    except KeyError as error:
        raise UsageError(error.args[0]) from None


def parse_options(info: GameInfo, pairs: list[str]) -> dict[str, Any]:
    """`["sequential=true", "target=50"]` -> typed option values, checked against the game."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep:
            raise UsageError(f"option {pair!r} must be NAME=VALUE, e.g. --option {_example(info)}")
        if name not in info.options:
            valid = ", ".join(sorted(info.options)) or "none"
            raise UsageError(f"{info.id} has no option {name!r}; valid options: {valid}")
        options[name] = _convert(info, name, text)
    return options


def _convert(info: GameInfo, name: str, text: str) -> Any:
    spec = info.options[name]
    for choice in spec.choices:
        if str(choice).lower() == text.strip().lower():
            return choice
    shown = ", ".join(str(c).lower() if isinstance(c, bool) else str(c) for c in spec.choices)
    raise UsageError(f"{info.id} option {name}={text!r} is not valid; choose one of: {shown}")


def _example(info: GameInfo) -> str:
    for name, spec in info.options.items():
        return f"{name}={str(spec.default).lower()}"
    return "name=value"
