"""How many matches the ladder's matchmaking needs against uniform random tables and a round robin.

A simulated field of FIELD bots with hidden true Elo (drawn from a normal distribution, sd 250):
each match's result is drawn from Elo's model (no engine), so thousands of matches take
seconds. The order is checked every CHECK_TABLES tables (20 matches), the newcomer every 2 tables.
Two-player tables, each played in both seat rotations (2 matches), as the ladder does.
Every strategy rates with the real fit (arena/rating.py, the leaderboard's); the ladder picks
its tables with the real rule (arena/ladder/matchmaking.py), from ratings refitted every
REFIT_TABLES tables (about the tables a 2-core ladder has in flight).

- order: matches from an empty field until the fitted order reaches Kendall tau >= 0.9 against
  the true order (checked after every table);
- newcomer: a field settled by SETTLE random matches gets one more bot (true Elo drawn the same
  way); matches (of the whole field) until its rating, against the field's, is within 50 of the
  truth and its 95 % interval narrower than ±100 (not provisional).

Usage: .venv/bin/python bench/ladder_convergence.py [--seeds 20] [--jobs 2] [--strategies ladder]
"""

from __future__ import annotations

import argparse
import itertools
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable, Iterator

from arena.ladder.matchmaking import Candidate, Pool, next_table
from arena.rating import Results, fit, rating_table
from arena.store import RatedMatch
from arena.store.records import PROVISIONAL_HALF_WIDTH

FIELD = 30
SETTLE = 3000  # matches that settle the field before the newcomer joins
REFIT_TABLES = 8
CHECK_TABLES = 10  # the order is checked every CHECK_TABLES tables (20 matches), the newcomer every 2
LIMIT = 20_000  # matches before a run gives up (reported as ">")
TAU = 0.9
CLOSE = 50.0

Strategy = Callable[[list[str], "Sim", random.Random], Iterator[tuple[str, str]]]


class Sim:
    """A simulated ladder: hidden true ratings, results drawn from Elo's model, the real fit."""

    def __init__(self, true: dict[str, float], rng: random.Random) -> None:
        self.true, self.rng = true, rng
        self.results = Results()
        self.matches = 0
        self.ratings: dict[str, float] = {}
        self.waited: dict[str, int] = {name: 0 for name in true}

    def play_table(self, a: str, b: str) -> None:
        for first, second in ((a, b), (b, a)):  # both seat rotations
            p = 1 / (1 + 10 ** ((self.true[second] - self.true[first]) / 400))
            ranks = (1, 2) if self.rng.random() < p else (2, 1)
            self.results.add(RatedMatch(self.matches, (1, self.matches), (first, second), ranks, (0, 0),
                                        (False, False)))
            self.matches += 1
        for name in self.waited:
            self.waited[name] = 0 if name in (a, b) else self.waited[name] + 1

    def refit(self) -> dict[str, float]:
        self.ratings = fit(self.results, self.ratings or None)
        return self.ratings


def uniform(field: list[str], sim: Sim, rng: random.Random) -> Iterator[tuple[str, str]]:
    while True:
        a, b = rng.sample(field, 2)
        yield a, b


def round_robin(field: list[str], sim: Sim, rng: random.Random) -> Iterator[tuple[str, str]]:
    while True:
        pairs = list(itertools.combinations(field, 2))
        rng.shuffle(pairs)
        yield from pairs


def ladder(field: list[str], sim: Sim, rng: random.Random) -> Iterator[tuple[str, str]]:
    """The real rule on a Pool rebuilt at each refit and seated in between, as the driver counts
    the matches planned since (pending) and the tables waited."""
    entries: dict[str, Candidate] = {}
    pool = Pool([_candidate(name, None, sim) for name in field])
    for table_no in itertools.count():
        if table_no % REFIT_TABLES == 0 and sim.results.games:
            sim.refit()
            entries = {e.entrant: e for e in rating_table(sim.results, sim.ratings)}
            pool = Pool([_candidate(name, entries.get(name), sim) for name in field])
        table = next_table(pool, 2, rng)
        assert table is not None
        pool.seat(table)
        yield table.seats[0], table.seats[1]


def _candidate(name: str, entry: object, sim: Sim) -> Candidate:
    if entry is None:
        return Candidate(name, name, waited=sim.waited[name])
    return Candidate(name, name, entry.elo, entry.low, entry.high, entry.games,  # type: ignore[attr-defined]
                     waited=sim.waited[name])


STRATEGIES: dict[str, Strategy] = {"ladder": ladder, "uniform random": uniform, "round robin": round_robin}


