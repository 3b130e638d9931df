"""`arena check-bot --token T --game riviera`: a compliance check for a connected bot.

Plays a few matches of the bot against the random bot (its seat rotating), then reports, check by
check, what the bot did wrong in words: like fastchess's `--compliance`. Exit status 0 when every
check passes, 1 otherwise. Faults do not forfeit the seat here (except disconnects), so one run
shows every problem.

`arena check-bot --submission FOLDER --command "python3 bot.py" --game riviera` checks a
submission before it is submitted: a gateway started here launches the command in the same
sandbox as a tournament would (docs/sandbox.md), with a throwaway database and key, and the report
adds whether it stayed within the sandbox's limits and what it printed when it crashed.
"""

from __future__ import annotations

import argparse
import secrets
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.cli.options import game_info
from arena.errors import UsageError
from arena.gateway.server import GatewayThread
from arena.gateway_access import gateway_client
from arena.launch.launcher import LaunchLimits
from arena.launch.sandbox import SandboxUnavailable, bwrap_path, check_files
from arena.link.client import GatewayClient
from arena.match.clock import TimeControl
from arena.match.record import MatchAborted, MatchRecord
from arena.match.runner import run_match
from arena.outcomes import FaultKind, Termination
from arena.store import Store
from arena.submissions import store_submission

CHECKS = [
    ("connects with its token and stays connected to the end", {FaultKind.DISCONNECT, FaultKind.CRASH}),
    ("answers every decision in time", {FaultKind.TIMEOUT}),
    ("answers only legal actions", {FaultKind.ILLEGAL_ACTION}),
    ("sends only well-formed arena.v1 messages", {FaultKind.PROTOCOL_ERROR}),
]
LIMITS = LaunchLimits()
LIMITS_CHECK = (
    f"stays within its sandbox's limits ({LIMITS.memory_mb} MB memory, {LIMITS.cpu_seconds} s CPU per process, "
    f"{LIMITS.processes} processes and threads, {LIMITS.tmp_mb} MB /tmp, "
    f"{LIMITS.output_cap_bytes // 2**20} MB of output)",
    {FaultKind.CRASH},
)
# What a crash reason says when a limit ended the bot (launcher.py's words, and the kernel's).
LIMIT_WORDS = ("limit", "SIGXCPU", "SIGXFSZ", "MemoryError", "No space left", "Resource temporarily unavailable")
SUBMISSION = "submission"
NO_FORFEIT_STRIKES = 1_000_000


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("check-bot",
                                   help="play a few matches against the random bot and report protocol problems")
    parser.add_argument("--token", help="the bot's token (a registered bot that dials in)")
    parser.add_argument("--submission", metavar="PATH",
                        help="check a submission instead: its folder or .tar.gz/.zip, "
                             "run sandboxed as the arena would launch it")
    parser.add_argument("--command", help="with --submission: the command that starts the bot, run in FOLDER")
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
    info = game_info(args.game)
    players = args.players or info.min_players
    if not info.min_players <= players <= info.max_players:
        raise UsageError(f"{info.id} is played by {info.min_players} to {info.max_players} players, not {players}")
    if args.matches < 1:
        raise UsageError(f"--matches must be at least 1, not {args.matches}")
    if args.submission is not None:
        return check_submission(args, info.id, players)
    if args.token is None:
        raise UsageError('give --token TOKEN (a registered bot) or --submission FOLDER --command "..." (a submission)')
    store = Store(args.db)
    bot = store.bot_by_token(args.token)
    if bot is None:
        raise UsageError("no registered bot has this token; register one with `arena bot register NAME`")
    if why := bot.refusal():
        raise UsageError(f"{why}; it cannot be checked")
    with gateway_client(args.gateway, store) as client:
        print(f"checking bot {bot.name!r} on {info.id}: {args.matches} matches against the random bot "
              f"(waiting up to {args.connect_timeout:g} s for it to connect to {client.address})", flush=True)
        played = play_matches(client, bot.name, info.id, players, args)
    if played is None:
        return 1
    lines, ok = report(played)
    print("\n".join(lines))
    return 0 if ok else 1


def check_submission(args: argparse.Namespace, game_id: str, players: int) -> int:
    """Launch the submission in its sandbox through a gateway of this process, then report."""
    key = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory(prefix="arena-check-") as scratch:
        folder = submission_folder(args.submission, args.command, Path(scratch) / "submissions")
        store = Store(f"sqlite:///{scratch}/check.db")
        store.register_bot(SUBMISSION, command=args.command, files=str(folder))
        with (GatewayThread(store, host_key=key, limits=LIMITS) as gateway,
              GatewayClient(gateway.address, key=key, tls=False) as client):  # its own loopback gateway: plaintext
            print(f"checking the submission in {folder} on {game_id}: {args.matches} matches against the random bot, "
                  f"launched in its sandbox as `{args.command}` "
                  f"(waiting up to {args.connect_timeout:g} s for it to connect)",
                  flush=True)
            played = play_matches(client, SUBMISSION, game_id, players, args)
    if played is None:
        return 1
    lines, ok = report(played, [*CHECKS, LIMITS_CHECK])
    print("\n".join(lines))
    return 0 if ok else 1


