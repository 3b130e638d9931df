"""SPRT throughput: pairs per second on local Ray (random against heuristic, each game), and the
cost of the statistics per update beside the cost of a pair.

pairs: a real `arena sprt` run (`play_sprt`: Ray, the store, the LLR after every pair) of random
  (A) against heuristic (B) for --pairs pairs per game. alpha = beta = 1e-9 puts the bounds at
  ±20.7, far enough that no test stops before --pairs: every game plays the same number of pairs.
stats: the time of one update as the driver does it after each pair (the LLR, the verdict, the
  Elo estimate with its interval and LOS) at several pair counts, per model.

Usage: .venv/bin/python bench/sprt_speed.py [--pairs 100] [--workers 2] [--games riviera,riga]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from arena.match.executor import RayExecutor
from arena.sprt.driver import Tally, play_sprt, start_sprt
from arena.sprt.pairs import SprtConfig
from arena.sprt.simulate import with_elo
from arena.store import Store
from engine import registry


def pairs_per_second(game: str, pairs: int, runner: RayExecutor, folder: Path) -> tuple[float, int]:
    store = Store(f"sqlite:///{folder / f'{game}.db'}")
    config = SprtConfig(game, "random", "heuristic", alpha=1e-9, beta=1e-9, max_pairs=pairs)
    test_id = start_sprt(store, config)
    started = time.perf_counter()
    info = play_sprt(store, test_id, runner)
    return info.state.pairs / (time.perf_counter() - started), info.state.pairs


def update_cost_us(model: str, pairs: int, repeats: int = 200) -> float:
    """Microseconds per pair update with `pairs` already counted (a realistic distribution)."""
    tally = Tally(SprtConfig("riviera", "a", "b", model=model, elo1=5.0, max_pairs=10**9))
    rng = random.Random(1)
    tally.counts = [0] * 5
    for cell in rng.choices(range(5), with_elo(3.0, model), k=pairs):
        tally.counts[cell] += 1
    started = time.perf_counter()
    for _ in range(repeats):
        tally._count(0.5, 0.5)  # one pair of 1 point: the LLR, the verdict
        tally.state()  # the estimate the writer stores
    return (time.perf_counter() - started) / repeats * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", default=",".join(registry.game_ids()))
    args = parser.parse_args()
    print("| model | pairs counted | µs per update |\n|---|---:|---:|")
    for model in ("normalized", "logistic"):
        for pairs in (10, 1_000, 100_000):
            print(f"| {model} | {pairs:,} | {update_cost_us(model, pairs):.0f} |")
    runner = RayExecutor(num_cpus=args.workers)
    print(f"\n| game | pairs | pairs/s on {runner.workers} worker CPUs | ms per pair |\n|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for game in args.games.split(","):
            rate, played = pairs_per_second(game, args.pairs, runner, Path(folder))
            print(f"| {game} | {played} | {rate:.1f} | {1000 / rate:.0f} |", flush=True)
    runner.close()


if __name__ == "__main__":
    main()
