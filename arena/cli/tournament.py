"""`arena tournament run|list|show|resume`: round robins and gauntlets on Ray, stored and rated.

Everything is checked before anything runs (game, bots, seats per match, options, database URL,
Ray address); then matches run on a local Ray (or a cluster with --ray-address, or in this
process with --local) and a progress line shows matches done / total, matches per second, ETA.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any

from arena.cli.leaderboard import COUNTS_LEGEND, format_interval, format_leaderboard, leaderboard_rows
from arena.cli.options import add_time_per_move, parse_options
from arena.errors import StoreError, UsageError
from arena.gateway_access import gateway_running
from arena.node.task import executor_for
from arena.outcomes import TournamentStatus
from arena.rating import rate_matches, tournament_matches
from arena.standings import tournament_standings
from arena.store import SPRT_KIND, Store, TournamentInfo
from arena.tournament.driver import (
    GatewayGone,
    Progress,
    TournamentPlan,
    plan_tournament,
    play_tournament,
    stopped_note,
    store_tournament,
)
from arena.tournament.schedule import DEFAULT_MAX_TABLES, TournamentConfig, bot_spec
from bots import is_builtin, split_specs
from engine import registry


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("tournament", help="run, list, show or resume tournaments")
    commands = parser.add_subparsers(dest="tournament_command", required=True, metavar="ACTION")
    run = commands.add_parser("run", help="schedule and play a round robin (or a gauntlet)")
    run.add_argument("--game", required=True, help="game id, e.g. riviera")
    run.add_argument("--bots", required=True,
                     help="comma-separated entrants: bot specs or registered bots (NAME: its latest version, "
                          "NAME@N: version N), '#label' to enter one twice")
    run.add_argument("--players-per-match", type=int, help="seats per table (default: the game's minimum)")
    run.add_argument("--rounds", type=int, default=1, help="repeat the whole schedule R times (default 1)")
    run.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    run.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="game option (repeatable)")
    run.add_argument("--gauntlet", metavar="BOT",
                     help="play BOT against the rest of the field instead of a round robin")
    run.add_argument("--max-tables", type=int, default=DEFAULT_MAX_TABLES,
                     help="tables per round before a balanced sample replaces all subsets "
                          f"(default {DEFAULT_MAX_TABLES})")
    add_time_per_move(run)
    run.add_argument("--gateway", default="127.0.0.1:50051",
                     help="HOST:PORT of the gateway connected bots dial in to (default 127.0.0.1:50051)")
    run.add_argument("--name", default="", help="a label for the tournament")
    add_run_options(run)
    run.set_defaults(handler=run_command)
    listing = commands.add_parser("list", help="stored tournaments, newest first")
    listing.add_argument("--game", help="only this game")
    listing.add_argument("--db", help="database URL (default: $ARENA_DB or sqlite:///arena.db)")
    listing.set_defaults(handler=list_command)
    show = commands.add_parser("show", help="one tournament: config, progress, standings")
    show.add_argument("id", type=int)
    show.add_argument("--db", help="database URL (default: $ARENA_DB or sqlite:///arena.db)")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=show_command)
    resume = commands.add_parser("resume", help="play the matches a stopped tournament is missing")
    resume.add_argument("id", type=int)
    add_run_options(resume)
    resume.set_defaults(handler=resume_command)


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Where a run plays and stores its matches: shared by tournament run/resume and demo."""
    parser.add_argument("--db", help="database URL (default: $ARENA_DB or sqlite:///arena.db)")
    parser.add_argument("--ray-address", help="join a running Ray cluster at HOST:PORT (default: start Ray here)")
    parser.add_argument("--local", action="store_true", help="play in this process, without Ray")
    parser.add_argument("--workers", type=int, help="CPUs for the local Ray (default: all)")
    parser.add_argument("--max-in-flight", type=int,
                        help="Ray tasks submitted at once, each of one or more matches (default: 2 per worker CPU)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--no-live", dest="live", action="store_false",
                        help="do not send running matches' steps to the dashboard's live pages")


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    """The tournament config the command line describes (checked later by check_config)."""
    if args.game not in registry.GAMES:
        raise UsageError(f"unknown game {args.game!r}; valid games: {', '.join(registry.game_ids())}")
    info = registry.info(args.game)
    entrants = tuple(split_specs(args.bots))  # "ismcts:sims=500,c=1.4" stays one entrant
    return TournamentConfig(
        game_id=args.game, players_per_match=args.players_per_match or info.min_players, entrants=entrants,
        rounds=args.rounds, seed=args.seed, options=parse_options(info, args.option),
        kind="gauntlet" if args.gauntlet else "round_robin", challenger=args.gauntlet,
        max_tables=args.max_tables, time_per_move_ms=args.time_per_move_ms, gateway=args.gateway,
    )


