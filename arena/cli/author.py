"""`arena author ...`: the bot authors who work through the authors' service (docs/authors.md).

- `add NAME`: a new author; their key is printed once (the arena keeps only a hash). The author
  saves it in a file only they can read and passes it to `arena-bot --key-file`;
- `list`, `rotate NAME` (a new key; the old one stops working at once), `disable NAME` /
  `enable NAME` (a disabled author's key is refused), `remove NAME` (their bots become the
  operator's; nothing else changes).

`arena bot assign NAME AUTHOR` (registered here, beside the other `arena bot` actions) makes a
registered bot an author's; every bot is the operator's until assigned.
"""

from __future__ import annotations

import argparse
from typing import Any

from arena.store import Store

DB_HELP = "database URL (default $ARENA_DB or sqlite:///arena.db)"
KEY_NOTE = "(shown only this once; the arena keeps only a hash)"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("author", help="add, list, disable or remove bot authors; rotate their keys")
    commands = parser.add_subparsers(dest="author_command", required=True, metavar="ACTION")
    for action, handler, about in [
        ("add", add_command, "add an author and print their key (shown once)"),
        ("rotate", rotate_command, "issue a new key for an author; the old one stops working"),
        ("disable", disable_command, "refuse an author's key until enabled again"),
        ("enable", enable_command, "accept a disabled author's key again"),
        ("remove", remove_command, "remove an author; their bots become the operator's"),
    ]:
        one = commands.add_parser(action, help=about)
        one.add_argument("name", help="the author's name: a letter, then letters, digits, '_', '.' or '-'")
        one.add_argument("--db", help=DB_HELP)
        one.set_defaults(handler=handler)
    listing = commands.add_parser("list", help="list the authors")
    listing.add_argument("--db", help=DB_HELP)
    listing.set_defaults(handler=list_command)


def register_assign(commands: Any) -> None:
    """Add `assign NAME AUTHOR` to the `arena bot` actions."""
    assign = commands.add_parser("assign", help="make a registered bot an author's (or the operator's again)")
    assign.add_argument("name", help="the registered bot's name")
    assign.add_argument("author", help="the author's name, or '-' for the operator")
    assign.add_argument("--db", help=DB_HELP)
    assign.set_defaults(handler=assign_command)


def print_key(intro: str, key: str) -> None:
    print(intro)
    print(key)
    print("Give it to the author, who saves it in a file only they can read (chmod 600) and passes it to "
          "`arena-bot --key-file FILE` (docs/authors.md).")


def add_command(args: argparse.Namespace) -> int:
    key = Store(args.db).add_author(args.name)
    print_key(f"added author {args.name!r}. Their key {KEY_NOTE}:", key)
    return 0


def rotate_command(args: argparse.Namespace) -> int:
    key = Store(args.db).rotate_author_key(args.name)
    print_key(f"new key for author {args.name!r} {KEY_NOTE}; the old key no longer works:", key)
    return 0


def disable_command(args: argparse.Namespace) -> int:
    Store(args.db).set_author_disabled(args.name, True)
    print(f"disabled author {args.name!r}: their key is refused; their bots still play. "
          f"`arena author enable {args.name}` lifts it")
    return 0


def enable_command(args: argparse.Namespace) -> int:
    Store(args.db).set_author_disabled(args.name, False)
    print(f"enabled author {args.name!r}: their key works again")
    return 0


def remove_command(args: argparse.Namespace) -> int:
    moved = Store(args.db).remove_author(args.name)
    print(f"removed author {args.name!r}: their key no longer works; their {moved} bot(s) are now the operator's")
    return 0


def list_command(args: argparse.Namespace) -> int:
    authors = Store(args.db, reader=True).authors()
    if not authors:
        print("no authors (add one with `arena author add NAME`)")
    for author in authors:
        state = " (disabled)" if author.disabled else ""
        print(f"{author.name:<24} added {author.created_at:%Y-%m-%d %H:%M}{state}  {author.bots} bot(s)")
    return 0


def assign_command(args: argparse.Namespace) -> int:
    author = None if args.author == "-" else args.author
    Store(args.db).assign_bot(args.name, author)
    owner = f"author {author!r}'s" if author else "the operator's"
    print(f"bot {args.name!r} is now {owner}")
    return 0
