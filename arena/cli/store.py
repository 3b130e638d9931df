"""`arena store export|prune`: the database's retention, for operators (docs/tournaments.md, "The database").

`export FOLDER` writes the selected matches, records included, as one gzip JSON Lines file per
ruleset (the format: arena/store/retention.py); `prune` drops the records of old matches while
their results keep counting (the seats stay), and refuses, in one line, matches a running
tournament or ladder may still need or whose replays are not released yet.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.errors import UsageError
from arena.store import Store
from arena.store.retention import Selection, export_matches, prune_records


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("store", help="export matches to files, prune old match records")
    commands = parser.add_subparsers(dest="store_command", required=True, metavar="ACTION")
    export = commands.add_parser("export", help="write matches (records included) to gzip JSON Lines files")
    export.add_argument("folder", type=Path, help="where the files go: one <ruleset>.jsonl.gz per ruleset")
    _add_selection(export)
    export.set_defaults(handler=export_command)
    prune = commands.add_parser("prune", help="drop the records of old matches (their results keep counting)")
    _add_selection(prune)
    prune.add_argument("--unreleased", action="store_true",
                       help="also prune matches of a stopped or interrupted tournament or ladder, whose replays "
                            "are not released (never those of a running one)")
    prune.set_defaults(handler=prune_command)


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--before", type=_date, help="matches finished before DATE (YYYY-MM-DD or ISO time, UTC)")
    parser.add_argument("--since", type=_date, help="matches finished at or after DATE")
    parser.add_argument("--ruleset", help="one ruleset only, e.g. riga@1")
    parser.add_argument("--keep-last", type=_count, metavar="N", help="leave out the newest N matches")
    parser.add_argument("--db", help="database URL (default: $ARENA_DB or sqlite:///arena.db)")


def _date(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad date {text!r}: use YYYY-MM-DD or an ISO time such as "
                                         "2026-11-30T12:00") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"bad count {text!r}: give a whole number of matches, e.g. 100000")
    return int(text)


def _selection(args: argparse.Namespace, *, pruning: bool) -> Selection:
    if pruning and args.before is None and args.keep_last is None:
        raise UsageError("say which records to prune: --before DATE, --keep-last N, or both")
    return Selection(before=args.before, since=args.since, ruleset=args.ruleset, keep_last=args.keep_last)


def export_command(args: argparse.Namespace) -> int:
    store = Store(args.db, reader=True, create=False)
    written = export_matches(store.engine, args.folder, _selection(args, pruning=False))
    for name, matches in sorted(written.items()):
        print(f"{args.folder / name}: {matches} matches")
    if not written:
        print(f"no matches selected in {store.url}; nothing written")
    return 0


def prune_command(args: argparse.Namespace) -> int:
    store = Store(args.db, create=False)
    pruned = prune_records(store.engine, _selection(args, pruning=True), unreleased=args.unreleased)
    print(f"pruned the records of {pruned} matches in {store.url} (their results still count)")
    return 0
