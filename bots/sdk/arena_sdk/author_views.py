"""`arena-bot`'s views of an author's own world: `bots`, `matches NAME` and `replay ID`.

Each reads the authors' service (ListBots, ListMatches, ReadReplay) and prints; author_cli.py
holds the command line and the calls that change things. A bot that is not yours reads as one
that does not exist (NOT_FOUND): the arena tells an author nothing of another's bots.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from arena_sdk.v1 import authors_pb2 as pb

MAX_PAGE = 200  # the most matches one page may hold (the service's bound)


class CliError(Exception):
    """Bad input or a refused call: one line for the user."""


def add_actions(actions: Any, action: Any) -> None:
    """The reading actions' parsers (`action(actions, name, about)` adds one taking NAME)."""
    actions.add_parser("bots", help="list your bots: state, versions, rating and rank per ruleset")
    matches = action(actions, "matches", "list a bot's stored matches, newest first, with filters")
    matches.add_argument("--lost", action="store_true", help="only matches it lost (ranked below first)")
    matches.add_argument("--crashed", action="store_true", help="only matches where it crashed")
    matches.add_argument("--opponent", default="", metavar="BOT", help="only matches against BOT (NAME or NAME@N)")
    matches.add_argument("--ruleset", default="", metavar="R", help="only ruleset R (e.g. riviera/4p)")
    matches.add_argument("--since", default="", metavar="TIME", help="only matches finished at or after TIME "
                         "(ISO 8601, UTC unless it names a zone: 2026-12-04 or 2026-12-04T18:30)")
    matches.add_argument("--until", default="", metavar="TIME", help="only matches finished before TIME")
    matches.add_argument("--limit", type=int, default=20, help=f"matches per page, 1 to {MAX_PAGE} (default 20)")
    matches.add_argument("--before", type=int, default=0, metavar="ID",
                         help="the page after the one that ended at match ID (the last line names it)")
    replay = action(actions, "replay", "print a stored match as your bot's seat saw it (JSON), "
                    "with what it printed at each decision")
    replay.add_argument("match", type=int, metavar="ID", help="the match id (`arena-bot matches NAME` lists them)")
    replay.add_argument("--seat", type=int, default=-1, help="which of its seats, when it held several")
    replay.add_argument("--output", "-o", metavar="FILE", help="write the JSON to FILE instead of printing it")


def bots_command(call: Any, args: argparse.Namespace) -> int:
    bots = call("ListBots", pb.ListBotsRequest()).bots
    if not bots:
        print("you have no bots yet: `arena-bot submit NAME FOLDER --command ...` stores the first")
    for bot in bots:
        print(format_bot(bot))
    return 0


def format_bot(bot: pb.AuthorBot) -> str:
    """`NAME  state`, then one line per version: its state and per ruleset its rating and rank."""
    versions = list(bot.versions)
    lines = [f"{bot.name}  {'disabled' if bot.disabled else 'enabled'}"
             + ("" if versions else ": dials in with its token (no submitted version)")]
    for version in versions:
        lines.append(f"  {version.bot}@{version.number}  {version_state(version, bot.disabled)}")
        for rating in version.ratings:
            mark = ", provisional" if rating.provisional else ""
            lines.append(f"    {rating.ruleset}: rank {rating.place}, Elo {rating.elo:.0f}{mark}, {rating.games} games")
    return "\n".join(lines)


def version_state(version: pb.AuthorBotVersion, disabled: bool) -> str:
    """disabled, suspended (why), provisional (a wide interval), active, or not rated yet."""
    if disabled:
        return "disabled"
    if version.suspended:
        return f"suspended: {version.suspended}"
    if not version.ratings:
        return "active, not rated yet"
    return "provisional" if any(r.provisional for r in version.ratings) else "active"


def matches_command(call: Any, args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= MAX_PAGE:
        raise CliError(f"--limit {args.limit} is out of range: give 1 to {MAX_PAGE}")
    reply = call("ListMatches", pb.ListMatchesRequest(
        bot=args.name, lost=args.lost, crashed=args.crashed, opponent=args.opponent, ruleset=args.ruleset,
        since=args.since, until=args.until, before_id=args.before, limit=args.limit))
    if not reply.matches:
        print(f"no stored match of {args.name} passes these filters")
    for match in reply.matches:
        print(format_match(match))
    if reply.next_before_id:
        print(f"more: arena-bot matches {args.name} --before {reply.next_before_id} (and the same filters)")
    return 0


def format_match(match: pb.AuthorMatch) -> str:
    """`match 12  lost  riviera/4p  2026-12-04 18:30  vs a@1 (1st), b (3rd)  crash: why  <link>`."""
    mine = [s for s in match.seats if s.mine]
    others = ", ".join(f"{s.entrant} ({ordinal(s.rank)})" for s in match.seats if not s.mine)
    ending = "; ".join(f"seat {s.seat} {s.termination}" + (f": {s.reason}" if s.reason else "")
                       for s in mine if s.termination != "normal") or "normal"
    when = datetime.fromisoformat(match.finished_at)
    return (f"match {match.match_id}  {match.result:<7} {match.ruleset}  {when:%Y-%m-%d %H:%M}  "
            f"vs {others or 'nobody'}  {ending}  {match.link or f'(id {match.match_id})'}")


def ordinal(rank: int) -> str:
    if rank <= 0:
        return "unranked"
    return f"{rank}{'th' if 10 <= rank % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(rank % 10, 'th')}"


def replay_command(call: Any, args: argparse.Namespace) -> int:
    reply = call("ReadReplay", pb.ReadReplayRequest(bot=args.name, match_id=args.match, seat=args.seat))
    text = json.dumps(json.loads(reply.replay_json), indent=1, ensure_ascii=False)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        replay = json.loads(reply.replay_json)
        print(f"wrote match {args.match} as seat {replay['seat']} saw it ({len(replay['decisions'])} decisions) "
              f"to {args.output}", file=sys.stderr)
    else:
        print(text)
    return 0
