"""How fast the dashboard's pages answer on a big database: synthetic 4-player Riga matches.

    .venv/bin/python bench/pages_scale.py build --db sqlite:////tmp/big.db --matches 100000 --bots 1000
    .venv/bin/python bench/pages_scale.py measure --db sqlite:////tmp/big.db

build: N matches of 4 of B entrants (`random#1`...), written with `Store.record_matches` in
  batches of 500, 1,000 matches per tournament (finished, so replays show), every match with the
  record of one real Riga match (so a match page replays); ranks drawn at random, 1 % of seats
  time out with a strike, 0.5 % of matches abort. Ratings are written, not fitted: random Elo and
  the history's 200 points per entrant (a fit at this size is the ratings' benchmark, not this one).
measure: opens the database (which runs any pending migration: its time is printed), then requests
  each page through the dashboard's Starlette app (TestClient: routing, queries, templates, JSON;
  no network), 3 times each, and prints the median. `/matches/ID` is measured on 3 matches not
  yet replayed, then on one that is (the replay cache).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from starlette.testclient import TestClient

from arena.match.executor import MatchJob, play_job
from arena.store import MatchResult, RatingEntry, SeatResult, Store
from dashboards.app import create_app

PER_TOURNAMENT = 1000


def riga_record() -> dict[str, Any]:
    outcome = play_job(MatchJob.for_game("riga", key=(0, 0), bots=("random",) * 4, seed=1, chance_seed=1))
    assert outcome.record is not None, outcome.error
    return outcome.record


def synthetic(rng: random.Random, tid: int, index: int, bots: list[str], record: dict[str, Any]) -> MatchResult:
    seated = rng.sample(bots, 4)
    aborted = rng.random() < 0.005
    ranks = [rng.randint(1, 4) for _ in seated]
    seats = []
    for i, name in enumerate(seated):
        faulted = rng.random() < 0.01
        seats.append(SeatResult(i, name, "random", score=float(5 - ranks[i]), rank=None if aborted else ranks[i],
                                termination="timeout" if faulted else "normal", faults=int(faulted)))
    return MatchResult(tid, index, 0, index // 4, index % 4, "riga", record["ruleset"], index, index // 4, seats,
                       record, aborted_reason="bench" if aborted else None, decisions=40)


def build(args: argparse.Namespace) -> None:
    store, rng, record = Store(args.db), random.Random(7), riga_record()
    bots = [f"random#{i}" for i in range(1, args.bots + 1)]
    started = time.perf_counter()
    for first in range(0, args.matches, PER_TOURNAMENT):
        count = min(PER_TOURNAMENT, args.matches - first)
        tid = store.create_tournament("riga", record["ruleset"], "round_robin", {"entrants": bots[:8]}, count)
        results = [synthetic(rng, tid, i, bots, record) for i in range(count)]
        for start in range(0, count, 500):
            store.record_matches(results[start:start + 500])
        store.set_tournament_status(tid, "finished")
    print(f"stored {args.matches} matches in {time.perf_counter() - started:.0f} s")
    ids = [m.id for m in store.matches(limit=200)]
    entries = [RatingEntry(b, rng.gauss(1500, 200), 0.0, 0.0, 0, 0.0, 0, 0) for b in bots]
    entries = [RatingEntry(e.entrant, e.elo, e.elo - 60, e.elo + 60, 400, 100.0, 4, 1) for e in entries]
    history = [(p, ids[p], e.entrant, e.elo) for p in range(200) for e in entries]
    store.replace_ratings(record["ruleset"], "riga", entries, history)


def paths(store: Store) -> list[str]:
    ruleset = store.rulesets()[0]
    board = store.leaderboard(ruleset, limit=2)
    a, b = (row.entrant.replace("#", "%23") for row in board)
    return [
        "/leaderboard", f"/api/leaderboard?ruleset={ruleset}", f"/api/rating-history?ruleset={ruleset}",
        f"/head-to-head?ruleset={ruleset}&a={a}&b={b}", f"/api/head-to-head?ruleset={ruleset}&a={a}&b={b}",
        "/matches", "/api/matches?page=3", f"/api/matches?bot={a}", "/api/matches?termination=any_fault",
        "/bots", f"/bots/{a}", f"/api/bots/{a}", "/tournaments", "/api/games",
    ]


def timed(client: TestClient, path: str) -> float:
    started = time.perf_counter()
    response = client.get(path)
    assert response.status_code == 200, (path, response.text[:300])
    return 1000 * (time.perf_counter() - started)


def measure(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    store = Store(args.db)
    print(f"opened (migrations included) in {time.perf_counter() - started:.1f} s")
    with TestClient(create_app(store)) as client:
        for path in paths(store):
            times = [timed(client, path) for _ in range(3)]
            print(f"{statistics.median(times):9.1f} ms  {path}")
        ids = [m.id for m in store.matches(limit=3, offset=1000)]
        fresh = [timed(client, f"/matches/{i}") for i in ids]
        print(f"{statistics.median(fresh):9.1f} ms  /matches/ID (not replayed yet)")
        again = [timed(client, f"/matches/{ids[0]}") for _ in range(3)]
        print(f"{statistics.median(again):9.1f} ms  /matches/ID (replayed before)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("build", "measure"))
    parser.add_argument("--db", required=True, help="the database URL")
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=1000)
    args = parser.parse_args()
    build(args) if args.what == "build" else measure(args)


if __name__ == "__main__":
    main()