def submission_folder(submission: str, command: str | None, unpack_into: Path) -> Path:
    """The submission's folder, checked as the sandbox will need it; UsageError with the fix. An
    archive is unpacked into `unpack_into` exactly as `arena bot submit` stores it (same checks)."""
    if not command or not command.strip():
        raise UsageError('--submission needs --command "..." too: the command line that starts the bot in its folder')
    folder = Path(submission).resolve()
    if folder.is_file():
        folder = store_submission(folder, unpack_into).folder
    elif not folder.is_dir():
        raise UsageError(f"--submission {submission}: not a folder or an archive; give the folder (or the "
                         ".tar.gz / .zip) holding the bot's files")
    try:
        check_files(folder)
        bwrap_path()
    except SandboxUnavailable as error:
        raise UsageError(str(error)) from None
    return folder


def play_matches(client: GatewayClient, name: str, game_id: str, players: int,
                 args: argparse.Namespace) -> list[tuple[int, MatchRecord]] | None:
    """The bot's matches against the random bot, one line each; None when one was aborted."""
    control = TimeControl(decision_ms=args.decision_ms, bank_ms=args.bank_ms)
    played: list[tuple[int, MatchRecord]] = []
    for index in range(args.matches):
        seat = index % players
        seats = ["random"] * players
        seats[seat] = name
        try:
            record = run_match(game_id, seats, args.seed + index, gateway=client, time_control=control,
                               max_strikes=NO_FORFEIT_STRIKES, connect_timeout_ms=int(args.connect_timeout * 1000))
        except MatchAborted as aborted:
            print(f"match {index + 1}: aborted by an arena-side error (not the bot's fault): {aborted}")
            return None
        played.append((seat, record))
        print(match_line(index, seat, record), flush=True)
        if record.seats[seat].termination in (Termination.DISCONNECT, Termination.CRASH):
            print("the bot is gone (see below); not playing the remaining matches")
            print(last_output(record.seats[seat].log))
            break
    return played


def last_output(log: str | None, lines: int = 20) -> str:
    """The end of the bot's log of its last match (this is the author's own run: the output is
    theirs to see; a crash reason, which is public in tournaments, never carries it)."""
    if log is None:
        return "its output: not captured (only a bot the arena launches has its output kept)"
    tail = log.rstrip().splitlines()[-lines:]
    return "its last output:\n" + ("\n".join(f"  | {line}" for line in tail) if tail else "  (none)")


def match_line(index: int, seat: int, record: MatchRecord) -> str:
    """One match in a line: the bot's answers only (a faulty decision is no answer: a bot that left
    waited out its reconnection grace, which is no answer time), and where it stopped playing."""
    outcome = record.seats[seat]
    faulty = {fault.step for fault in outcome.faults}
    left = max(faulty) if outcome.termination is not Termination.NORMAL and faulty else None
    times = [s.elapsed_ms[seat] for n, s in enumerate(record.steps)
             if s.elapsed_ms and seat in s.elapsed_ms and n not in faulty and (left is None or n < left)]
    slowest = f", slowest answer {max(times):.1f} ms" if times else ""
    rank = record.ranks[seat] if record.ranks else "-"
    wrong = len(faulty - {left})
    wrong_text = f", {wrong} faulty (see below)" if wrong else ""
    gone = (f"; {outcome.termination.value} at step {left}, the random bot played the rest"
            if left is not None else "")
    return (f"match {index + 1}: seat {seat}, rank {rank} of {record.num_players}, "
            f"{len(times)} decisions answered{slowest}{wrong_text}{gone}")


def report(played: Sequence[tuple[int, MatchRecord]],
           checks: Sequence[tuple[str, set[FaultKind]]] = CHECKS) -> tuple[list[str], bool]:
    """One line per check (PASS/FAIL) with the first few faults in words; and whether all passed."""
    lines, ok = [], True
    for title, kinds in checks:
        faults = [(n, f) for n, (seat, record) in enumerate(played, 1)
                  for f in record.seats[seat].faults if f.kind in kinds]
        if title == LIMITS_CHECK[0]:  # the words are in the reason, or in what the bot printed (its log)
            logs = {n: record.seats[seat].log or "" for n, (seat, record) in enumerate(played, 1)}
            faults = [(n, f) for n, f in faults if any(word in f.reason + logs[n] for word in LIMIT_WORDS)]
        ok = ok and not faults
        lines.append(f"{'PASS' if not faults else 'FAIL'}  {title}")
        for match_number, fault in faults[:3]:
            lines.append(f"      match {match_number}, step {fault.step}: {fault.reason}")
        if len(faults) > 3:
            lines.append(f"      ... and {len(faults) - 3} more")
    lines.append("the bot follows the protocol" if ok else "the bot has protocol problems (see FAIL above)")
    return lines, ok
