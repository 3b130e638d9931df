"""`arena bot ...`: the registered bots.

- `register NAME [--command ...]` and `list`: the bots that may dial in (or be launched);
- `submit NAME PATH --command ...` and `versions NAME`: submitted versions. A submission stores the
  files content-addressed and read-only (arena/submissions.py) in the submissions folder
  (`--submissions`, `$ARENA_SUBMISSIONS`, default ~/.local/share/arena/submissions) and makes them
  version N+1 of the bot: `NAME@N+1`, which `NAME` then stands for in new matches and tournaments.
  The database keeps the folder's absolute path, so the gateway finds the files wherever it runs
  from. docs/submitting.md tells the whole story;
- `logs NAME --match ID`: what the launched bot printed during stored match ID, per seat it played
  (private: the operator's and the bot author's; docs/submitting.md "Your bot's log");
- `token NAME --rotate`, `disable|enable|remove NAME`: who may play. Changes take effect at once
  for new streams (the gateway checks the database on every one). The gateway at --gateway is asked
  to close the streams they revoke at once; any gateway does it within a second by itself
  (docs/protocol.md, "Tokens").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from arena.cli import author
from arena.cli.leaderboard import format_interval
from arena.errors import UsageError
from arena.gateway_access import close_revoked_streams, split_address
from arena.link.client import DEFAULT_ADDRESS
from arena.store import BotLog, BotVersion, Store, check_bot_name
from arena.store import dashboard_queries as dq
from arena.submissions import StoredFiles, default_root, store_submission
from bots import bot_names, is_builtin


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bot", help="register, submit, list, disable or remove bots; rotate tokens")
    commands = parser.add_subparsers(dest="bot_command", required=True, metavar="ACTION")
    add = commands.add_parser("register", help="register a bot and print its token (shown once)")
    add.add_argument("name", help="a letter, then letters, digits, '_', '.' or '-'")
    add.add_argument("--command", help="command line the arena runs to launch the bot when a match needs it")
    add.add_argument("--files",
                     help="the launched bot's own folder: read-only at /bot, its working folder, in its sandbox")
    add.add_argument("--db", help="database URL (default $ARENA_DB or sqlite:///arena.db)")
    add.set_defaults(handler=register_command)
    listing = commands.add_parser("list", help="list the registered bots")
    listing.add_argument("--db", help="database URL (default $ARENA_DB or sqlite:///arena.db)")
    listing.set_defaults(handler=list_command)
    register_version_actions(commands)
    register_access_actions(commands)
    author.register_assign(commands)
    logs = commands.add_parser("logs", help="print what a launched bot printed during one stored match")
    logs.add_argument("name", help="the registered bot's name")
    logs.add_argument("--match", type=int, required=True, metavar="ID",
                      help="the stored match's id (the dashboard's /matches/ID)")
    logs.add_argument("--db", help="database URL (default $ARENA_DB or sqlite:///arena.db)")
    logs.set_defaults(handler=logs_command)


def register_command(args: argparse.Namespace) -> int:
    if is_builtin(args.name):
        raise UsageError(f"{args.name!r} is the name of a built-in bot ({', '.join(bot_names())}); choose another name")
    if args.command is not None and not args.command.strip():
        raise UsageError("--command is empty: give the command line that starts the bot, or leave it out")
    files = launch_files(args.files, args.command)
    token = Store(args.db).register_bot(args.name, args.command, files)
    print(f"registered bot {args.name!r}. Its token (shown only this once; the arena keeps only a hash):")
    print(token)
    if args.command:
        print("The arena launches it when a match needs it, with ARENA_ADDRESS and ARENA_TOKEN in its environment.")
    else:
        print("Run the bot with this token against the gateway (`arena serve`), e.g.:")
        print(f"  node bots/examples/node/bot.js --token {token}")
    return 0


def launch_files(files: str | None, command: str | None) -> str | None:
    """The absolute folder of a launched bot's files; it must exist and go with a --command."""
    if files is None:
        return None
    if command is None:
        raise UsageError("--files goes with --command: the folder the launched bot's command runs in")
    folder = Path(files).resolve()
    if not folder.is_dir():
        raise UsageError(f"--files {files}: no such folder; give the folder holding the bot's program")
    return str(folder)


def list_command(args: argparse.Namespace) -> int:
    store = Store(args.db, reader=True)
    bots = store.bots()
    if not bots:
        print("no registered bots (add one with `arena bot register NAME` or `arena bot submit`)")
    for bot in bots:
        latest = store.version(bot.name)
        launch = f"  launched by: {bot.command}" if bot.command else ""
        plays = f"  plays {latest.entrant}" if latest else ""
        launch += f" (in {bot.files})" if bot.files else ""
        state = " (disabled)" if bot.disabled else ""
        print(f"{bot.name:<24} registered {bot.created_at:%Y-%m-%d %H:%M}{state}{plays}{launch}")
    return 0