def kendall_tau(true: dict[str, float], fitted: dict[str, float]) -> float:
    names = list(true)
    score = 0
    for a, b in itertools.combinations(names, 2):
        product = (true[a] - true[b]) * (fitted.get(a, 1500.0) - fitted.get(b, 1500.0))
        score += 1 if product > 0 else -1 if product < 0 else 0
    return score / math.comb(len(names), 2)


def true_field(rng: random.Random, size: int) -> dict[str, float]:
    return {f"bot{i:02d}": rng.gauss(1500, 250) for i in range(size)}


def matches_to_order(strategy: Strategy, seed: int) -> int:
    rng = random.Random(seed)
    true = true_field(rng, FIELD)
    sim = Sim(true, random.Random(seed + 1))
    tables = strategy(list(true), sim, random.Random(seed + 2))
    while sim.matches < LIMIT:
        sim.play_table(*next(tables))
        if sim.matches % (2 * CHECK_TABLES) == 0 and kendall_tau(true, sim.refit()) >= TAU:
            return sim.matches
    return LIMIT


def matches_to_place(strategy: Strategy, seed: int) -> int:
    rng = random.Random(seed)
    true = true_field(rng, FIELD + 1)
    newcomer = max(true)
    sim = Sim({n: r for n, r in true.items() if n != newcomer}, random.Random(seed + 1))
    settle = uniform(list(sim.true), sim, random.Random(seed + 3))
    while sim.matches < SETTLE:
        sim.play_table(*next(settle))
    sim.true[newcomer], sim.waited[newcomer] = true[newcomer], 0
    start = sim.matches
    tables = strategy(list(true), sim, random.Random(seed + 2))
    while sim.matches - start < LIMIT:
        sim.play_table(*next(tables))
        if sim.matches % 4 == 0 and _placed(sim, newcomer):
            return sim.matches - start
    return LIMIT


def _placed(sim: Sim, newcomer: str) -> bool:
    if newcomer not in sim.results.games:
        return False
    ratings = sim.refit()
    field = [n for n in ratings if n != newcomer]
    offset = statistics.fmean(ratings[n] - sim.true[n] for n in field)
    if abs(ratings[newcomer] - offset - sim.true[newcomer]) > CLOSE:
        return False
    entry = next(e for e in rating_table(sim.results, ratings) if e.entrant == newcomer)
    return (entry.high - entry.low) / 2 < PROVISIONAL_HALF_WIDTH


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1, help="seeds played at once, in child processes")
    parser.add_argument("--strategies", default=",".join(STRATEGIES),
                        help=f"comma-separated, of: {', '.join(STRATEGIES)} (uniform random is the anchor)")
    args = parser.parse_args()
    started = time.perf_counter()
    figures: dict[str, tuple[list[int], list[int]]] = {}
    seeds = list(range(1, args.seeds + 1))
    with multiprocessing.get_context("fork").Pool(args.jobs) as workers:
        for name in dict.fromkeys([*args.strategies.split(","), "uniform random"]):
            if name not in STRATEGIES:
                parser.error(f"unknown strategy {name!r}: valid are {', '.join(STRATEGIES)}")
            order = workers.starmap(_order, [(name, s) for s in seeds])
            new = workers.starmap(_place, [(name, s) for s in seeds])
            figures[name] = (order, new)
    print(f"{FIELD} bots, true Elo ~ N(1500, 250), {args.seeds} seeds; median (min-max) matches\n")
    print("| strategy | to Kendall tau >= 0.9 | newcomer within 50, ±100 | vs uniform random |\n|---|---:|---:|---:|")
    base_order, base_new = (statistics.median(v) for v in figures["uniform random"])
    for name, (order, new) in figures.items():
        ratio = f"{statistics.median(order) / base_order:.2f} / {statistics.median(new) / base_new:.2f}"
        print(f"| {name} | {_spread(order)} | {_spread(new)} | {ratio} |")
    print(f"\n({time.perf_counter() - started:.1f} s)")


def _order(strategy: str, seed: int) -> int:
    return matches_to_order(STRATEGIES[strategy], seed)


def _place(strategy: str, seed: int) -> int:
    return matches_to_place(STRATEGIES[strategy], seed)


def _spread(values: list[int]) -> str:
    def shown(v: float) -> str:
        return f">{LIMIT:,}" if v >= LIMIT else f"{v:,.0f}"
    return f"{shown(statistics.median(values))} ({shown(min(values))}-{shown(max(values))})"


if __name__ == "__main__":
    main()
