"""Two built-in bots head to head, in parallel processes: the quick check used to tune ISMCTS.

For every seed, bot A plays once from each seat (bot B in all the others), the seed shared by
those matches so the deal and the dice are the same on both sides (duplicate play). Prints A's
mean pairwise score (1 ahead, 1/2 tied, 0 behind) with a 95% normal interval, and the mean wall
time per match.

Usage:
    .venv/bin/python bench/bot_duel.py GAME SPEC_A SPEC_B SEEDS [--players 2] [--first-seed 1000]
        [--workers 2]
   e.g. .venv/bin/python bench/bot_duel.py riviera ismcts:sims=200 heuristic 20 --first-seed 2000
"""

from __future__ import annotations

import argparse
import statistics
import time
from multiprocessing import Pool

from arena.match.runner import run_match


def one_match(job: tuple[str, str, str, int, int, int]) -> tuple[float, float]:
    """A's pairwise score in one match, and the match's wall time in seconds."""
    game_id, a, b, seed, seat, players = job
    seats = [a if s == seat else b for s in range(players)]
    started = time.perf_counter()
    ranks = run_match(game_id, seats, seed=seed).ranks
    assert ranks is not None, "the match was aborted"
    others = [r for s, r in enumerate(ranks) if s != seat]
    score = sum((ranks[seat] < r) + 0.5 * (ranks[seat] == r) for r in others) / len(others)
    return score, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("a", help="the bot measured, e.g. ismcts:sims=200")
    parser.add_argument("b", help="its opponent in every other seat, e.g. heuristic")
    parser.add_argument("seeds", type=int, help="seeds; each is played once per seat of A")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    jobs = [(args.game, args.a, args.b, args.first_seed + i, seat, args.players)
            for i in range(args.seeds) for seat in range(args.players)]
    started = time.perf_counter()
    with Pool(args.workers) as pool:
        results = pool.map(one_match, jobs, chunksize=1)
    scores = [score for score, _ in results]
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / len(scores) ** 0.5 if len(scores) > 1 else float("nan")
    print(f"{args.game} {args.a} vs {args.b}: {mean:.3f} ± {half:.3f} over {len(scores)} matches, "
          f"{statistics.fmean(t for _, t in results):.1f} s/match, wall {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
