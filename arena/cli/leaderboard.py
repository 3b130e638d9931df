"""`arena leaderboard [--game G] [--json]`: the stored Elo ratings, one table per game ruleset.

Ratings are per bot version (`mybot@1`, `mybot@2`); the table shows each bot's latest rated
version, and every version with --all-versions.

A ruleset with rated matches but no stored ratings (a database from before a change in how
ratings are computed) is rated again first, as is every shown ruleset with --rerate; in a database
it may not write (a read-only file or folder) it rates in memory and stores nothing."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from arena.errors import UsageError
from arena.rating import rate_matches, rerate
from arena.standings import interval_end, row_json
from arena.store import LeaderboardRow, RatingEntry, Store
from arena.store.records import PROVISIONAL_HALF_WIDTH
from arena.tournament.entrants import latest_versions_only
from engine import registry


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("leaderboard", help="show Elo ratings per game and ruleset")
    parser.add_argument("--game", help="game id (default: every game with ratings)")
    parser.add_argument("--ruleset", help="one ruleset only, e.g. riviera@1 (default: all of the game's)")
    parser.add_argument("--db", help="database URL (default: $ARENA_DB or sqlite:///arena.db)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--rerate", action="store_true", help="recompute the ratings from the stored matches first")
    parser.add_argument("--all-versions", action="store_true",
                        help="every rated version of each bot (default: its latest rated version only)")
    parser.set_defaults(handler=leaderboard_command)


def leaderboard_command(args: argparse.Namespace) -> int:
    if args.game is not None and args.game not in registry.GAMES:
        raise UsageError(f"unknown game {args.game!r}; valid games: {', '.join(registry.game_ids())}")
    store = Store(args.db, reader=True)
    rulesets = [args.ruleset] if args.ruleset else store.rulesets(args.game)
    boards = {ruleset: ratings(store, ruleset, args.rerate) for ruleset in rulesets}
    shown = {ruleset: latest_only(rows, args.all_versions) for ruleset, (rows, _) in boards.items()}
    if args.json:
        print(json.dumps({r: [row_json(row) for row in rows] for r, rows in shown.items()}, indent=2))
        return 0
    if not any(shown.values()):
        where = f" for {args.ruleset or args.game}" if (args.ruleset or args.game) else ""
        print(f"no ratings{where} in {store.url} yet; play a tournament first (`arena tournament run ...`)")
        return 0
    for ruleset, rows in shown.items():
        every, matches = boards[ruleset]
        print(format_leaderboard(ruleset, rows, matches, hidden=len(every) - len(rows)))
        print()
    return 0


def shown_rows(store: Store, ruleset: str, all_versions: bool = False) -> list[LeaderboardRow]:
    """A ruleset's stored leaderboard: each bot's latest rated version, or every version."""
    return latest_only(store.leaderboard(ruleset), all_versions)


def latest_only(rows: list[LeaderboardRow], all_versions: bool) -> list[LeaderboardRow]:
    """Every row with `all_versions`, else only each bot's latest rated version."""
    return rows if all_versions else latest_versions_only(rows)


def ratings(store: Store, ruleset: str, rerate_first: bool) -> tuple[list[LeaderboardRow], int]:
    """The ruleset's leaderboard, rated again first when asked or when none is stored, and the
    number of matches it rates. A database this process may not write is rated in memory: shown,
    not stored."""
    stored = [] if rerate_first else store.leaderboard(ruleset)
    if stored:
        return stored, store.rated_count(ruleset)
    if not store.read_only:
        rerate(store, ruleset)
        return store.leaderboard(ruleset), store.rated_count(ruleset)
    print(f"arena: {ruleset}: ratings computed from the matches, not stored ({store.url} is read-only)",
          file=sys.stderr)
    matches = store.rated_matches(ruleset)
    return leaderboard_rows(ruleset, rate_matches(matches), store.suspended_versions()), len(matches)


def leaderboard_rows(ruleset: str, entries: Sequence[RatingEntry],
                     suspended: dict[str, str] | None = None) -> list[LeaderboardRow]:
    """A rating table computed here (not read from the store) as leaderboard rows, best first,
    with the suspended versions' reasons."""
    game_id = ruleset.split("@", 1)[0]
    ranked = sorted(entries, key=lambda e: (-e.elo, e.entrant))
    return [LeaderboardRow(place, e.entrant, game_id, ruleset, e.elo, e.low, e.high, e.games, e.wins,
                           e.strikes, e.forfeits, (suspended or {}).get(e.entrant))
            for place, e in enumerate(ranked, start=1)]


def format_interval(low: float | None, high: float | None) -> str:
    """'1788 – 1934' (the 95 % interval), aligned for a table."""
    return f"{interval_end(low):>5} – {interval_end(high):<5}"


COUNTS_LEGEND = ("strikes: faulty decisions (timeouts, illegal or malformed answers), each replaced by a "
                 "random legal action; forfeits: matches the bot lost to a fault (max strikes, disconnect, crash)")


def format_leaderboard(title: str, rows: Sequence[LeaderboardRow], matches: int, hidden: int = 0) -> str:
    """A readable table under `title` (a ruleset): place, bot, Elo, its 95 % interval, games, win
    rate, strikes, forfeits; a line that says what the last two count (and how many earlier
    versions of bots it leaves out)."""
    width = max([len("bot"), *(len(r.entrant) for r in rows)])
    lines = [
        f"{title}: {len(rows)} bots, {matches} rated matches",
        f"  {'#':>3}  {'bot':<{width}}  {'Elo':>6}  {'95% interval':<13}  {'games':>6}  {'win%':>5}  "
        f"{'strikes':>7}  {'forfeits':>8}",
    ]
    for row in rows:
        lines.append(
            f"  {row.place:>3}  {row.entrant:<{width}}  {row.elo:6.0f}  {format_interval(row.low, row.high)}  "
            f"{row.games:>6}  {100 * row.win_rate:5.1f}  {row.strikes:>7}  {row.forfeits:>8}"
            + ("  provisional" if row.provisional else "") + (f"  suspended: {row.suspended}" if row.suspended else "")
        )
    lines.append(f"  ({COUNTS_LEGEND})")
    if any(row.provisional for row in rows):
        lines.append(f"  (provisional: its 95 % interval is still wider than ±{PROVISIONAL_HALF_WIDTH:.0f} Elo)")
    if any(row.suspended for row in rows):
        lines.append("  (suspended: the ladder no longer seats that version, for the reason given; "
                     "its rating stays listed)")
    if hidden:
        lines.append(f"  ({hidden} earlier version(s) of these bots not shown: --all-versions)")
    return "\n".join(lines)
