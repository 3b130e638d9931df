"""How many pairs an SPRT takes, and how often it accepts H1, at several true Elo differences.

expected: the Brownian approximation of the normalised-model GSPRT (arena.sprt.simulate
  .brownian_outcome): the operating characteristic (chance of accepting H1) and the expected
  number of pairs, for the default bounds and a few others; it does not depend on the game.
simulate: seeded simulated tests (arena.sprt.simulate.run_test: pair scores drawn from a
  distribution with that true nElo, the real `llr` after every pair), to check the approximation:
  the share of H1 verdicts and the mean and 90th percentile of the pairs played.

Usage: .venv/bin/python bench/sprt_simulation.py [--runs 200] [--bounds 0,20]
"""

from __future__ import annotations

import argparse
import random
import statistics

from arena.sprt.simulate import brownian_outcome, run_test, with_elo

TABLE_BOUNDS = [(0.0, 5.0), (0.0, 20.0), (0.0, 50.0)]


def expected_table() -> None:
    print("| bounds (nElo) | true nElo | P(accept H1) | expected pairs |\n|---|---:|---:|---:|")
    for elo0, elo1 in TABLE_BOUNDS:
        width = elo1 - elo0
        for true in (elo0 - width, elo0, (elo0 + elo1) / 2, elo1, elo1 + width, elo1 + 3 * width):
            p_h1, pairs = brownian_outcome(true, elo0, elo1)
            print(f"| [{elo0:g}, {elo1:g}] | {true:g} | {p_h1:.3f} | {pairs:,.0f} |")


def simulated_table(elo0: float, elo1: float, runs: int) -> None:
    print("\n| bounds (nElo) | true nElo | runs | H1 share | mean pairs | 90 % of runs within | Brownian pairs |"
          "\n|---|---:|---:|---:|---:|---:|---:|")
    width = elo1 - elo0
    for true in (elo0 - width, elo0, (elo0 + elo1) / 2, elo1, elo1 + width):
        rng = random.Random(int(true * 100) + 7)
        results = [run_test(with_elo(true, "normalized"), elo0, elo1, "normalized", rng) for _ in range(runs)]
        pairs = sorted(n for _, n in results)
        share = sum(v == "H1" for v, _ in results) / runs
        print(f"| [{elo0:g}, {elo1:g}] | {true:g} | {runs} | {share:.3f} | {statistics.mean(pairs):,.0f} | "
              f"{pairs[int(0.9 * runs) - 1]:,} | {brownian_outcome(true, elo0, elo1)[1]:,.0f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--bounds", default="0,20", help="ELO0,ELO1 of the simulated tests")
    args = parser.parse_args()
    expected_table()
    elo0, elo1 = (float(x) for x in args.bounds.split(","))
    simulated_table(elo0, elo1, args.runs)


if __name__ == "__main__":
    main()