DB_HELP = "database URL (default $ARENA_DB or sqlite:///arena.db)"


def register_version_actions(commands: Any) -> None:
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
                          + (", provisional" if r.provisional else "") for r in ratings) or "not rated yet"
        suspended = f"; SUSPENDED: {version.suspended}" if version.suspended else ""
        lines.append(f"  {version.entrant:<{len(latest) + 2}} {version.sha256[:12] or '(command)':<12}  "
                     f"{version.created_at:%Y-%m-%d %H:%M}  {rated}{suspended}")
    lines += [f"  {version.entrant} is held back: {version.hold}" for version, _ in versions if version.hold]
    lines.append(f"  command of {latest}: {versions[-1][0].command}")
    return "\n".join(lines)




def logs_command(args: argparse.Namespace) -> int:
    """Each seat's log of the bot in the match: a header line, then the text; or why there is none."""
    check_bot_name(args.name)
    store = Store(args.db, reader=True)
    match = dq.match_summary(store, args.match)
    if match is None:
        raise UsageError(f"no stored match {args.match} in {store.url}; a match's id is the one the dashboard "
                         "shows at /matches/ID")
    logs = store.bot_logs(args.match, args.name)
    if not logs:
        print(f"no log kept for bot {args.name} in match {args.match}: {_why_no_log(args.name, match)}")
    for entry in logs:
        print(format_log_header(entry))
        print(entry.text if entry.text.strip() else "(no output)")
    return 0


def format_log_header(entry: BotLog) -> str:
    version = f"{entry.bot}@{entry.version}" if entry.version is not None else "unversioned"
    reason = f": {entry.reason}" if entry.reason else ""
    return (f"== match {entry.match_id}, seat {entry.seat}, {version}, termination {entry.termination}{reason} "
            f"(the last {len(entry.text.encode())} bytes it printed while the match was open)")


def _why_no_log(name: str, match: Any) -> str:
    seated = [seat.entrant for seat in match.seats]
    if not any(seat.spec.partition("@")[0] == name for seat in match.seats):
        return f"it did not play in it (its seats: {', '.join(seated)})"
    if is_builtin(name):
        return "it is a built-in bot, played inside the arena: only launched bots leave a log"
    return ("the arena did not launch it for this match (a bot that dials in keeps its own output), "
            "or the match was stored before bot logs were kept")


def register_access_actions(commands: Any) -> None:
    """Add token, disable, enable and remove to `arena bot`'s sub-commands."""
    token = _on_one_bot(commands, "token", rotate_command, "--rotate: a new token; the old one stops working")
    token.add_argument("--rotate", action="store_true", help="issue a new token and print it (shown once)")
    for revoking in (token, _on_one_bot(commands, "disable", disable_command, "stop a bot from connecting or playing"),
                     _on_one_bot(commands, "remove", remove_command, "remove a bot; its match history and name stay")):
        revoking.add_argument("--gateway", default=DEFAULT_ADDRESS,
                              help=f"the running gateway to tell at once (default {DEFAULT_ADDRESS})")
    _on_one_bot(commands, "enable", enable_command, "let a disabled bot connect and play again")


def _on_one_bot(commands: Any, action: str, handler: Any, about: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(action, help=about)
    parser.add_argument("name", help="the registered bot's name")
    parser.add_argument("--db", help=DB_HELP)
    parser.set_defaults(handler=handler)
    return parser


def rotate_command(args: argparse.Namespace) -> int:
    if not args.rotate:
        raise UsageError("tokens are kept only as hashes and cannot be shown again; "
                         f"`arena bot token {args.name} --rotate` issues a new one")
    split_address(args.gateway)  # a bad address is refused before anything changes
    token = Store(args.db).rotate_token(args.name)
    print(f"new token for bot {args.name!r} (shown only this once; the old token no longer works):")
    print(token)
    print(f"Streams opened with the old token are closed: {close_revoked_streams(args.gateway)}.")
    return 0


def disable_command(args: argparse.Namespace) -> int:
    split_address(args.gateway)
    Store(args.db).set_disabled(args.name, True)
    print(f"disabled bot {args.name!r}: it may not connect or be seated; `arena bot enable {args.name}` lifts it")
    print(f"Its open stream is closed: {close_revoked_streams(args.gateway)}.")
    return 0


def enable_command(args: argparse.Namespace) -> int:
    Store(args.db).set_disabled(args.name, False)
    print(f"enabled bot {args.name!r}: it may connect and play again with its token")
    return 0


def remove_command(args: argparse.Namespace) -> int:
    split_address(args.gateway)
    Store(args.db).remove_bot(args.name)
    print(f"removed bot {args.name!r}: its token no longer works; its match history stays, under its name, "
          "which is not registered again")
    print(f"Its open stream is closed: {close_revoked_streams(args.gateway)}.")
    return 0
