"""Where a random playout's time goes, per game: clone, legal actions, apply, chance, observation,
returns (issue 36 item 1). A profile, not a test.

The loop is bench/engine_speed.py's playout with every engine call timed on its own
(`time.process_time_ns` around each call: CPU time, so
that other load on the machine does not count; the timer's own cost, measured at start, is taken
off every interval): chance (`sample_chance`, which lists the outcomes,
plus `apply_chance`), legal actions, apply (which clones the state, then runs the transition),
observation (every acting seat's, as the match runner builds them) and returns at the end. The
clone's share is measured apart: after each apply and apply_chance the loop times one more
`_copy()` of the state it stepped from (`copy()` in Riviera), the copy that apply made inside;
"apply" and "chance" then print without it. Works on both engines, so the table compares them.

`--cprofile` also runs the loop under cProfile (meaningful for ARENA_ENGINE=pure: the compiled
engine's functions are invisible to it) and prints the engine functions with the most own time.

Usage: .venv/bin/python bench/engine_profile.py [--games riga] [--players 3] [--seconds 2]
       [--cprofile 12]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import engine
from engine import registry
from engine.core import NodeKind, State, sample_chance


def timer_cost() -> int:
    """ns that one `process_time_ns()` interval measures around nothing (the least of many)."""
    clock = time.process_time_ns
    return min(-clock() + clock() for _ in range(20_000))


TIMER_COST = timer_cost()
PARTS = ("clone", "chance", "legal", "apply", "observation", "returns")


def copier(state: State) -> Callable[[], Any]:
    """The state's clone method (every game's apply starts with it)."""
    return getattr(state, "_copy", None) or state.copy


def timed_playout(game: Any, rng: random.Random, spent: dict[str, int], observe: bool = True) -> int:
    """One random game with each engine call timed into `spent` (ns); returns seat decisions.
    Without `observe`, no observation is built (what engine_speed's seat decisions/s times)."""
    clock, decisions, tick = time.process_time_ns, 0, TIMER_COST
    terminal, chance = NodeKind.TERMINAL, NodeKind.CHANCE
    state = game.initial_state()
    while state.kind is not terminal:
        if state.kind is chance:
            t0 = clock()
            state_next = state.apply_chance(sample_chance(state, rng))
            t1 = clock()
            copier(state)()
            t2 = clock()
            spent["chance"] += t1 - t0 - (t2 - t1)
            spent["clone"] += t2 - t1 - tick
            state = state_next
            continue
        acting = state.acting_players()
        t0 = clock()
        for seat in acting if observe else ():
            state.observation(seat)
        t1 = clock()
        legal = [state.legal_actions(seat) for seat in acting]
        t2 = clock()
        joint = {seat: rng.choice(options) for seat, options in zip(acting, legal)}
        t3 = clock()
        state_next = state.apply(joint)
        t4 = clock()
        copier(state)()
        t5 = clock()
        spent["observation"] += t1 - t0 - tick
        spent["legal"] += t2 - t1 - tick
        spent["apply"] += t4 - t3 - (t5 - t4)
        spent["clone"] += t5 - t4 - tick
        state = state_next
        decisions += len(acting)
    t0 = clock()
    state.returns()
    spent["returns"] += clock() - t0 - tick
    return decisions


def profile_row(game_id: str, players: int, seconds: float) -> tuple[dict[str, int], int, int]:
    """Seeded random games for `seconds` CPU seconds: (ns per part, decisions, chance nodes, games)."""
    game = registry.make(game_id, players)
    rng, spent = random.Random(1), dict.fromkeys(PARTS, 0)
    decisions = games = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        decisions += timed_playout(game, rng, spent)
        games += 1
    return spent, decisions, games


def print_row(game_id: str, players: int, spent: dict[str, int], decisions: int, games: int) -> None:
    """Shares of the playout without observations (what engine_speed's seat decisions/s times),
    its µs per seat decision, then observations' µs per seat decision on top."""
    total = sum(spent[p] for p in PARTS if p != "observation")
    shares = " | ".join(f"{100 * spent[p] / total:.0f} %" for p in PARTS if p != "observation")
    print(f"| {game_id} | {players} | {shares} | {total / decisions / 1000:.1f} | "
          f"{1e9 * decisions / total:,.0f} | {spent['observation'] / decisions / 1000:.1f} |", flush=True)


def cprofile_row(game_id: str, players: int, seconds: float, top: int) -> None:
    """The engine functions with the most own time in `seconds` of the plain playout loop."""
    game = registry.make(game_id, players)
    rng, profiler = random.Random(1), cProfile.Profile()
    spent = dict.fromkeys(PARTS, 0)
    started = time.process_time()
    profiler.enable()
    while time.process_time() - started < seconds:
        timed_playout(game, rng, spent, observe=False)
    profiler.disable()
    stats = pstats.Stats(profiler)
    rows = [(tt, ct, nc, f"{Path(file).parent.name}/{Path(file).name}:{line} {name}")
            for (file, line, name), (_, nc, tt, ct, _) in stats.stats.items()  # type: ignore[attr-defined]
            if "/engine/" in file]
    total = sum(r[0] for r in rows)
    print(f"\n{game_id} {players}p, {engine.IMPLEMENTATION} engine under cProfile, playouts without "
          "observations: own time of engine functions")
    print("| function | calls | own % of engine | own+callees % |")
    print("|---|---:|---:|---:|")
    for tt, ct, nc, where in sorted(rows, reverse=True)[:top]:
        print(f"| `{where}` | {nc:,} | {100 * tt / total:.1f} | {100 * ct / total:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(registry.game_ids()))
    parser.add_argument("--players", default="3", help="player counts, e.g. 3 or 2,4 (default: 3)")
    parser.add_argument("--seconds", type=float, default=2.0, help="per game and player count")
    parser.add_argument("--cprofile", type=int, metavar="TOP", default=0,
                        help="also print the TOP engine functions by own time under cProfile")
    args = parser.parse_args()
    print(f"engine: {engine.IMPLEMENTATION}")
    print("| game | players | " + " | ".join(p for p in PARTS if p != "observation")
          + " | µs per seat decision | seat decisions/s | observation µs per seat decision |")
    print("|---|---:|" + "---:|" * (len(PARTS) + 2))
    chosen = []
    for game_id in args.games.split(","):
        info = registry.info(game_id)
        counts = [int(n) for n in args.players.split(",")]
        chosen += [(game_id, n) for n in counts if info.min_players <= n <= info.max_players]
    for game_id, players in chosen:
        spent, decisions, games = profile_row(game_id, players, args.seconds)
        print_row(game_id, players, spent, decisions, games)
    if args.cprofile:
        for game_id, players in chosen:
            cprofile_row(game_id, players, args.seconds, args.cprofile)


if __name__ == "__main__":
    main()
