"""`fetched_ahead` (arena/store/pair_lists.py): a cursor's rows in batches, each fetched by a thread
while the caller uses the one before (a refit's read of the pairs), gives every row once, in order."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from arena.store.pair_lists import fetched_ahead


def numbers_cursor(tmp_path: Path, count: int) -> sqlite3.Cursor:
    connection = sqlite3.connect(tmp_path / "numbers.db", check_same_thread=False)
    connection.execute("CREATE TABLE numbers (n INTEGER PRIMARY KEY)")
    connection.executemany("INSERT INTO numbers VALUES (?)", [(n,) for n in range(count)])
    return connection.execute("SELECT n FROM numbers ORDER BY n")


def test_every_row_comes_once_in_order_in_batches(tmp_path: Path) -> None:
    batches = list(fetched_ahead(numbers_cursor(tmp_path, 1000), 64))
    assert [len(batch) for batch in batches] == [64] * 15 + [40]
    assert [n for batch in batches for (n,) in batch] == list(range(1000))


def test_no_rows_no_batch(tmp_path: Path) -> None:
    assert list(fetched_ahead(numbers_cursor(tmp_path, 0), 64)) == []


def test_the_next_batch_is_fetched_by_another_thread_while_this_one_is_used(tmp_path: Path) -> None:
    cursor = numbers_cursor(tmp_path, 300)
    fetchers: list[str] = []

    class Watched:
        def fetchmany(self, size: int) -> list[tuple[int]]:
            fetchers.append(threading.current_thread().name)
            return cursor.fetchmany(size)

    for _ in fetched_ahead(Watched(), 100):
        pass
    assert len(fetchers) == 4  # three batches and the empty one that ends them
    assert all(name.startswith("fetched_ahead") for name in fetchers)


def test_a_caller_that_stops_early_leaves_no_fetch_running(tmp_path: Path) -> None:
    cursor = numbers_cursor(tmp_path, 1000)
    batches = fetched_ahead(cursor, 64)
    assert [n for (n,) in next(batches)] == list(range(64))
    batches.close()  # the batch fetched ahead is waited for: the cursor is free to close
    assert not [thread for thread in threading.enumerate() if thread.name.startswith("fetched_ahead")]
    assert cursor.fetchone() == (128,)
