"""The rating fit: the bot-by-bot reference (tests/arena/rating_reference.py, the code before) against
the vectorized fit (arena/rating.py, arena/rating_fit.py), side by side in one run; then the
vectorized fit alone at 1,000,000 and 100,000 matches among 10,000 bots, each with a live update
per 1,000 new matches, and the ladder's choice of the next table at 10,000 bots.

Fields: two-player games between bots drawn at random, won with Elo's probability from strengths
drawn from N(1500, 200). Fit and intervals are timed apart; "totals" is reading the results into
the in-memory pair totals (what Store.pair_totals hands over).

    .venv/bin/python bench/rating_fit.py            # everything (the reference at 100k/1k: minutes)
    .venv/bin/python bench/rating_fit.py --quick    # the reference at 10k/100 only
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ladder.matchmaking import Candidate, Pool, next_table  # noqa: E402
from arena.rating import Results, fit, rating_table  # noqa: E402
from arena.rating_fit import LIVE_TOLERANCE  # noqa: E402
from arena.store import EntrantTotal, PairColumns, PairTotal, RatedMatch  # noqa: E402
from tests.arena import rating_reference as reference  # noqa: E402


def games(bots: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(winner-or-loser a, b, a won) per game."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(1500, 200, bots)
    a = rng.integers(0, bots, count)
    b = (a + rng.integers(1, bots, count)) % bots
    won = rng.random(count) < 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
    return a, b, won


def as_matches(a: np.ndarray, b: np.ndarray, won: np.ndarray) -> list[RatedMatch]:
    return [RatedMatch(i, (1, i), (f"b{x:05d}", f"b{y:05d}"), (1, 2) if w else (2, 1), (0, 0), (False, False))
            for i, (x, y, w) in enumerate(zip(a.tolist(), b.tolist(), won.tolist(), strict=True))]


def as_totals(bots: int, a: np.ndarray, b: np.ndarray, won: np.ndarray) -> tuple[list[PairTotal], list[EntrantTotal]]:
    """The store's totals of these games, aggregated with numpy (as the write-time tables keep them)."""
    low, high = np.minimum(a, b), np.maximum(a, b)
    low_won = np.where(a < b, won, ~won).astype(float)
    pair, index = np.unique(low * bots + high, return_inverse=True)
    weight, score = np.bincount(index), np.bincount(index, low_won)
    pairs = [PairTotal(f"b{p // bots:05d}", f"b{p % bots:05d}", float(w), float(s))
             for p, w, s in zip(pair.tolist(), weight.tolist(), score.tolist(), strict=True)]
    played = np.bincount(a, minlength=bots) + np.bincount(b, minlength=bots)
    wins = np.bincount(np.where(won, a, b), minlength=bots)
    entrants = [EntrantTotal(f"b{i:05d}", int(played[i]), float(wins[i]), 0, 0) for i in range(bots) if played[i]]
    return pairs, entrants


def timed(what: str, action):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    value = action()
    print(f"  {what:<44} {time.perf_counter() - started:8.3f} s", flush=True)
    return value


def side_by_side(bots: int, count: int) -> None:
    print(f"{count:,} matches among {bots:,} bots: reference (bot by bot) vs vectorized")
    matches = as_matches(*games(bots, count, seed=bots))
    started = time.perf_counter()
    ref = reference.rate_matches(matches)
    ref_seconds = time.perf_counter() - started
    print(f"  {'reference: fit + intervals':<44} {ref_seconds:8.3f} s", flush=True)
    results = timed("vectorized: totals from the matches", lambda: _added(matches))
    ratings = timed("vectorized: fit", lambda: fit(results))
    ours = timed("vectorized: intervals (table)", lambda: rating_table(results, ratings))
    theirs = {e.entrant: e for e in ref}
    gap = max(max(abs(e.elo - theirs[e.entrant].elo), abs(e.low - theirs[e.entrant].low),
                  abs(e.high - theirs[e.entrant].high)) for e in ours)
    print(f"  largest difference (rating or interval end): {gap:.5f} Elo")


def _added(matches: list[RatedMatch]) -> Results:
    results = Results()
    for match in matches:
        results.add(match)
    return results


def vectorized_only(bots: int, count: int) -> tuple[Results, dict[str, float]]:
    print(f"{count:,} matches among {bots:,} bots: vectorized only")
    pairs, entrants = timed("totals (numpy aggregate -> PairTotal list)",
                            lambda: as_totals(bots, *games(bots, count, 7)))
    results = Results()
    timed(f"load {len(pairs):,} pair totals", lambda: results.add_totals([PairColumns.of(pairs)], entrants))
    ratings = timed("fit", lambda: fit(results))
    timed("intervals (table)", lambda: rating_table(results, ratings))
    return results, ratings


def live(results: Results, ratings: dict[str, float], batches: int = 5) -> None:
    bots = len(results.names)
    print(f"live update: 1,000 new matches at a time, {bots:,} bots, {results.pairs:,} pairs")
    table = {e.entrant: e for e in rating_table(results, ratings)}
    rng = np.random.default_rng(11)
    spent = []
    for _ in range(batches):
        a, b, won = games(bots, 1000, int(rng.integers(1 << 30)))
        started = time.perf_counter()
        batch = as_matches(a, b, won)
        for match in batch:
            results.add(match)
        ratings = fit(results, ratings, LIVE_TOLERANCE)  # as arena.rating.LiveRate between exact rerates
        played = {e for m in batch for e in m.entrants}
        table = {e.entrant: e for e in rating_table(results, ratings, table, played)}
        spent.append(time.perf_counter() - started)
    print(f"  {'add + warm refit + intervals of who played':<44} {1000 * float(np.median(spent)):8.1f} ms (median)")


def next_tables(bots: int, players: int, tables: int = 1000) -> None:
    rng = random.Random(3)
    field = []
    for i in range(bots):
        elo, played = rng.gauss(1500, 200), rng.randint(10, 500)
        half = 680 / math.sqrt(played)
        field.append(Candidate(f"b{i}@1", f"o{i}", elo, elo - half, elo + half, played))
    pool = timed(f"next table: Pool of {bots:,} candidates (built once)", lambda: Pool(field))
    started = time.perf_counter()
    for _ in range(tables):
        table = next_table(pool, players, rng)
        assert table is not None
        pool.seat(table)
    mean = (time.perf_counter() - started) / tables
    print(f"  {f'next table of {players} + seat, mean of {tables}':<44} {1000 * mean:8.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the reference at 10k matches / 100 bots only")
    args = parser.parse_args()
    side_by_side(100, 10_000)
    if not args.quick:
        side_by_side(1000, 100_000)
    results, ratings = vectorized_only(10_000, 1_000_000)
    live(results, ratings)
    results, ratings = vectorized_only(10_000, 100_000)
    live(results, ratings)
    next_tables(10_000, 2)
    next_tables(10_000, 4)


if __name__ == "__main__":
    main()
