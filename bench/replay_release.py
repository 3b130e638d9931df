"""What the replay rule costs on a big ladder: `replay_withheld` (arena/store/release.py) per match.

    .venv/bin/python bench/replay_release.py --matches 1000001

Writes N match rows of one ladder (2 rotations a table; rows only, no record or seats: the rule
reads neither) and its planned matches straight into a new SQLite database, the last table half
played (its second rotation planned, not stored), then times `replay_withheld` on an early, a
middle and the last match, 100 times each, and prints the mean per check. The rule reads one
table's rows through the (tournament, match index) keys, so the figure should not grow with N.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from sqlalchemy import text

from arena.store import LADDER_KIND, Store
from arena.store.release import replay_withheld

MATCH = ("INSERT INTO match (id, key, tournament_id, match_index, round, table_no, rotation, game_id, ruleset, "
         "num_players, seed, chance_seed, status, decisions, duration_ms, attempts, node, finished_at) VALUES "
         "(:id, :key, :t, :i, 0, :tab, :r, 'gang_of_dice', 'gang_of_dice@1', 2, 1, 1, 'finished', 0, 0, 1, '', "
         "'2026-01-01')")
PLANNED = ("INSERT INTO ladder_match (tournament_id, match_index, table_no, rotation, seats, seed, chance_seed, why, "
           "planned_at) VALUES (:t, :i, :tab, :r, '[]', 1, 1, 'focus', '2026-01-01')")


def build(store: Store, matches: int) -> int:
    """A ladder of `matches` stored matches (an odd number: the last table has one of its two)."""
    ladder = store.create_tournament("gang_of_dice", "gang_of_dice@1", LADDER_KIND, {"players_per_match": 2}, 0, "big")
    rows = [dict(id=i + 1, key=f"t{ladder}:m{i}", t=ladder, i=i, tab=i // 2, r=i % 2) for i in range(matches)]
    with store.engine.begin() as connection:
        connection.execute(text(MATCH), rows)
        connection.execute(text(PLANNED), [*rows, dict(t=ladder, i=matches, tab=matches // 2, r=1)])
    return ladder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=1_000_001)
    args = parser.parse_args()
    matches = args.matches | 1  # odd: the last table half played
    store = Store(f"sqlite:///{tempfile.mkdtemp()}/big.db")
    started = time.perf_counter()
    build(store, matches)
    print(f"built {matches:,} matches in {time.perf_counter() - started:.0f} s")
    ids = [1, matches // 2, matches]
    started = time.perf_counter()
    for _ in range(100):
        withheld = [replay_withheld(store, match_id) is not None for match_id in ids]
    per_check = (time.perf_counter() - started) / (100 * len(ids))
    print(f"replay_withheld: {per_check * 1e3:.2f} ms per check (matches {ids}: withheld {withheld})")


if __name__ == "__main__":
    main()
