"""`arena bot register NAME [--command ...]` and `arena bot list`: the bots that may dial in.

`arena bot submit` and `arena bot versions` (submitted versions) are in arena/cli/versions.py;
`arena bot token --rotate`, `disable`, `enable` and `remove` in arena/cli/bot_access.py."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.cli import bot_access, versions
from arena.errors import UsageError
from arena.store import Store
from bots import bot_names, is_builtin


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bot", help="register, submit, list, disable or remove bots; rotate tokens")
    commands = parser.add_subparsers(dest="bot_command", required=True, metavar="ACTION")
    add = commands.add_parser("register", help="register a bot and print its token (shown once)")
    add.add_argument("name", help="a letter, then letters, digits, '_', '.' or '-'")
    add.add_argument("--command", help="command line the arena runs to launch the bot when a match needs it")
    add.add_argument("--files", help="the launched bot's own folder: read-only at /bot, its working folder, in its sandbox")
    add.add_argument("--db", help="database URL (default $ARENA_DB or sqlite:///arena.db)")
    add.set_defaults(handler=register_command)
    listing = commands.add_parser("list", help="list the registered bots")
    listing.add_argument("--db", help="database URL (default $ARENA_DB or sqlite:///arena.db)")
    listing.set_defaults(handler=list_command)
    versions.register_actions(commands)
    bot_access.register_actions(commands)


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
