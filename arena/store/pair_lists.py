"""A ruleset's pair totals as the database lists them: one row per entrant `a`, holding the lists of
its pairs' second entrants, weight shares and score shares, which numpy turns into arrays without a
Python object per pair (`Queries.pair_chunks`, a refit's read of millions of pairs).

SQLite makes the lists as text (`group_concat`), parsed by `np.fromstring`. PostgreSQL sends them
as binary arrays (`array_agg` through a binary cursor), which numpy reads in place: as text,
printing and parsing 17M numbers took ~0.5 s of the server's and ~0.9 s of the client's time
at 1M/10k (BENCHMARKS.md). Rows come a batch ahead (`fetched_ahead`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import psycopg
from numpy.typing import NDArray

from arena.store.pg_arrays import ArrayBytes, unpacked

FETCHED = 64  # entrants' rows fetched at a time


class ListedPair:
    """One entrant's pairs: its number, then its seconds' numbers, weight shares and score shares."""

    def __init__(self, a: int, b: NDArray[np.int64], weight: NDArray[np.int64], score: NDArray[np.int64]) -> None:
        self.a, self.b, self.weight, self.score = a, b, weight, score


def listed_pairs(connection: Any, ruleset: str, sqlite: bool) -> Iterator[ListedPair]:
    """Every entrant's row of the ruleset's pairs with games (weight > 0), in key order, through
    `connection` (a raw DB-API connection the caller closes)."""
    parse: Callable[[Any, str], NDArray[np.int64]]
    if sqlite:
        sql = ("SELECT a, group_concat(b), group_concat(weight_shares), group_concat(score_shares) "
               "FROM pair_stats WHERE ruleset = ? AND weight_shares > 0 GROUP BY a")
        cursor = connection.cursor()
        parse = _from_text
    else:  # a server-side cursor: psycopg's own would hold every row in memory at once
        sql = ("SELECT a, array_agg(b), array_agg(weight_shares), array_agg(score_shares) "
               "FROM pair_stats WHERE ruleset = %s AND weight_shares > 0 GROUP BY a")
        cursor = connection.cursor(name="pair_lists", binary=True)
        for number in ("int4", "int8"):  # their arrays
            cursor.adapters.register_loader(psycopg.postgres.types[number].array_oid, ArrayBytes)
        parse = unpacked
    try:
        cursor.execute(sql, (ruleset,))
        for rows in fetched_ahead(cursor, FETCHED):
            for a, b, weight, score in rows:
                yield ListedPair(int(a), parse(b, ">i4"), parse(weight, ">i8"), parse(score, ">i8"))
    finally:
        cursor.close()


def fetched_ahead(cursor: Any, size: int) -> Iterator[list[Any]]:
    """A cursor's rows `size` at a time, each batch fetched by a thread while the one before is
    used. The driver waits for the database without the GIL (PostgreSQL's server, SQLite's
    `sqlite3_step`), so the database's work and the caller's overlap on two cores: a refit's read
    of 5.7M pairs at 1M/10k was the two one after the other (BENCHMARKS.md)."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="fetched_ahead") as fetcher:
        ahead = fetcher.submit(cursor.fetchmany, size)
        while rows := ahead.result():
            ahead = fetcher.submit(cursor.fetchmany, size)
            yield rows


def _from_text(data: Any, _value: str) -> NDArray[np.int64]:
    """A comma-separated list SQLite made (`group_concat`)."""
    return np.fromstring(data, np.int64, sep=",")
