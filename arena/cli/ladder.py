"""`arena ladder run|status|pause|resume|stop|keep`: the always-on arena of a game (docs/ladder.md).

`run` plays for as long as it runs (Ctrl-C or `arena ladder stop` ends it); the other actions
work from any process on the same database: they write the ladder's status, which the running
ladder reads about once a second.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from typing import Any

from arena.cli.options import add_time_per_move, parse_options
from arena.cli.tournament import add_run_options, make_executor
from arena.errors import UsageError
from arena.gateway_access import gateway_running
from arena.ladder.driver import RUNNING, Ladder, open_ladder
from arena.ladder.field import LadderConfig
from arena.ladder.report import ladder_report
from arena.outcomes import TournamentStatus
from arena.store import Store, TournamentInfo
from arena.tournament.entrants import split_version
from engine import registry

DB_HELP = "database URL (default: $ARENA_DB or sqlite:///arena.db)"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("ladder", help="the always-on ladder of a game: run, status, pause, resume, stop")
    actions = parser.add_subparsers(dest="ladder_command", required=True, metavar="ACTION")
    run = actions.add_parser("run", help="run the ladder of a game until stopped")
    _add_game(run)
    run.add_argument("--anchor", action="append", default=[], metavar="SPEC",
                     help="a built-in bot kept in the ladder for good as a fixed point of the scale (repeatable)")
    run.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="game option (repeatable)")
    run.add_argument("--seed", type=int, default=1, help="the ladder's seed (default 1)")
    add_time_per_move(run)
    run.add_argument("--gateway", default="127.0.0.1:50051",
                     help="HOST:PORT of the gateway the registered bots play through (default 127.0.0.1:50051; "
                          "started in this process when none answers)")
    add_run_options(run)
    run.set_defaults(handler=run_command)
    status = actions.add_parser("status", help="every ladder, or one game's: state, field, queue")
    status.add_argument("--game", help="only this game")
    status.add_argument("--db", help=DB_HELP)
    status.add_argument("--json", action="store_true")
    status.set_defaults(handler=status_command)
    for action, what in (("pause", "no new tables until resumed (matches under way finish)"),
                         ("resume", "go on after a pause"), ("stop", "end the running ladder (it can run again)")):
        sub = actions.add_parser(action, help=what)
        _add_game(sub)
        sub.add_argument("--db", help=DB_HELP)
        sub.set_defaults(handler=control_command)
    keep = actions.add_parser("keep", help="keep a version other than the latest in the ladder (or --off)")
    keep.add_argument("version", metavar="NAME@N")
    keep.add_argument("--off", action="store_true", help="stop keeping it")
    keep.add_argument("--db", help=DB_HELP)
    keep.set_defaults(handler=keep_command)


def _add_game(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help="game id, e.g. riviera")
    parser.add_argument("--players", type=int, help="seats per table (default: the game's minimum)")


def players_of(args: argparse.Namespace) -> int:
    if args.game not in registry.GAMES:
        raise UsageError(f"unknown game {args.game!r}; valid games: {', '.join(registry.game_ids())}")
    return int(args.players or registry.info(args.game).min_players)


def run_command(args: argparse.Namespace) -> int:
    players = players_of(args)  # checks the game first
    config = LadderConfig(args.game, players, tuple(args.anchor), parse_options(registry.info(args.game), args.option),
                          args.seed, args.time_per_move_ms, args.gateway)
    store = Store(args.db)
    ladder_id = open_ladder(store, config)
    executor = make_executor(args)
    print(f"ladder {ladder_id} of {args.game} ({config.players_per_match} per table) runs; "
          f"`arena ladder status` shows it, `arena ladder stop --game {args.game}` ends it",
          file=sys.stderr, flush=True)
    stop = threading.Event()  # SIGTERM (a service manager's stop) ends the run as `arena ladder stop` does
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with gateway_running(args.gateway, store):
            Ladder(store, ladder_id, executor).run(until=stop.is_set)
    except KeyboardInterrupt:
        print(f"ladder {ladder_id} interrupted; `arena ladder run --game {args.game}` goes on where it stopped",
              file=sys.stderr)
        raise
    finally:
        executor.close()
    print(f"ladder {ladder_id} stopped")
    return 0


def control_command(args: argparse.Namespace) -> int:
    store = Store(args.db)
    info = _existing(store, args.game, players_of(args))
    action = args.ladder_command
    if action in ("pause", "resume") and info.status not in (TournamentStatus.RUNNING, TournamentStatus.PAUSED):
        raise UsageError(f"the ladder of {args.game} is {info.status}, not running; start it with "
                         f"`arena ladder run --game {args.game}`")
    status = {"pause": TournamentStatus.PAUSED, "resume": TournamentStatus.RUNNING,
              "stop": TournamentStatus.STOPPING}[action]
    if action == "stop" and info.status not in RUNNING:
        raise UsageError(f"the ladder of {args.game} is already {info.status}")
    store.set_tournament_status(info.id, status)
    print(f"ladder {info.id} of {args.game}: {status} (the running ladder sees it within a second)")
    return 0


def keep_command(args: argparse.Namespace) -> int:
    name, number = split_version(args.version)
    if number is None:
        raise UsageError(f"write the version to keep as NAME@N, not {args.version!r}")
    Store(args.db).set_keep_active(name, number, not args.off)
    print(f"{name}@{number} {'is no longer kept' if args.off else 'is kept'} in the ladders")
    return 0


def _existing(store: Store, game: str, players: int) -> TournamentInfo:
    info = store.ladder(game, players)
    if info is None:
        raise UsageError(f"no ladder of {game} with {players} per table in {store.url}; "
                         f"start one with `arena ladder run --game {game}`")
    return info


def status_command(args: argparse.Namespace) -> int:
    store = Store(args.db, reader=True)
    ladders = [t for t in store.ladders() if args.game in (None, t.game_id)]
    reports = [ladder_report(store, info) for info in ladders]
    if args.json:
        print(json.dumps(reports, indent=2, default=str))
        return 0
    if not reports:
        print(f"no ladders in {store.url} yet; `arena ladder run --game GAME` starts one")
    for report in reports:
        print(format_report(report))
    return 0


def format_report(report: dict[str, Any]) -> str:
    lines = [f"ladder {report['id']} of {report['game']} ({report['players']} per table): {report['status']}; "
             f"{report['matches']} matches stored ({report['aborted']} aborted), "
             f"{len(report['live'])} playing now, {len(report['queue'])} queued"]
    for bot in report["field"]:
        elo = "  unrated" if bot["elo"] is None else f"{bot['elo']:9.0f}"
        marks = (" provisional" if bot["provisional"] else "") + (" anchor" if bot["anchor"] else "")
        lines.append(f"  {bot['bot']:<24}{elo}  games {bot['games']:>5}  last hour {bot['last_hour']:>4}{marks}")
    lines += [f"  suspended: {s['bot']}: {s['reason']}" for s in report["suspended"]]
    lines += [f"  last incident: {report['note']}"] if report.get("note") else []
    return "\n".join(lines)
