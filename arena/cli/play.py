"""`arena play GAME`: one match between bots, printed as text or JSON.

Built-in bots play in this process; a registered bot's name (`arena bot register NAME`) seats a
connected bot — its latest version for `NAME`, version N for `NAME@N` — which plays through the
gateway at `--gateway` (default 127.0.0.1:50051; when no gateway runs there, one is started in
this process for the match).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from arena.cli.options import add_time_per_move, game_info, parse_options, time_control
from arena.errors import UsageError
from arena.gateway_access import gateway_client
from arena.match.clock import TimeControl
from arena.match.record import MatchAborted, MatchRecord
from arena.match.runner import run_match
from arena.outcomes import Termination
from arena.store import Store, default_db_url, sqlite_file
from arena.tournament.entrants import bot_name, pin, pinned_version
from bots import bot_names, check_spec, is_builtin, parse_spec, split_specs
from engine import registry


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("play", help="play one local match between bots")
    parser.add_argument("game", help="game id, e.g. riviera")
    parser.add_argument("--players", type=int,
                        help="number of seats (default: the game's minimum, or the number of --bots)")
    parser.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    parser.add_argument("--bots", help="comma-separated bot per seat (default: random for every seat)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="game option (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--gateway", default="127.0.0.1:50051",
                        help="gateway for registered bots (default 127.0.0.1:50051)")
    parser.add_argument("--connect-timeout", type=float, default=60.0,
                        help="seconds to wait for registered bots to connect")
    add_time_per_move(parser)
    parser.add_argument("--db", help="database of registered bots (default $ARENA_DB or sqlite:///arena.db)")
    parser.set_defaults(handler=play_command)


def play_command(args: argparse.Namespace) -> int:
    info = game_info(args.game)
    bots = seat_bots(args.bots, args.players, info.min_players)
    if not info.min_players <= len(bots) <= info.max_players:
        raise UsageError(
            f"{info.id} is played by {info.min_players} to {info.max_players} players, not {len(bots)}"
        )
    options = parse_options(info, args.option)
    control = time_control(args.time_per_move_ms)
    check_builtin(bots, registry.make(info.id, len(bots), **options))
    clock: TimeControl | None
    if all(is_builtin(bot) for bot in bots):
        record, clock = run_match(info.id, bots, args.seed, options), None  # built-in bots have no clock
    else:
        record, clock = play_connected(info.id, bots, args, options, control), control
    data = summary(record, clock)
    print(json.dumps(data, indent=2) if args.json else format_summary(data))
    return 0


def seat_bots(spec: str | None, players: int | None, default_players: int) -> list[str]:
    """The bot of every seat: built-in bot specs or registered bot names (checked later)."""
    if spec is None:
        return ["random"] * (players or default_players)
    bots = split_specs(spec)  # "ismcts:sims=500,c=1.4" stays one seat
    if players is not None and players != len(bots):
        raise UsageError(f"--players {players} but --bots names {len(bots)} bots; give one bot per seat")
    return bots


def check_builtin(bots: list[str], game: Any) -> None:
    """Every built-in spec must make a bot for this game (bad parameters are a one-line error)."""
    for spec in filter(is_builtin, bots):
        try:
            check_spec(spec, game)
        except ValueError as error:
            raise UsageError(f"bot {spec!r}: {error}") from None


def check_registered(bots: list[str], store: Store) -> None:
    """Every seat that is not a built-in bot must name a registered bot that is not disabled (and a
    version it has)."""
    for bot in filter(lambda spec: not is_builtin(spec), bots):
        if (info := store.bot(bot_name(bot))) is None:
            registered = ", ".join(b.name for b in store.bots()) or "none (add one with `arena bot register NAME`)"
            raise unknown_bot(bot, registered)
        if why := info.refusal():
            raise UsageError(f"{why}; it cannot play")
        pinned_version(bot, store)


def open_registry(db: str | None, bots: list[str]) -> Store:
    """The database of registered bots; a missing SQLite file is not created just to look a name up."""
    url = db or default_db_url()
    path = sqlite_file(url)
    if path is not None and not path.exists():
        unknown = next(bot for bot in bots if not is_builtin(bot))
        raise unknown_bot(unknown, f"none (no database at {path}; add one with `arena bot register NAME`)")
    return Store(url)


def unknown_bot(bot: str, registered: str) -> UsageError:
    return UsageError(
        f"unknown bot {parse_spec(bot)[0]!r}; built-in bots: {', '.join(bot_names())}; registered bots: {registered}"
    )


def play_connected(game_id: str, bots: list[str], args: argparse.Namespace, options: dict[str, Any],
                   control: TimeControl) -> MatchRecord:
    """A match with registered bots, through the gateway at --gateway (or one started here)."""
    store = open_registry(args.db, bots)
    check_registered(bots, store)
    bots = [pin(bot, store) for bot in bots]  # `mybot` plays (and is shown as) its latest version
    with gateway_client(args.gateway, store) as client:
        waiting = ", ".join(sorted({b for b in bots if not is_builtin(b)}))
        print(f"arena: waiting up to {args.connect_timeout:g} s for {waiting} at {client.address}",
              file=sys.stderr, flush=True)
        try:
            return run_match(game_id, bots, args.seed, options, gateway=client, time_control=control,
                             connect_timeout_ms=int(args.connect_timeout * 1000))
        except MatchAborted as aborted:
            raise UsageError(f"the match was aborted by an arena-side error: {aborted}") from None


def summary(record: MatchRecord, control: TimeControl | None = None) -> dict[str, Any]:
    """The result of a match as plain data: seats, scores, ranks, winners, decisions, and the time
    control of the connected bots (when any played). Per seat, `strikes` counts its faulty
    decisions and `forfeited` says whether its match ended in a fault (docs/protocol.md, "Faults")."""
    assert record.returns is not None and record.ranks is not None
    data: dict[str, Any] = {
        "game": record.game_id,
        "ruleset": record.ruleset,
        "seed": record.seed,
        "seats": [
            {"seat": i, "bot": s.bot, "score": record.returns[i], "rank": record.ranks[i],
             "termination": s.termination.value, "reason": s.reason,
             "strikes": s.strikes, "forfeited": s.termination is not Termination.NORMAL}
            for i, s in enumerate(record.seats)
        ],
        "winners": [i for i, rank in enumerate(record.ranks) if rank == 1],
        "decisions": sum(step.actions is not None for step in record.steps),
    }
    if control is not None:
        data["time_control"] = asdict(control)
    return data


def format_summary(data: dict[str, Any]) -> str:
    """`summary()` as lines of text: one per seat, best first, with its strikes and forfeit."""
    lines = [f"{data['game']} ({data['ruleset']}), seed {data['seed']}, {data['decisions']} decisions"]
    if control := data.get("time_control"):
        lines.append(f"time control: {control['decision_ms']} ms per decision, {control['bank_ms']} ms bank, "
                     f"{control['grace_ms']} ms grace")
    for seat in sorted(data["seats"], key=lambda s: (s["rank"], s["seat"])):
        lines.append(f"  {seat['rank']}. seat {seat['seat']} {seat['bot']:<12} {seat['score']:g}{seat_note(seat)}")
    winners = ", ".join(f"seat {i} ({data['seats'][i]['bot']})" for i in data["winners"])
    lines.append(f"winner: {winners}")
    return "\n".join(lines)


def seat_note(seat: dict[str, Any]) -> str:
    """'  [2 strikes]', '  [3 strikes, forfeited: timeout: ...]' or '' for a clean seat."""
    strikes = f"{seat['strikes']} strike{'' if seat['strikes'] == 1 else 's'}"
    if seat["forfeited"]:
        return f"  [{strikes}, forfeited: {seat['termination']}: {seat['reason']}]"
    return f"  [{strikes}]" if seat["strikes"] else ""
