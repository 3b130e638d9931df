"""`arena play GAME`: one local match between built-in bots, printed as text or JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.cli.options import game_info, parse_options
from arena.errors import UsageError
from arena.match import MatchRecord, run_match
from bots import bot_names, is_builtin, parse_spec


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("play", help="play one local match between bots")
    parser.add_argument("game", help="game id, e.g. riviera")
    parser.add_argument("--players", type=int, help="number of seats (default: the game's minimum, or the number of --bots)")
    parser.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    parser.add_argument("--bots", help="comma-separated bot per seat (default: random for every seat)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="game option (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(handler=play_command)


def play_command(args: argparse.Namespace) -> int:
    info = game_info(args.game)
    bots = seat_bots(args.bots, args.players, info.min_players)
    if not info.min_players <= len(bots) <= info.max_players:
        raise UsageError(
            f"{info.id} is played by {info.min_players} to {info.max_players} players, not {len(bots)}"
        )
    options = parse_options(info, args.option)
    record = run_match(info.id, bots, args.seed, options)
    print(json.dumps(summary(record), indent=2) if args.json else format_summary(record))
    return 0


def seat_bots(spec: str | None, players: int | None, default_players: int) -> list[str]:
    """The bot spec of every seat; checks names (built-in bots for now)."""
    if spec is None:
        return ["random"] * (players or default_players)
    bots = [b.strip() for b in spec.split(",")]
    if players is not None and players != len(bots):
        raise UsageError(f"--players {players} but --bots names {len(bots)} bots; give one bot per seat")
    for bot in bots:
        if not is_builtin(bot):
            raise UsageError(f"unknown bot {parse_spec(bot)[0]!r}; built-in bots: {', '.join(bot_names())}")
    return bots


def summary(record: MatchRecord) -> dict[str, Any]:
    """The result of a match as plain data: seats, scores, ranks, winners, decisions."""
    assert record.returns is not None and record.ranks is not None
    return {
        "game": record.game_id,
        "ruleset": record.ruleset,
        "seed": record.seed,
        "seats": [
            {"seat": i, "bot": s.bot, "score": record.returns[i], "rank": record.ranks[i],
             "termination": s.termination.value, "reason": s.reason}
            for i, s in enumerate(record.seats)
        ],
        "winners": [i for i, rank in enumerate(record.ranks) if rank == 1],
        "decisions": sum(step.actions is not None for step in record.steps),
    }


def format_summary(record: MatchRecord) -> str:
    data = summary(record)
    lines = [f"{data['game']} ({data['ruleset']}), seed {data['seed']}, {data['decisions']} decisions"]
    for seat in sorted(data["seats"], key=lambda s: (s["rank"], s["seat"])):
        note = "" if seat["termination"] == "normal" else f"  [{seat['termination']}: {seat['reason']}]"
        lines.append(f"  {seat['rank']}. seat {seat['seat']} {seat['bot']:<12} {seat['score']:g}{note}")
    winners = ", ".join(f"seat {i} ({data['seats'][i]['bot']})" for i in data["winners"])
    lines.append(f"winner: {winners}")
    return "\n".join(lines)
