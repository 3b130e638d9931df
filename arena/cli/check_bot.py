"""`arena check-bot --token T --game riviera`: a compliance check for a connected bot.

Plays a few matches of the bot against the random bot (its seat rotating), then reports, check by
check, what the bot did wrong in words: like fastchess's `--compliance`. Exit status 0 when every
check passes, 1 otherwise. Faults do not forfeit the seat here (except disconnects), so one run
shows every problem.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from arena.clock import TimeControl
from arena.cli.gateway_access import gateway_client
from arena.cli.options import game_info
from arena.errors import UsageError
from arena.match import MatchAborted, MatchRecord, Termination, run_match
from arena.store import Store

CHECKS = [
    ("connects with its token and stays connected to the end", {"disconnect", "crash"}),
    ("answers every decision in time", {"timeout"}),
    ("answers only legal actions", {"illegal_action"}),
    ("sends only well-formed arena.v1 messages", {"protocol_error"}),
]
NO_FORFEIT_STRIKES = 1_000_000


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("check-bot", help="play a few matches against the random bot and report protocol problems")
    parser.add_argument("--token", required=True, help="the bot's token")
    parser.add_argument("--game", required=True, help="game id, e.g. riviera")
    parser.add_argument("--matches", type=int, default=3, help="matches to play (default 3)")
    parser.add_argument("--players", type=int, help="seats per match (default: the game's minimum)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gateway", default="127.0.0.1:50051",
                        help="gateway address; when none runs there, one is started in this process")
    parser.add_argument("--connect-timeout", type=float, default=30.0, help="seconds to wait for the bot to connect")
    parser.add_argument("--decision-ms", type=int, default=TimeControl.decision_ms)
    parser.add_argument("--bank-ms", type=int, default=TimeControl.bank_ms)
    parser.add_argument("--db", help="database URL (default $ARENA_DB or sqlite:///arena.db)")
    parser.set_defaults(handler=check_bot_command)


def check_bot_command(args: argparse.Namespace) -> int:
    store = Store(args.db)
    bot = store.bot_by_token(args.token)
    if bot is None:
        raise UsageError("no registered bot has this token; register one with `arena bot register NAME`")
    if why := bot.refusal():
        raise UsageError(f"{why}; it cannot be checked")
    info = game_info(args.game)
    players = args.players or info.min_players
    if not info.min_players <= players <= info.max_players:
        raise UsageError(f"{info.id} is played by {info.min_players} to {info.max_players} players, not {players}")
    if args.matches < 1:
        raise UsageError(f"--matches must be at least 1, not {args.matches}")
    control = TimeControl(decision_ms=args.decision_ms, bank_ms=args.bank_ms)
    played: list[tuple[int, MatchRecord]] = []
    with gateway_client(args.gateway, store) as client:
        print(f"checking bot {bot.name!r} on {info.id}: {args.matches} matches against the random bot "
              f"(waiting up to {args.connect_timeout:g} s for it to connect to {client.address})", flush=True)
        for index in range(args.matches):
            seat = index % players
            seats = ["random"] * players
            seats[seat] = bot.name
            try:
                record = run_match(info.id, seats, args.seed + index, gateway=client, time_control=control,
                                   max_strikes=NO_FORFEIT_STRIKES, connect_timeout_ms=int(args.connect_timeout * 1000))
            except MatchAborted as aborted:
                print(f"match {index + 1}: aborted by an arena-side error (not the bot's fault): {aborted}")
                return 1
            played.append((seat, record))
            print(match_line(index, seat, record), flush=True)
            if record.seats[seat].termination in (Termination.DISCONNECT, Termination.CRASH):
                print("the bot is gone (see below); not playing the remaining matches")
                break
    lines, ok = report(played)
    print("\n".join(lines))
    return 0 if ok else 1


def match_line(index: int, seat: int, record: MatchRecord) -> str:
    times = [s.elapsed_ms[seat] for s in record.steps if s.elapsed_ms and seat in s.elapsed_ms]
    slowest = f", slowest answer {max(times):.1f} ms" if times else ""
    rank = record.ranks[seat] if record.ranks else "-"
    return f"match {index + 1}: seat {seat}, rank {rank} of {record.num_players}, {len(times)} decisions{slowest}"


def report(played: Sequence[tuple[int, MatchRecord]]) -> tuple[list[str], bool]:
    """One line per check (PASS/FAIL) with the first few faults in words; and whether all passed."""
    lines, ok = [], True
    for title, kinds in CHECKS:
        faults = [(n, f) for n, (seat, record) in enumerate(played, 1)
                  for f in record.seats[seat].faults if f["fault"] in kinds]
        ok = ok and not faults
        lines.append(f"{'PASS' if not faults else 'FAIL'}  {title}")
        for match_number, fault in faults[:3]:
            lines.append(f"      match {match_number}, step {fault['step']}: {fault['reason']}")
        if len(faults) > 3:
            lines.append(f"      ... and {len(faults) - 3} more")
    lines.append("the bot follows the protocol" if ok else "the bot has protocol problems (see FAIL above)")
    return lines, ok
