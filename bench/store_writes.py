"""How fast `Store.record_matches` writes, and how many bytes a stored match costs, per source tree.

Real 4-player Riga records (built-in bots, played once up front) are written as a ladder writes
them: batches of `--batch` results, 40 entrants, fresh keys, into a fresh database. Each tree
given by `--tree` (default: this one) runs in its own process with that tree's `arena`, so an
anchor (e.g. `git worktree add /tmp/anchor main`) and this tree are measured side by side in one
run. Matches per second are wall time (what a loaded machine gives) and per CPU second of the
writing process (what the writer's own work allows; PostgreSQL's server works besides). Bytes per
match: the SQLite file (after a checkpoint) or the PostgreSQL database's growth, divided by the
matches written: rows and indexes included. In a tree whose workers encode the records (arena/
record_encoding.py) each result reaches the writer encoded, as the driver hands it over, made
outside the clock; in an older tree the writer encodes. "Less encoding": the wall rate with
the time to encode the records (measured apart, the anchor's json.dumps) taken out: what writers
on several nodes share, each encoding its own records.

Usage:
    .venv/bin/python bench/store_writes.py [--tree /tmp/anchor --tree .] [--matches 20000] [--batch 100] [--bots 40]
        [--db sqlite] [--db postgresql+psycopg://postgres@127.0.0.1:54329/postgres]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ENTRANTS = [f"bot{n}" for n in range(40)]  # --bots: how many entrants the matches are drawn among


def play_records(count: int, path: Path) -> None:
    """`count` real 4-player Riga records (as the driver stores them: the bots' logs moved out)."""
    from arena.match.record import split_logs
    from arena.match.runner import run_match

    with path.open("w") as out:
        for n in range(count):
            record = run_match("riga", ["heuristic", "random", "heuristic", "random"], 7_000 + n).to_json()
            out.write(json.dumps(split_logs(record)[0]) + "\n")


def worker_encoding() -> Any:
    """This tree's encoder when the workers that play the matches encode them (the writer only
    inserts: arena/record_encoding.py, issue #33), else None (the writer encodes)."""
    try:
        from arena.record_encoding import encode_record
    except ImportError:
        return None
    return encode_record


def results(records: list[dict[str, Any]], tournament_id: int, start: int, count: int) -> list[Any]:
    """A batch of results as the driver hands them to the writer: with each record encoded, as the
    worker that played it did, in a tree where workers encode."""
    from arena.store import MatchResult, SeatResult

    encode = worker_encoding()
    draw = random.Random(start)
    batch = []
    for index in range(start, start + count):
        record = records[index % len(records)]
        entrants = [ENTRANTS[(index * 7 + seat * 11) % len(ENTRANTS)] for seat in range(4)]
        if len(ENTRANTS) > 40:  # a large field: four entrants drawn at random (seeded), as a ladder's tables
            entrants = draw.sample(ENTRANTS, 4)
        seats = [SeatResult(seat, name, name, score=record["returns"][seat], rank=record["ranks"][seat])
                 for seat, name in enumerate(entrants)]
        encoded = {} if encode is None else {"encoded_record": encode(record)}
        batch.append(MatchResult(tournament_id, index, 0, index // 4, index % 4, "riga", record["ruleset"],
                                 record["seed"], record["seed"], seats, record, decisions=100, duration_ms=50.0,
                                 **encoded))
    return batch


def child(url: str, records_path: Path, matches: int, batch: int, bots: int) -> None:
    """Write the matches with this tree's Store; print what it measured as one JSON line."""
    from arena.store import Store

    ENTRANTS[:] = [f"bot{n}" for n in range(bots)]
    records = [json.loads(line) for line in records_path.open()]
    store = Store(url)
    before = database_bytes(store)
    tid = store.create_tournament("riga", records[0]["ruleset"], "ladder", {}, 0, "bench")
    elapsed = cpu = 0.0
    for start in range(0, matches, batch):
        rows = results(records, tid, start, min(batch, matches - start))  # built outside the clock
        started, cpu_started = time.perf_counter(), time.process_time()
        store.record_matches(rows)
        elapsed += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
    size = database_bytes(store) - before
    encode = 0.0 if worker_encoding() else encoding_seconds(records, matches)  # the workers' time is not the writer's
    text = sum(len(json.dumps(r)) for r in records) / len(records)
    print(json.dumps({"encoded_by": "workers" if worker_encoding() else "writer",
                      "per_second": matches / elapsed, "per_cpu_second": matches / cpu, "bytes": size / matches,
                      "record_text": text, "without_encoding": matches / max(elapsed - encode, 1e-9)}))


def encoding_seconds(records: list[dict[str, Any]], matches: int) -> float:
    """What turning `matches` records into their stored form costs (the anchor's: json.dumps):
    work each writer does on its own, before the transaction that writers share."""
    try:
        from arena.store.record_codec import encode_record
    except ImportError:
        encode_record = json.dumps  # type: ignore[assignment]
    started = time.perf_counter()
    for n in range(matches):
        encode_record(records[n % len(records)])
    return time.perf_counter() - started


def database_bytes(store: Any) -> int:
    from sqlalchemy import text

    with store.engine.begin() as connection:
        if store.engine.dialect.name == "sqlite":
            connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
            pages = connection.execute(text("PRAGMA page_count")).scalar()
            return int(pages) * int(connection.execute(text("PRAGMA page_size")).scalar())
        return int(connection.execute(text("SELECT pg_database_size(current_database())")).scalar())


def fresh_url(db: str, folder: Path, n: int) -> str:
    if db == "sqlite":
        return f"sqlite:///{folder / f'bench{n}.db'}"
    import psycopg

    name = f"bench_store_writes_{os.getpid()}_{n}"
    plain = db.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return db.rsplit("/", 1)[0] + "/" + name


def measure(tree: Path, url: str, records: Path, args: argparse.Namespace) -> dict[str, float]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", url, "--records", str(records),
               "--matches", str(args.matches), "--batch", str(args.batch), "--bots", str(args.bots)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    output = subprocess.run(command, cwd=tree, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", type=Path, help="a source tree to measure (repeatable)")
    parser.add_argument("--db", action="append", help="'sqlite' or a PostgreSQL server URL (repeatable)")
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=100, help="results per record_matches call")
    parser.add_argument("--bots", type=int, default=40, help="entrants; past 40, each table drawn at random")
    parser.add_argument("--pool", type=int, default=40, help="distinct records played up front")
    parser.add_argument("--records", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.records, args.matches, args.batch, args.bots)
        return
    trees, dbs = args.tree or [ROOT], args.db or ["sqlite"]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        play_records(args.pool, folder / "records.jsonl")
        print(f"{args.matches:,} 4-player Riga matches among {args.bots:,} bots in batches of {args.batch}, "
              f"{args.pool} distinct records")
        print("| database | tree | records encoded by | matches/s (wall) | matches per CPU s of the writer "
              "| bytes per match (rows + indexes) | record text bytes | matches/s less encoding |")
        print("|---|---|---|---|---|---|---|---|")
        for n, (db, tree) in enumerate((db, tree) for db in dbs for tree in trees):
            got = measure(tree.resolve(), fresh_url(db, folder, n), folder / "records.jsonl", args)
            where = "SQLite" if db == "sqlite" else "PostgreSQL"
            print(f"| {where} | {tree} | {got['encoded_by']} | {got['per_second']:,.0f}"
                  f" | {got['per_cpu_second']:,.0f} | {got['bytes']:,.0f} "
                  f"| {got['record_text']:,.0f} | {got['without_encoding']:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
