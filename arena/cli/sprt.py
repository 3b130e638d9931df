"""`arena sprt`: is bot A better than bot B? Paired games until a sequential test decides.

`arena sprt --game G --a A --b B` plays pairs (two games on one chance seed, seats swapped) on a
local Ray (or a cluster, or in-process with --local) until the generalised SPRT accepts H1 (A is
at least elo1 better) or H0 (at most elo0), or --max-pairs is reached; a live line shows the
pairs, the pentanomial counts, the LLR and its bounds, the Elo estimate and the verdict.
`--resume ID` continues a stopped test, `--list` and `--show ID` read the stored ones.
How to choose the bounds and the model: docs/sprt.md.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from arena.cli.options import parse_options
from arena.cli.tournament import ProgressLine, add_run_options, close_executor, make_executor, stops_reported
from arena.errors import UsageError
from arena.sprt.driver import SprtProgress, check_sprt, existing_sprt, play_sprt, start_sprt
from arena.sprt.pairs import DEFAULT_MAX_PAIRS, SprtConfig
from arena.sprt.report import UNITS, VERDICTS, sprt_json, state_text, verdict_line
from arena.sprt.stats import MODELS
from arena.store import DEFAULT_DB_URL, Store
from engine import registry


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sprt", help="a sequential test (SPRT) of bot A against bot B",
        description="Paired games (one chance seed, seats swapped) until a sequential probability ratio test "
                    "accepts H1 (A is at least elo1 better) or H0 (at most elo0); docs/sprt.md.")
    parser.add_argument("--game", help="game id, e.g. riviera")
    parser.add_argument("--a", help="the bot under test: a built-in spec or a registered bot")
    parser.add_argument("--b", help="the bot it is measured against ('#label' to test a bot against itself)")
    parser.add_argument("--elo0", type=float, default=0.0, help="H0: A is at most this much better (default 0)")
    parser.add_argument("--elo1", type=float, default=5.0, help="H1: A is at least this much better (default 5)")
    parser.add_argument("--alpha", type=float, default=0.05, help="chance of accepting H1 when H0 holds (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="chance of accepting H0 when H1 holds (default 0.05)")
    parser.add_argument("--model", default="normalized",
                        help=f"Elo model of elo0/elo1: {' or '.join(MODELS)} (default normalized)")
    parser.add_argument("--max-pairs", type=int, default=DEFAULT_MAX_PAIRS,
                        help=f"stop undecided after this many pairs (default {DEFAULT_MAX_PAIRS})")
    parser.add_argument("--players-per-match", type=int,
                        help="seats per table (default 2; more: --reference bots fill them)")
    parser.add_argument("--reference", default="random",
                        help="the bot on the other seats of a bigger table (default random)")
    parser.add_argument("--seed", type=int, default=1, help="test seed (default 1)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="game option (repeatable)")
    parser.add_argument("--time-per-move-ms", type=int, help="time budget per decision for connected bots")
    parser.add_argument("--gateway", default="127.0.0.1:50051", help="HOST:PORT connected bots dial in to")
    parser.add_argument("--name", default="", help="a label for the test")
    parser.add_argument("--resume", type=int, metavar="ID", help="continue a stopped test")
    parser.add_argument("--list", action="store_true", help="the stored tests, newest first")
    parser.add_argument("--show", type=int, metavar="ID", help="one stored test")
    parser.add_argument("--json", action="store_true", help="with --show: as JSON")
    add_run_options(parser)
    parser.set_defaults(handler=sprt_command)


def sprt_command(args: argparse.Namespace) -> int:
    if args.list:
        return list_tests(Store(args.db, reader=True))
    if args.show is not None:
        return show_test(Store(args.db, reader=True), args.show, args.json)
    resuming = args.resume is not None
    store = Store(args.db, create=not resuming)  # a test to resume is in an existing database
    config = resumed_config(store, args.resume) if resuming else config_from_args(args)
    check_sprt(config, store)  # before Ray starts: a bad test is one line, at once
    executor = make_executor(args)
    try:
        test_id = args.resume if resuming else start_sprt(store, config, args.name)
        return run_test(store, test_id, executor, args.quiet)
    finally:
        close_executor(executor)


def resumed_config(store: Store, test_id: int) -> SprtConfig:
    """The config of a stored test, or a UsageError naming where the tests are listed."""
    return SprtConfig.from_json(existing_sprt(store, test_id).tournament.config)


def config_from_args(args: argparse.Namespace) -> SprtConfig:
    """The test the command line describes (checked later by check_sprt)."""
    missing = [f"--{name}" for name in ("game", "a", "b") if getattr(args, name) is None]
    if missing:
        raise UsageError(f"arena sprt needs {', '.join(missing)} (or --resume ID, --list, --show ID)")
    if args.game not in registry.GAMES:
        raise UsageError(f"unknown game {args.game!r}; valid games: {', '.join(registry.game_ids())}")
    return SprtConfig(
        game_id=args.game, a=args.a, b=args.b, players_per_match=args.players_per_match or 2,
        elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta, model=args.model,
        max_pairs=args.max_pairs, seed=args.seed, options=parse_options(registry.info(args.game), args.option),
        reference=args.reference, time_per_move_ms=args.time_per_move_ms, gateway=args.gateway,
    )


def run_test(store: Store, test_id: int, executor: Any, quiet: bool) -> int:
    """Play a stored test to its verdict with a live line; print the verdict."""
    line = ProgressLine(test_id, enabled=not quiet, describe=live_line)
    with stops_reported(line, store, test_id, f"SPRT test {test_id}", resume_line(store, test_id), "plays on"):
        info = play_sprt(store, test_id, executor, line.update)
    print(verdict_line(info))
    return 0


def resume_line(store: Store, test_id: int) -> str:
    """The command that resumes this test."""
    return f"arena sprt --resume {test_id}" + (f" --db {store.url}" if store.url != DEFAULT_DB_URL else "")


def live_line(test_id: int, progress: SprtProgress) -> str:
    """`sprt 3: 42 pairs [0 1 5 10 26]  LLR 2.31 (-2.94, 2.94)  +120.3 ± 30.2  LOS 99.9%  running  6.1 pairs/s`."""
    return f"sprt {test_id}: {state_text(progress.state)}  {progress.pairs_per_s:.1f} pairs/s"


def list_tests(store: Store) -> int:
    tests = store.sprts()
    if not tests:
        print(f"no SPRT tests in {store.url} yet")
        return 0
    print(f"{'id':>4}  {'game':<20} {'a':<16} {'b':<16} {'status':<11} {'pairs':>6}  {'LLR':>6}  verdict")
    for test in tests:
        config, state = test.tournament.config, test.state
        print(f"{test.id:>4}  {test.tournament.game_id:<20} {config['a']:<16} {config['b']:<16} "
              f"{test.tournament.status:<11} {state.pairs:>6}  {state.llr:>6.2f}  {VERDICTS[state.verdict]}")
    return 0


def show_test(store: Store, test_id: int, as_json: bool) -> int:
    existing_sprt(store, test_id)
    info = store.sprt(test_id, history=True)
    assert info is not None
    if as_json:
        print(json.dumps(sprt_json(info), indent=2))
        return 0
    config = info.tournament.config
    print(f"sprt {info.id}{' ' + info.tournament.name if info.tournament.name else ''}: {config['a']} vs "
          f"{config['b']} in {info.tournament.ruleset}, {config['players_per_match']} per table, "
          f"[{config['elo0']:g}, {config['elo1']:g}] {UNITS[config['model']]}, alpha {config['alpha']:g}, "
          f"beta {config['beta']:g}, seed {config['seed']}")
    print(f"status: {info.tournament.status}; {state_text(info.state, config['model'])}")
    return 0
