"""How fast the dashboard's pages and API answer on a database with thousands of real matches.

    .venv/bin/python bench/dashboard_pages.py --matches 3000          # builds the database first
    .venv/bin/python bench/dashboard_pages.py --db sqlite:///big.db    # an existing database

Builds the database with the real tournament driver (in-process executor): Lost Cities: Rivals,
two players, eight entrants (heuristic and seven random), as many rounds as reach --matches.
Then requests every page and endpoint through the ASGI app (Starlette's TestClient: routing,
queries, templates and JSON; no network) and prints the median and worst of --repeat requests.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from arena.match.executor import LocalExecutor
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from dashboards.app import create_app

ENTRANTS = ("heuristic", *(f"random#{i}" for i in range(1, 8)))


def build(url: str, matches: int) -> None:
    per_round = len(ENTRANTS) * (len(ENTRANTS) - 1)  # 28 tables, 2 seat rotations each
    config = TournamentConfig(game_id="lost_cities_rivals", players_per_match=2, entrants=ENTRANTS,
                              rounds=max(1, -(-matches // per_round)), seed=7)
    store = Store(url)
    started = time.perf_counter()
    play_tournament(store, start_tournament(store, config, "bench"), LocalExecutor())
    print(f"built {store.count_matches()} matches in {time.perf_counter() - started:.0f} s")


def paths(store: Store) -> list[str]:
    total = store.count_matches()
    last = store.matches(limit=1, offset=total - 1)[0].id
    ruleset = store.rulesets()[0]
    return [
        "/leaderboard", f"/api/leaderboard?ruleset={ruleset}", f"/api/rating-history?ruleset={ruleset}",
        f"/head-to-head?ruleset={ruleset}&a=heuristic&b=random%231", "/matches", f"/matches?page={total // 50}",
        "/api/matches?bot=heuristic&page=3", "/api/matches?termination=any_fault", "/tournaments/1",
        "/bots", "/bots/heuristic", f"/matches/{last}", f"/api/matches/{last}/frames/100?view=0",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="an existing database (default: build one in a temporary folder)")
    parser.add_argument("--matches", type=int, default=3000, help="matches to build (default 3000)")
    parser.add_argument("--repeat", type=int, default=7, help="requests per page (default 7)")
    args = parser.parse_args()
    url = args.db
    if url is None:
        url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.db'}"
        build(url, args.matches)
    store = Store(url)
    print(f"{store.count_matches()} matches in {url}")
    with TestClient(create_app(store)) as client:
        for path in paths(store):
            times = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                response = client.get(path)
                times.append(1000 * (time.perf_counter() - started))
                assert response.status_code == 200, (path, response.text[:200])
            print(f"{statistics.median(times):8.1f} ms median {max(times):8.1f} ms worst  "
                  f"{len(response.content):>8} B  {path}")


if __name__ == "__main__":
    main()
