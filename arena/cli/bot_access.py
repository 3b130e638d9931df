"""`arena bot token NAME --rotate`, `arena bot disable|enable|remove NAME`: who may play.

Changes take effect at once for new streams (the gateway checks the database on every one). The
gateway at --gateway is asked to close the streams they revoke at once; any gateway does it
within a second by itself (docs/protocol.md, "Tokens").
"""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli.gateway_access import close_revoked_streams, split_address
from arena.errors import UsageError
from arena.gateway.client import DEFAULT_ADDRESS
from arena.store import Store

DB_HELP = "database URL (default $ARENA_DB or sqlite:///arena.db)"


def register_actions(commands: Any) -> None:
    """Add token, disable, enable and remove to `arena bot`'s sub-commands."""
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
