"""The ladder driver's next table at 10,000 bots: its Pool kept between tables against one built per table.

    .venv/bin/python bench/ladder_next_table.py [--bots 10000] [--players 2] [--rounds 20] [--tables 50]

A Ladder (arena/ladder/driver.py) on a SQLite store in a temporary folder is given a rated field of
`--bots` bots (its ratings as a refit leaves them), then, in alternating blocks of `--tables`
tables (A/B in one process, so both see the same machine load), plans tables as:

- kept: the driver's own per-table work: `_pool()` (the kept Pool), `next_table`, `Pool.seat`, and
  each of the table's k matches counted pending (`_count_pending`), as `_plan_table` does;
- rebuilt: what it did before: the Candidate list, a Pool built from it inside `next_table`, the
  tables waited counted over the field in Python, the pending matches in the dict.

Neither writes the planned matches to the store (the same for both). Prints the median and the
fastest time per table of each, and what one rebuild (a refit or a change of the field) costs.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ladder.driver import Ladder, open_ladder  # noqa: E402
from arena.ladder.field import LadderConfig, Member  # noqa: E402
from arena.ladder.matchmaking import Pool, next_table  # noqa: E402
from arena.match.executor import LocalExecutor  # noqa: E402
from arena.store import RatingEntry, Store  # noqa: E402


def rated_ladder(store: Store, ladder_id: int, bots: int) -> Ladder:
    """A Ladder whose field is `bots` rated bots of distinct owners, its ratings fitted (no refit due)."""
    ladder = Ladder(store, ladder_id, LocalExecutor())
    rng = random.Random(3)
    ladder.field, ladder.entries = [], {}
    for i in range(bots):
        elo, played = rng.gauss(1500, 200), rng.randint(10, 500)
        half = 680 / math.sqrt(played)
        ladder.field.append(Member(f"b{i}@1", f"o{i}"))
        ladder.entries[f"b{i}@1"] = RatingEntry(f"b{i}@1", elo, elo - half, elo + half, played, played / 2, 0, 0)
    ladder.dirty = False
    return ladder


def kept(ladder: Ladder, players: int) -> None:
    pool = ladder._pool()
    table = next_table(pool, players, ladder.rng)
    assert table is not None
    pool.seat(table, matches=0)
    for _ in range(players):
        ladder._count_pending(table.seats, 1)


def rebuilt(ladder: Ladder, players: int) -> None:
    table = next_table(ladder._candidates(), players, ladder.rng)
    assert table is not None
    for member in ladder.field:
        ladder.waited[member.entrant] = 0 if member.entrant in table.seats else ladder.waited[member.entrant] + 1
    for _ in range(players):
        for entrant in table.seats:
            ladder.pending[entrant] += 1


def per_table(plan: Callable[[Ladder, int], None], ladder: Ladder, players: int, tables: int) -> float:
    started = time.perf_counter()
    for _ in range(tables):
        plan(ladder, players)
    return (time.perf_counter() - started) / tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=20, help="A/B blocks of each")
    parser.add_argument("--tables", type=int, default=50, help="tables per block")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{Path(folder) / 'arena.db'}")
        ladder_id = open_ladder(store, LadderConfig("gang_of_dice", args.players, ("random",)))
        ladders = {name: rated_ladder(store, ladder_id, args.bots) for name in ("kept", "rebuilt")}
        plans = {"kept": kept, "rebuilt": rebuilt}
        spent: dict[str, list[float]] = {name: [] for name in plans}
        for _ in range(args.rounds):
            for name, plan in plans.items():
                spent[name].append(per_table(plan, ladders[name], args.players, args.tables))
        builds = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            Pool(ladders["kept"]._candidates())
            builds.append(time.perf_counter() - started)
    print(f"next table at {args.bots:,} bots, {args.players} per table, "
          f"{args.rounds} blocks of {args.tables} tables each")
    for name, times in spent.items():
        print(f"  {name:<8} {1000 * statistics.median(times):8.2f} ms median per table "
              f"({1000 * min(times):.2f} fastest block)")
    print(f"  one rebuild (Candidates + Pool) {1000 * statistics.median(builds):8.2f} ms median")


if __name__ == "__main__":
    main()