def run_command(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    if args.max_tables < 1:
        raise UsageError(f"--max-tables must be at least 1, not {args.max_tables}")
    store = Store(args.db)
    plan = plan_tournament(config, store)  # before Ray starts: a bad config costs nothing
    executor = make_executor(args)
    try:
        with gateway_for(plan.config, store):
            tournament_id = store_tournament(store, plan, args.name)
            return _play(store, tournament_id, executor, args.quiet, plan)
    finally:
        close_executor(executor)


def resume_command(args: argparse.Namespace) -> int:
    store = Store(args.db, create=False)  # a tournament to resume is in an existing database
    info = _existing(store, args.id)
    if info.status == TournamentStatus.FINISHED and info.done_matches == info.total_matches:
        print(f"tournament {info.id} is already finished ({info.total_matches} matches); nothing to play")
        return 0
    plan = plan_tournament(TournamentConfig.from_json(info.config), store)
    executor = make_executor(args)
    try:
        with gateway_for(plan.config, store):
            return _play(store, info.id, executor, args.quiet, plan)
    finally:
        close_executor(executor)


def gateway_for(config: TournamentConfig, store: Store) -> AbstractContextManager[None]:
    """Registered entrants play through the gateway at `config.gateway`; when none runs there, one
    is started in this process, as `arena play` does (no gateway is needed for built-in bots)."""
    if all(is_builtin(bot_spec(entrant)) for entrant in config.entrants):
        return nullcontext()
    if config.gateway is None:
        raise UsageError("this tournament has registered entrants but no gateway address in its config: "
                         "registered bots play through a gateway (--gateway HOST:PORT)")
    return gateway_running(config.gateway, store)


def close_executor(executor: Any) -> None:
    """Release the executor, and the submitted bots this process launched (with --local)."""
    from arena.node.task import stop_this_node

    executor.close()
    stop_this_node()


def make_executor(args: argparse.Namespace) -> Any:
    """The executor the options ask for (--local, --ray-address, --workers, --max-in-flight, live steps)."""
    return executor_for(args.local, ray_address=args.ray_address, workers=args.workers,
                        max_in_flight=args.max_in_flight, live=args.live)


def _play(store: Store, tournament_id: int, executor: Any, quiet: bool, plan: TournamentPlan) -> int:
    info = play_with_progress(store, tournament_id, executor, quiet, plan)
    print(format_run_table(store, info))
    return 0


def format_run_table(store: Store, info: TournamentInfo) -> str:
    """The table after a run: this tournament's matches alone, so that it adds up to the summary
    line even when other writers store matches of the same ruleset (the leaderboard has them all)."""
    matches = tournament_matches(store, info.id, info.ruleset)
    rows = leaderboard_rows(info.ruleset, rate_matches(matches))
    every_match = f"  every stored match of {info.ruleset}: arena leaderboard --ruleset {info.ruleset}"
    return format_leaderboard(f"tournament {info.id} alone ({info.ruleset})", rows, len(matches)) + f"\n{every_match}"


def play_with_progress(store: Store, tournament_id: int, executor: Any, quiet: bool = False,
                       plan: TournamentPlan | None = None) -> TournamentInfo:
    """Play a stored tournament's missing matches with a progress line; print a summary line."""
    line = ProgressLine(tournament_id, enabled=not quiet)
    with stops_reported(line, store, tournament_id, f"tournament {tournament_id}",
                        resume_command_line(store, tournament_id), "plays the matches it is missing"):
        info = play_tournament(store, tournament_id, executor, line.update, plan)
    print(f"tournament {info.id} ({info.ruleset}) finished: {info.done_matches} matches, "
          f"{info.aborted_matches} aborted (on {_cpus(getattr(executor, 'workers', 1))})")
    return info


@contextmanager
def stops_reported(line: ProgressLine, store: Store, tournament_id: int, what: str, resume: str,
                   resume_does: str) -> Iterator[None]:
    """End the progress line however the run ends; Ctrl-C prints how to resume, a database
    error (a full disk) becomes one line that says how it is stored and how to resume."""
    try:
        yield
    except KeyboardInterrupt:
        line.end()
        print(f"stopped; resume with: {resume}", file=sys.stderr)
        raise
    except GatewayGone as error:  # the matches it cut short are not stored: resume plays them
        line.end()
        raise GatewayGone(f"{error}; {stopped_note(store, tournament_id, what)}: once the gateway runs again, "
                          f"`{resume}` {resume_does}") from None
    except StoreError as error:  # what was stored is kept, resume plays the rest
        line.end()
        raise StoreError(f"{error}; {stopped_note(store, tournament_id, what)}: once that is fixed, "
                         f"`{resume}` {resume_does}") from None
    line.end()


def resume_command_line(store: Store, tournament_id: int) -> str:
    """The command that resumes this tournament."""
    return f"arena tournament resume {tournament_id}" + (
        f" --db {store.url}" if store.url != "sqlite:///arena.db" else "")


def _cpus(count: int) -> str:
    return f"{count} worker CPU{'' if count == 1 else 's'}"


class ProgressLine:
    """`tournament 3: 120/400 matches (30%)  35.2 matches/s  ETA 0:00:08` on stderr.

    Redrawn in place on a terminal; elsewhere (logs, CI) printed at most every 5 seconds.
    """

    def __init__(self, tournament_id: int, enabled: bool = True,
                 describe: Callable[[int, Any], str] | None = None) -> None:
        self.tournament_id, self.enabled = tournament_id, enabled
        self.describe = describe or format_progress  # `arena sprt` shows its own line
        self.tty = sys.stderr.isatty()
        self.last_print = 0.0
        self.text = ""

    def update(self, progress: Any) -> None:
        if not self.enabled:
            return
        self.text = self.describe(self.tournament_id, progress)
        if self.tty:
            print("\r" + self.text.ljust(79), end="", file=sys.stderr, flush=True)
        elif time.monotonic() - self.last_print >= 5:
            print(self.text, file=sys.stderr, flush=True)
            self.last_print = time.monotonic()

    def end(self) -> None:
        if self.enabled and self.text:
            print("\r" + self.text.ljust(79) if self.tty else self.text, file=sys.stderr, flush=True)


def format_progress(tournament_id: int, progress: Progress) -> str:
    percent = 100 * progress.done / progress.total if progress.total else 100.0
    eta = "--" if progress.eta_s is None else _clock(progress.eta_s)
    return (f"tournament {tournament_id}: {progress.done}/{progress.total} matches ({percent:.0f}%)  "
            f"{progress.rate:.1f} matches/s  ETA {eta}")


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def list_command(args: argparse.Namespace) -> int:
    store = Store(args.db, reader=True)
    rows = store.tournaments(game_id=args.game)
    if not rows:
        print(f"no tournaments in {store.url} yet")
        return 0
    print(f"{'id':>4}  {'game':<20} {'kind':<11} {'status':<11} {'matches':>13}  created")
    now = datetime.now(UTC)
    for t in rows:
        print(f"{t.id:>4}  {t.game_id:<20} {t.kind:<11} {t.status:<11} {t.done_matches:>6}/{t.total_matches:<6}  "
              f"{t.created_at:%Y-%m-%d %H:%M}"
              + ("  (no progress for a minute: resume it?)" if t.seems_stopped(now) else ""))
    return 0


def show_command(args: argparse.Namespace) -> int:
    store = Store(args.db, reader=True)
    info = _existing(store, args.id)
    standings = tournament_standings(store, info)
    if args.json:
        print(json.dumps({**_info_json(info), "standings": standings}, indent=2))
        return 0
    config = info.config
    print(f"tournament {info.id}{' ' + info.name if info.name else ''}: {info.kind} of {info.ruleset}, "
          f"{config['players_per_match']} per match, {config['rounds']} round(s), seed {config['seed']}")
    print(f"bots: {', '.join(config['entrants'])}")
    print(f"status: {info.status}; {info.done_matches}/{info.total_matches} matches stored, "
          f"{info.aborted_matches} aborted")
    if info.seems_stopped(datetime.now(UTC)):
        print(f"no progress for over a minute: its driver was probably stopped; `arena tournament resume {info.id}`")
    if standings:
        print("standings in this tournament alone (Elo from its matches only):")
        for s in standings:
            interval = format_interval(s["low95"], s["high95"])
            print(f"  {s['place']:>3}. {s['bot']:<20} {s['elo']:6.0f}  {interval}  games {s['games']:>5}  "
                  f"wins {s['wins']:g}  strikes {s['strikes']}  forfeits {s['forfeits']}")
        print(f"  ({COUNTS_LEGEND})")
    return 0


def _existing(store: Store, tournament_id: int) -> TournamentInfo:
    info = store.tournament(tournament_id)
    if info is None:
        raise UsageError(f"no tournament {tournament_id} in {store.url}; `arena tournament list` shows them")
    if info.kind == SPRT_KIND:
        raise UsageError(f"tournament {tournament_id} is an SPRT test: `arena sprt --show {tournament_id}` or "
                         f"`arena sprt --resume {tournament_id}`")
    return info


def _info_json(info: TournamentInfo) -> dict[str, Any]:
    return {
        "id": info.id, "name": info.name, "game": info.game_id, "ruleset": info.ruleset, "kind": info.kind,
        "config": info.config, "status": info.status, "total_matches": info.total_matches,
        "done_matches": info.done_matches, "aborted_matches": info.aborted_matches,
        "created_at": info.created_at.isoformat(),
        "finished_at": info.finished_at.isoformat() if info.finished_at else None,
    }
