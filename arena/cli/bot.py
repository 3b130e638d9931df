"""`arena bot register|list|token|disable|enable|remove`: the bots that may dial in.

Changes take effect at once for new streams (the gateway checks the database on every one). The
gateway at --gateway is asked to close the streams they revoke at once; any gateway does it
within a second by itself.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.cli.gateway_access import close_revoked_streams, split_address
from arena.errors import UsageError
from arena.gateway.client import DEFAULT_ADDRESS
from arena.store import Store
from bots import bot_names, is_builtin

DB_HELP = "database URL (default $ARENA_DB or sqlite:///arena.db)"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bot", help="register, list, rotate the token of, disable, enable, remove bots")
    commands = parser.add_subparsers(dest="bot_command", required=True, metavar="ACTION")
    add = commands.add_parser("register", help="register a bot and print its token (shown once)")
    add.add_argument("name", help="a letter, then letters, digits, '_', '.' or '-'")
    add.add_argument("--command", help="command line the arena runs to launch the bot when a match needs it")
    add.add_argument("--files", help="the launched bot's own folder: read-only at /bot, its working folder, in its sandbox")
    add.add_argument("--db", help=DB_HELP)
    add.set_defaults(handler=register_command)
    listing = commands.add_parser("list", help="list the registered bots")
    listing.add_argument("--db", help=DB_HELP)
    listing.set_defaults(handler=list_command)
    token = _on_one_bot(commands, "token", rotate_command, "--rotate: a new token; the old one stops working")
    token.add_argument("--rotate", action="store_true", help="issue a new token and print it (shown once)")
    for revoking in (token, _on_one_bot(commands, "disable", disable_command, "stop a bot from connecting or playing"),
                     _on_one_bot(commands, "remove", remove_command, "remove a bot; its match history and name stay")):
        revoking.add_argument("--gateway", default=DEFAULT_ADDRESS,
                              help=f"the running gateway to tell at once (default {DEFAULT_ADDRESS})")
    _on_one_bot(commands, "enable", enable_command, "let a disabled bot connect and play again")


def _on_one_bot(commands: Any, action: str, handler: Any, about: str) -> argparse.ArgumentParser:
    parser = commands.add_parser(action, help=about)
    parser.add_argument("name", help="the registered bot's name")
    parser.add_argument("--db", help=DB_HELP)
    parser.set_defaults(handler=handler)
    return parser


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
    bots = Store(args.db, reader=True).bots()
    if not bots:
        print("no registered bots (add one with `arena bot register NAME`)")
    for bot in bots:
        launch = f"  launched by: {bot.command}" if bot.command else ""
        launch += f" (in {bot.files})" if bot.files else ""
        state = " (disabled)" if bot.disabled else ""
        print(f"{bot.name:<24} registered {bot.created_at:%Y-%m-%d %H:%M}{state}{launch}")
    return 0


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
