"""`arena bot submit NAME PATH --command ...` and `arena bot versions NAME`: submitted versions.

A submission stores the files content-addressed and read-only (arena/submissions.py) in the
submissions folder (`--submissions`, `$ARENA_SUBMISSIONS`, default ~/.local/share/arena/submissions)
and makes them version N+1 of the bot: `NAME@N+1`, which `NAME` then stands for in new matches
and tournaments. The database keeps the folder's absolute path, so the gateway finds the files
wherever it runs from. docs/submitting.md tells the whole story.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from arena.cli.leaderboard import format_interval
from arena.errors import UsageError
from arena.store import BotVersion, Store, check_bot_name
from arena.store import dashboard_queries as dq
from arena.submissions import StoredFiles, default_root, store_submission
from bots import bot_names, is_builtin

DB_HELP = "database URL (default $ARENA_DB or sqlite:///arena.db)"


def register_actions(commands: Any) -> None:
    """Add `submit` and `versions` to the `arena bot` actions."""
    submit = commands.add_parser("submit", help="store a folder or archive as the bot's next version (NAME@N)")
    submit.add_argument("name", help="the bot (registered now if it is new: its token is printed once)")
    submit.add_argument("path", type=Path, help="a folder, or a .tar.gz / .tgz / .zip archive of one")
    submit.add_argument("--command", required=True, help="command line that starts the bot, run in its folder")
    submit.add_argument("--submissions", type=Path, help="folder of stored submissions "
                        "(default $ARENA_SUBMISSIONS or ~/.local/share/arena/submissions)")
    submit.add_argument("--db", help=DB_HELP)
    submit.set_defaults(handler=submit_command)
    versions = commands.add_parser("versions", help="list a bot's versions with hash, date and ratings")
    versions.add_argument("name")
    versions.add_argument("--db", help=DB_HELP)
    versions.add_argument("--json", action="store_true", help="print the versions as JSON")
    versions.set_defaults(handler=versions_command)


def submit_command(args: argparse.Namespace) -> int:
    if is_builtin(args.name):
        raise UsageError(f"{args.name!r} is the name of a built-in bot ({', '.join(bot_names())}); choose another name")
    if not args.command.strip():
        raise UsageError("--command is empty: give the command line that starts the bot in its folder, "
                         "e.g. 'node bot.js'")
    check_bot_name(args.name)
    store = Store(args.db)
    stored = store_submission(args.path, args.submissions or default_root())  # refused: nothing registered
    token = store.register_bot(args.name) if store.bot(args.name) is None else None
    version = store.add_version(args.name, args.command, str(stored.folder), stored.sha256)
    print_submitted(version, stored, token)
    return 0


def print_submitted(version: BotVersion, stored: StoredFiles, token: str | None) -> None:
    if token is not None:
        print(f"registered bot {version.bot!r}. Its token (shown only this once; the arena keeps only a hash):")
        print(token)
    print(f"stored {version.entrant}: sha256 {stored.sha256[:12]}, files in {stored.folder} (read-only)")
    print(f"`{version.bot}` now plays {version.entrant} in new matches and tournaments; "
          + ("earlier versions stay playable as NAME@N." if version.number > 1 else "pin it with NAME@N."))


def versions_command(args: argparse.Namespace) -> int:
    store = Store(args.db, reader=True)
    if store.bot(args.name) is None:
        registered = ", ".join(b.name for b in store.bots()) or "none"
        raise UsageError(f"no bot named {args.name!r} is registered; registered bots: {registered}")
    versions = [(v, dq.entrant_ratings(store, v.entrant)) for v in store.versions(args.name)]
    if args.json:
        print(json.dumps([version_json(v, ratings) for v, ratings in versions], indent=2))
    elif not versions:
        print(f"{args.name} has no versions: it dials in with its token (submit one with `arena bot submit`)")
    else:
        print(format_versions(args.name, versions))
    return 0


def version_json(version: BotVersion, ratings: list[Any]) -> dict[str, Any]:
    """A version as plain JSON, with its rating in every ruleset it played."""
    return {
        "bot": version.bot, "version": version.number, "entrant": version.entrant, "sha256": version.sha256,
        "submitted_at": version.created_at.isoformat(), "command": version.command, "files": version.files,
        "ratings": [{"ruleset": r.ruleset, "place": r.place, "elo": r.elo, "games": r.games}
                    for r in ratings],
    }


def format_versions(name: str, versions: list[tuple[BotVersion, list[Any]]]) -> str:
    latest = versions[-1][0].entrant
    lines = [f"{name}: {len(versions)} version(s); `{name}` plays the latest, {latest}",
             f"  {'version':<{len(latest) + 2}} {'sha256':<12}  {'submitted':<16}  ratings"]
    for version, ratings in versions:
        rated = "; ".join(f"{r.ruleset}: {r.elo:.0f} ({format_interval(r.low, r.high).strip()}), {r.games} games"
                          for r in ratings) or "not rated yet"
        lines.append(f"  {version.entrant:<{len(latest) + 2}} {version.sha256[:12] or '(command)':<12}  "
                     f"{version.created_at:%Y-%m-%d %H:%M}  {rated}")
    lines.append(f"  command of {latest}: {versions[-1][0].command}")
    return "\n".join(lines)
