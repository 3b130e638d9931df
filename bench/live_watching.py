"""The cost of live watching: the same tournament with live steps on and off, side by side.

Each workload is one whole tournament (the real driver, a fresh SQLite file, results stored and
rated) played on a local Ray with W worker CPUs, once with `live=True` (every running match sends
its new steps to the live actor at most once a second; the driver's thread writes them to the
`live_match` table once a second) and once without, alternately, `--repeats` times each; the
figure is matches/s, and the cost is 1 - on/off of the medians. Two workloads:
- short: random bots (matches of a few ms, far under the 1 s push interval): the cost is the
  progress hook on every step and the writer thread;
- long: `ismcts:sims=1` against random (matches of seconds): every match sends several updates and
  several live rows are written every second.
`--local` plays in one process (LocalExecutor) instead of on Ray.

On a shared machine whole-tournament figures swing by 10-20 % from run to run, more than the cost
being measured, so the parts are also timed on their own:
- hook: the same matches in one process with the progress hook (sending to an in-process sink
  every 1 s) and without, alternately: the cost inside a match;
- push: one fire-and-forget call to the live actor from this process (what a match pays once a
  second), and one drain of it (what the driver's thread pays once a second).

Usage: .venv/bin/python bench/live_watching.py [--workers 2] [--repeats 3] [--local] [--workloads short,long,hook,push]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import timeit
from pathlib import Path

from arena.match import executor as executors
from arena.match.executor import LocalExecutor, RayExecutor
from arena.match.live import LiveBuffer, StepFeed
from arena.match.record import StepRecord
from arena.match.runner import run_match
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig

WORKLOADS = {
    "short": TournamentConfig(game_id="lost_cities_rivals", players_per_match=2, rounds=10, seed=1,
                              entrants=tuple(f"random#{i}" for i in range(1, 7))),
    "long": TournamentConfig(game_id="riviera", players_per_match=2, rounds=3, seed=1,
                             entrants=("ismcts:sims=1", "random#1", "random#2", "random#3")),
}


def one_run(config: TournamentConfig, live: bool, local: bool, folder: Path) -> tuple[float, int]:
    """(matches/s, live rows seen written) of one whole tournament."""
    store = Store(f"sqlite:///{folder / f'{time.monotonic_ns()}.db'}")
    tournament_id = start_tournament(store, config)
    runner = LocalExecutor(live=live) if local else RayExecutor(live=live)
    written = _count_writes(store)
    started = time.perf_counter()
    try:
        info = play_tournament(store, tournament_id, runner)
    finally:
        if not local:
            runner.close()
    return info.total_matches / (time.perf_counter() - started), written[0]


def _count_writes(store: Store) -> list[int]:
    """Counts the live rows the driver writes (a wrapper around Store.put_live)."""
    written = [0]
    put = store.put_live

    def counted(matches):  # noqa: ANN001, ANN202
        written[0] += len(matches)
        put(matches)

    store.put_live = counted  # type: ignore[method-assign]
    return written


def bench(name: str, repeats: int, local: bool, folder: Path) -> None:
    config = WORKLOADS[name]
    rates: dict[bool, list[float]] = {False: [], True: []}
    rows = 0
    for _ in range(repeats):
        for live in (False, True):
            rate, written = one_run(config, live, local, folder)
            rates[live].append(rate)
            rows += written
    off, on = statistics.median(rates[False]), statistics.median(rates[True])
    print(f"{name:6s} off {off:8.1f} matches/s  on {on:8.1f} matches/s  on/off {on / off:6.3f}  "
          f"cost {100 * (1 - on / off):+5.1f} %  live rows written {rows}  "
          f"(runs off: {', '.join(f'{r:.1f}' for r in rates[False])}; "
          f"on: {', '.join(f'{r:.1f}' for r in rates[True])})")


def hook_cost(matches: int, repeats: int) -> None:
    """In-match cost: each random-bot match played with the progress hook and without, in turn
    (match by match, so the machine's drift falls on both sides alike)."""
    totals: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(repeats):
        spent = {False: 0.0, True: 0.0}
        for seed in range(matches):
            for hooked in (False, True) if seed % 2 else (True, False):
                feed = StepFeed((0, seed), LiveBuffer().push) if hooked else None
                started = time.perf_counter()
                run_match("riviera", ["random"] * 3, seed, progress=feed)
                spent[hooked] += time.perf_counter() - started
        for hooked in spent:
            totals[hooked].append(spent[hooked])
    off, on = min(totals[False]), min(totals[True])
    print(f"hook   {matches} riviera matches in one process: off {off:.3f} s  on {on:.3f} s  "
          f"cost {100 * (on / off - 1):+5.2f} % (least of {repeats})")
    steps = sum(len(run_match("riviera", ["random"] * 3, seed).steps) for seed in range(matches))
    feed, record = StepFeed((0, 0), LiveBuffer().push), [StepRecord(chance=0)] * 100
    per_call = min(timeit.repeat(lambda: feed(record), number=100_000, repeat=5)) / 100_000
    print(f"hook   one call between sends: {1e6 * per_call:.2f} us; x {steps / matches:.0f} steps a match = "
          f"{100 * per_call * steps / off:.2f} % of a random-bot match")


def push_cost(calls: int) -> None:
    """What a push costs the match that sends it, and a drain the driver (Ray's live actor)."""
    runner = RayExecutor(live=True)
    try:
        steps = [{"chance": 1, "actions": None, "elapsed_ms": None}] * 20  # about a second of a match
        runner.drain_live()
        started = time.perf_counter()
        for n in range(calls):
            runner.live_sink.push((0, 0), "bench", n * 20, steps)
        pushed = (time.perf_counter() - started) / calls
        started, drained = time.perf_counter(), 0
        while drained < calls and time.perf_counter() - started < 60:
            drained += len(runner.drain_live())
        print(f"push   one fire-and-forget call to the live actor: {1e3 * pushed:.3f} ms "
              f"(a match sends one a second: {100 * pushed:.3f} % of its time); "
              f"{drained} messages drained in {time.perf_counter() - started:.3f} s")
    finally:
        runner.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each side per workload (default 3)")
    parser.add_argument("--local", action="store_true", help="play in this process (LocalExecutor), not on Ray")
    parser.add_argument("--workloads", default="short,long,hook,push", help="comma-separated: short, long, hook, push")
    args = parser.parse_args()
    if not args.local:
        executors.connect(num_cpus=args.workers)
    where = "in one process" if args.local else f"on a local Ray with {args.workers} worker CPUs"
    print(f"live watching on vs off, {where}, {args.repeats} runs each, alternating; medians")
    with tempfile.TemporaryDirectory() as folder:
        for name in args.workloads.split(","):
            if name == "hook":
                hook_cost(40, max(3, args.repeats))
            elif name == "push" and not args.local:
                push_cost(2000)
            elif name in WORKLOADS:
                bench(name, args.repeats, args.local, Path(folder))
    if not args.local:
        executors.disconnect()


if __name__ == "__main__":
    main()
