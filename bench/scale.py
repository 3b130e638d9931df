"""Issue #33's benchmark: every rating and page at ladder scale, on SQLite and PostgreSQL.

    .venv/bin/python bench/scale.py --sizes 100k/1k,1M/10k --backend both [--cap 120]
    .venv/bin/python bench/scale.py --sizes 500/20 --backend sqlite --templates 20   # the smoke test's

Per size MATCHES/BOTS it builds a fresh history (bench/scale_history.py: real Riga records reused
with other entrants, seeds and keys, written through `Store.record_matches` in batches of --batch),
then measures through the public interfaces only:

- bytes per stored match: the database's size on disk over its matches;
- matches written per second: `Store.record_matches`, the history's big batches (the build's own
  rate, kept with the history), and 1,000 new matches in the driver's small batches (100) onto the
  full database, three times (median and slowest) after a first 1,000 reported apart (the first
  writes after opening a big history read their index pages from disk);
- a full refit (`arena.rating.rerate`, what `arena tournament` and `arena leaderboard --rerate` run);
- a live update after 1,000 new matches more (the drivers' `LiveRerate.maybe`, made due at once;
  median and worst of up to 5), and the exact one a live rerate makes every EXACT_EVERY;
- every GET route of the dashboard's Starlette app (TestClient, real ids; median and worst of
  --repeat requests), the author pages apart (they need a signed-in author and the gateway);
- `arena leaderboard --ruleset riga@1` in this process (`arena.cli.main`, output discarded);
- the ladder's choice of the next table (`arena.ladder.matchmaking.next_table`) on the rated field.

`--keep FOLDER` keeps each history built (SQLite: FOLDER/sqlite-SIZE.db; PostgreSQL: a database in
the server's data folder FOLDER/postgres, stopped at the end) with a description beside it
(FOLDER/NAME.json); `--reuse FILE.json` measures such a kept history again (PostgreSQL: its server
started again on its kept folder, on a new free port) instead of building
one (the write rate of its build is the kept one; each run adds its ~9,000 new matches to it): a
1M/10k history took ~30 minutes to build at load 8-23 (BENCHMARKS.md), its pages a few minutes.

Each measurement runs in a forked child and is stopped at --cap seconds ("> cap" in the table),
so today's slow parts do not stop the run. A refit that hit the cap leaves no ratings, so the pages
would show an unrated field: the bench then stores each bot's hidden strength as its rating (marked
in the output) so that the pages are measured on a rated field all the same.

The table has one row per measurement and one column per size, the aim beside (the aims are set
at 1M/10k), and a last column extrapolated to 10M matches / 10k bots: each number carried on from
the last two sizes as a power of the match count, t(10M) = t(b) × (t(b) / t(a)) ** (log(10M / b) /
log(b / a)), with no fall in a time (nor rise in a rate) taken as a trend; when the last two
sizes differ in bots too, this lumps the bots' growth with the
matches' and overstates what 10k bots cost at 10M.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import math
import multiprocessing
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import scale_history  # noqa: E402
from scale_history import RULESET, History  # noqa: E402
from sqlalchemy import text  # noqa: E402
from starlette.routing import Route  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from arena.cli import main as arena_main  # noqa: E402
from arena.ladder.matchmaking import Candidate, Pool, next_table  # noqa: E402
from arena.rating import EXACT_EVERY, rerate  # noqa: E402
from arena.record_encoding import encode_record  # noqa: E402
from arena.store import RatingEntry, Store  # noqa: E402
from arena.tournament.driver import LiveRerate  # noqa: E402
from dashboards.app import create_app  # noqa: E402

Cell = float | tuple[float, float] | str  # seconds (or a rate, or bytes); (median, worst); a note
NEW_MATCHES, SMALL_BATCH, SMALL_ROUNDS = 1000, 100, 3
SMALL_WRITTEN = (1 + SMALL_ROUNDS) * NEW_MATCHES  # measure_small_writes' matches: a first round, then the timed ones
FIRST_SMALL = "write, batches of 100, the first 1,000 after opening"  # that first round's row
AIMS = {  # at 1M matches / 10k bots (issue #33)
    "bytes per match": "≤ 3 kB", "write, big batches": "≥ 2,000/s", "write, batches of 100": "≥ 2,000/s",
    "refit with intervals (rerate)": "≤ 10 s", "live update after 1,000 new": "≤ 100 ms",
    "arena leaderboard": "≤ 50 ms", "next table (whole field)": "≤ 1 ms",
}
PAGE_AIM = "≤ 100 ms median"
RATES = {"write, big batches", "write, batches of 100", FIRST_SMALL}


# -- running a measurement with a cap ---------------------------------------------------------


def capped(cap: float, rows: list[str], measure: Callable[..., None], *args: Any) -> dict[str, Cell]:
    """Run `measure(report, *args)` in a forked child; it calls report(row, cell) per row. A row not
    reported within `cap` seconds of the previous one is "> cap"; the child is then killed."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, measure, args))
    child.start()
    send.close()
    cells: dict[str, Cell] = {}
    try:
        while receive.poll(cap):
            try:
                row, cell = receive.recv()
            except EOFError:
                break
            if row == "!error":
                raise RuntimeError(f"{measure.__name__} failed in its child:\n{cell}")
            cells[row] = cell
    finally:
        child.kill()  # past the cap, or this process is stopping: never leave it running
        child.join()
    return {row: cells.get(row, f"> {cap:g} s") for row in rows}


def _child(send: Any, measure: Callable[..., None], args: tuple[Any, ...]) -> None:
    try:
        measure(lambda row, cell: send.send((row, cell)), *args)
    except BaseException:  # noqa: BLE001 - the parent says what failed
        send.send(("!error", traceback.format_exc()))
    finally:
        send.close()


def timed(action: Callable[[], object]) -> float:
    began = time.perf_counter()
    action()
    return time.perf_counter() - began


def spread(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    times = [timed(action) for _ in range(repeat)]
    return statistics.median(times), max(times)


# -- the measurements -------------------------------------------------------------------------


def database_bytes(store: Store) -> int:
    if store.engine.dialect.name == "postgresql":
        with store.engine.connect() as connection:
            return int(connection.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
    with store.engine.begin() as connection:  # the WAL into the file first: its pages are copies of the file's
        connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    path = Path(store.engine.url.database or "")
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def measure_refit(report: Callable[[str, Cell], None], url: str) -> None:
    store = Store(url)
    report("refit with intervals (rerate)", timed(lambda: rerate(store, RULESET)))


def measure_small_writes(report: Callable[[str, Cell], None], history: History,
                         generator: scale_history.Generator) -> None:
    """1,000 new matches onto the full database in the driver's small batches, SMALL_ROUNDS times
    (median and worst: one round is half a second, at the mercy of a checkpoint or a busy core),
    after a first round reported apart: the first writes after opening a history of GBs read the
    index pages they touch from disk (SQLite at 1.2M/10k: ~900/s then, 2,100-2,400/s after it),
    which a ladder that writes all day pays once."""
    store, rates = Store(history.url), []
    for start in range(history.matches, history.matches + SMALL_WRITTEN, NEW_MATCHES):
        rates.append(NEW_MATCHES / scale_history.write(store, generator, start, start + NEW_MATCHES, SMALL_BATCH))
    report(FIRST_SMALL, rates[0])
    report("write, batches of 100", (statistics.median(rates[1:]), min(rates[1:])))


def measure_live(report: Callable[[str, Cell], None], history: History, generator: scale_history.Generator,
                 repeat: int) -> None:
    """The live rerate a driver runs after 1,000 new matches, the one before it already done: `repeat`
    times (at most 5, each after 1,000 more: median and worst), then the exact one of every EXACT_EVERY."""
    store = Store(history.url)
    live = LiveRerate(store, RULESET)
    live.last = -math.inf  # due now: the bench times the work, not the throttle
    live.maybe()  # the run's earlier live rerate (a warm start may keep what it learnt)
    start = history.matches + SMALL_WRITTEN  # after measure_small_writes' matches
    took = []
    for _ in range(min(repeat, 5)):
        # as the driver's writer does
        scale_history.write(store, generator, start, start + NEW_MATCHES, SMALL_BATCH, live.add)
        start += NEW_MATCHES
        live.last = -math.inf
        took.append(timed(live.maybe))
    report("live update after 1,000 new", (statistics.median(took), max(took)))
    assert live.rate is not None
    live.rate.updates = EXACT_EVERY  # the next one is the exact one a live rerate makes every EXACT_EVERY
    scale_history.write(store, generator, start, start + NEW_MATCHES, SMALL_BATCH, live.add)
    live.last = -math.inf
    report(f"live update, the exact one of every {EXACT_EVERY}", timed(live.maybe))


def measure_leaderboard(report: Callable[[str, Cell], None], url: str, repeat: int) -> None:
    def show() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            assert arena_main(["leaderboard", "--db", url, "--ruleset", RULESET]) == 0
    show()  # the first call imports the command's modules
    report("arena leaderboard", spread(show, repeat))


def measure_next_table(report: Callable[[str, Cell], None], url: str, repeat: int) -> None:
    store = Store(url)
    rows = store.leaderboard(RULESET, limit=1_000_000)
    field = [Candidate(row.entrant, f"bot:{row.entrant}", row.elo, row.low, row.high, row.games) for row in rows]
    rng = random.Random(1)
    pool = Pool(field)  # as the ladder's driver keeps it between refits (arena/ladder/driver.py `_pool`)

    def choose() -> None:
        table = next_table(pool, scale_history.PLAYERS, rng)
        assert table is not None
        pool.seat(table)

    report("next table (whole field)", spread(choose, max(repeat, 100)))
    report("its pool built again (after a refit)", spread(lambda: Pool(field), repeat))


def page_paths(history: History, store: Store) -> list[tuple[str, str]]:
    """(row, path): every GET route of the dashboard with real ids (a match and a bot from the
    middle of the history), and the pages a visitor pages and filters to."""
    middle = store.matches(tournament_id=history.tournament_id, limit=1, offset=history.matches // 2)[0]
    a, b = middle.seats[0].entrant, middle.seats[1].entrant
    values = {"id": str(middle.id), "name": a, "position": "100", "index": str(history.matches // 2)}
    by_prefix = {"/tournaments/{id}": str(history.tournament_id), "/tests/{id}": "1"}  # no SPRT test: a 404
    pair = f"?ruleset={RULESET}&a={a}&b={b}"
    queries = {"/head-to-head": pair, "/api/head-to-head": pair, "/api/matches/{id}/frames/{position}": "?view=0"}
    paths = []
    for route in create_app(store).routes:
        if not isinstance(route, Route) or "GET" not in (route.methods or ()) or "{rest" in route.path:
            continue
        if route.path.startswith(("/my", "/signin")):
            continue  # the author pages: a signed-in author's, through the gateway
        path = route.path
        for prefix, value in by_prefix.items():
            path = path.replace(prefix, prefix.replace("{id}", value))  # /api/tournaments/{id}/... too
        for name, value in values.items():
            path = path.replace("{" + name + "}", value)
        row = route.path + queries.get(route.path, "").replace(a, "A").replace(b, "B")
        paths.append((row, path + queries.get(route.path, "")))
    last_page = max(1, history.matches // 50)
    return paths + [("/matches?page=LAST", f"/matches?page={last_page}"),
                    ("/api/matches?bot=A", f"/api/matches?bot={a}"),
                    ("/api/matches?termination=any_fault", "/api/matches?termination=any_fault"),
                    ("/api/rating-history?bots=A,B", f"/api/rating-history?ruleset={RULESET}&bots={a},{b}")]


def measure_page(report: Callable[[str, Cell], None], url: str, row: str, path: str, repeat: int) -> None:
    store = Store(url, reader=True)
    with TestClient(create_app(store)) as client:
        status = client.get(path).status_code  # the first request fills the app's caches, as a visitor's would
        if status != 200:
            report(f"GET {row}", f"HTTP {status}")
            return
        report(f"GET {row}", spread(lambda: client.get(path), repeat))


def store_strengths(history: History, generator: scale_history.Generator) -> None:
    """Stand-in ratings (the hidden strengths) when the real refit hit the cap: so pages see a rated field."""
    entries = [RatingEntry(f"{scale_history.bot_name(n)}@1", 1500 + generator.strength[n], 1400 + generator.strength[n],
                           1600 + generator.strength[n], 0, 0.0, 0, 0) for n in range(1, history.bots + 1)]
    Store(history.url).replace_ratings(RULESET, scale_history.GAME, entries, [])


def measure_all(history: History, generator: scale_history.Generator, cap: float, repeat: int) -> dict[str, Cell]:
    store = Store(history.url)
    cells: dict[str, Cell] = {"bytes per match": database_bytes(store) / history.matches,
                              "write, big batches": (history.built or history.matches) / history.write_seconds}
    cells |= capped(cap, ["refit with intervals (rerate)"], measure_refit, history.url)
    if isinstance(cells["refit with intervals (rerate)"], str):
        print("  the refit hit the cap: the hidden strengths stand in as ratings for the rest", flush=True)
        store_strengths(history, generator)
    paths = page_paths(history, store)
    store.engine.dispose()
    cells |= capped(cap, [FIRST_SMALL, "write, batches of 100"], measure_small_writes, history, generator)
    cells |= capped(cap, ["live update after 1,000 new", f"live update, the exact one of every {EXACT_EVERY}"],
                    measure_live, history, generator, repeat)
    cells |= capped(cap, ["arena leaderboard"], measure_leaderboard, history.url, repeat)
    cells |= capped(cap, ["next table (whole field)", "its pool built again (after a refit)"], measure_next_table,
                    history.url, repeat)
    for row, path in paths:
        cells |= capped(cap, [f"GET {row}"], measure_page, history.url, row, path, repeat)
    return cells


# -- sizes, backends and the table ------------------------------------------------------------


def parse_size(text_: str) -> tuple[int, int]:
    """`100k/1k` -> (100000, 1000): MATCHES/BOTS, with k and M."""
    def number(part: str) -> int:
        scale = {"k": 1_000, "M": 1_000_000}.get(part[-1:], 1)
        digits = part[:-1] if scale > 1 else part
        if not digits.replace(".", "", 1).isdigit():
            raise argparse.ArgumentTypeError(f"bad size {text_!r}: use MATCHES/BOTS such as 100k/1k or 500/20")
        return int(float(digits) * scale)
    matches, _, bots = text_.partition("/")
    if not bots or number(bots) < scale_history.PLAYERS:
        raise argparse.ArgumentTypeError(f"bad size {text_!r}: use MATCHES/BOTS such as 100k/1k, at least 4 bots")
    return number(matches), number(bots)


def label(size: tuple[int, int]) -> str:
    def short(n: int) -> str:
        return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else f"{n // 1000}k" if n % 1000 == 0 else str(n)
    return f"{short(size[0])}/{short(size[1])}"


@contextlib.contextmanager
def databases(backend: str, kept: Path | None = None) -> Iterator[Callable[[], str]]:
    """A maker of fresh database URLs on this backend (PostgreSQL: a private server on loopback);
    kept in `kept` (not removed) when given: SQLite's files there, PostgreSQL's data in `kept`/postgres."""
    if kept is not None and backend == "sqlite":
        kept.mkdir(parents=True, exist_ok=True)
        made = iter(range(1, 1000))
        yield lambda: f"sqlite:///{kept.resolve()}/sqlite-{os.getpid()}-{next(made)}.db"
        return
    if backend == "sqlite":
        folder = Path(tempfile.mkdtemp(prefix="arena-scale-"))
        try:
            yield lambda: f"sqlite:///{tempfile.mkdtemp(dir=folder)}/scale.db"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    from tests.arena.postgres_server import running_postgres

    with running_postgres(None if kept is None else kept / "postgres") as server:
        yield server.fresh_database


def drop(url: str) -> None:
    """Free the disk a measured history took before the next size is built."""
    store = Store(url)
    if store.engine.dialect.name == "postgresql":
        database = store.engine.url.database
        store.engine.dispose()
        with Store(url.rsplit("/", 1)[0] + "/postgres").engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").execute(
                text(f'DROP DATABASE "{database}" WITH (FORCE)'))  # a child stopped at the cap may still hold a session
        return
    store.engine.dispose()
    shutil.rmtree(Path(store.engine.url.database or "").parent, ignore_errors=True)


def fmt(row: str, cell: Cell) -> str:
    if isinstance(cell, str):
        return cell
    if isinstance(cell, tuple):
        return f"{fmt(row, cell[0])} / {fmt(row, cell[1])}"
    if row in RATES:
        return f"{cell:,.0f}/s"
    if row == "bytes per match":
        return f"{cell / 1000:.2f} kB"
    return f"{cell * 1000:.3g} ms" if cell < 1 else f"{cell:.3g} s"


def extrapolate(row: str, sizes: list[tuple[int, int]], cells: list[Cell], target: int = 10_000_000) -> Cell:
    (a, _), (b, _) = sizes[-2], sizes[-1]
    first, last = (cell[0] if isinstance(cell, tuple) else cell for cell in cells[-2:])
    if isinstance(first, str) or isinstance(last, str) or a == b or first <= 0 or last <= 0:
        return "—"
    # a time does not shrink, nor a rate grow, with the history: noise at small sizes is not a trend
    growth = min(last / first, 1.0) if row in RATES else max(last / first, 1.0)
    return float(last * growth ** (math.log(target / b) / math.log(b / a)))


def print_table(backend: str, sizes: list[tuple[int, int]], results: list[dict[str, Cell]]) -> None:
    rows = list(dict.fromkeys(row for cells in results for row in cells))
    header = ["measurement (median / worst)", "aim at 1M/10k", *map(label, sizes)]
    extra = len(sizes) >= 2
    if extra:
        header.append("10M/10k extrapolated")
    lines = []
    for row in rows:
        cells = [cells.get(row, "—") for cells in results]
        line = [row, AIMS.get(row, PAGE_AIM if row.startswith("GET ") else ""), *(fmt(row, c) for c in cells)]
        if extra:
            line.append(fmt(row, extrapolate(row, sizes, cells)))
        lines.append(line)
    widths = [max(len(cells[i]) for cells in [header, *lines]) for i in range(len(header))]
    print(f"\n{backend}:")
    for line in [header, ["-" * w for w in widths], *lines]:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(line, widths)) + " |")


def too_big(matches: int, templates: list[dict[str, Any]]) -> str | None:
    """Why a history of `matches` would not fit on this disk (records compressed, ~2.5 kB of rows and
    indexes besides), or None."""
    need = matches * (statistics.mean(len(encode_record(t)) for t in templates) + 2_500)
    free = shutil.disk_usage(tempfile.gettempdir()).free
    return f"needs ~{need / 1e9:.0f} GB, over half the {free / 1e9:.0f} GB free" if need > free / 2 else None


def keep(history: History, templates: int, folder: Path) -> None:
    """Write beside a kept history what --reuse needs to measure it again (a PostgreSQL history's
    server folder too: its port is this run's)."""
    described = folder / f"{Path(history.url.rsplit('/', 1)[1]).stem}.json"
    server = {"postgres": str((folder / "postgres").resolve())} if history.url.startswith("postgresql") else {}
    described.write_text(json.dumps({**dataclasses.asdict(history), "templates": templates, **server}))
    print(f"  kept: {history.url} (--reuse {described})", flush=True)


@contextlib.contextmanager
def kept_url(fields: dict[str, Any]) -> Iterator[str]:
    """The kept history's URL now: a PostgreSQL one's server started again on its folder (a new port)."""
    folder = fields.pop("postgres", None)
    if folder is None:
        yield fields["url"]
        return
    from tests.arena.postgres_server import running_postgres

    with running_postgres(Path(folder)) as server:
        yield server.url(fields["url"].rsplit("/", 1)[1])


def reuse(fields: dict[str, Any]) -> tuple[History, scale_history.Generator]:
    """A kept history as it is now: its matches counted again (earlier runs added to them)."""
    templates = scale_history.play_templates(fields.pop("templates"))
    store = Store(fields["url"])
    fields["built"] = fields.get("built") or fields["matches"]  # the build's own rate stays the build's
    fields["matches"] = store.count_matches(tournament_id=fields["tournament_id"])
    store.engine.dispose()
    history = History(**fields)
    return history, scale_history.Generator(templates, history.bots, history.tournament_id)


def measure_kept(described: list[tuple[Path, dict[str, Any]]], cap: float, repeat: int) -> None:
    """Measure kept histories, a table per backend, smallest first (with the 10M extrapolation from
    the two largest when there are several: the same bots, a growing history). Each backend's
    servers run only while its own histories are measured: a PostgreSQL server's autovacuum
    beside the SQLite measurements took their writes from ~2,500/s to ~1,400/s."""
    backends: dict[str, list[tuple[Path, dict[str, Any]]]] = {}
    for path, fields in described:
        backend = "postgres" if str(fields["url"]).startswith("postgresql") else "sqlite"
        backends.setdefault(backend, []).append((path, fields))
    for backend, histories in backends.items():
        with contextlib.ExitStack() as servers:
            kept = []
            for path, fields in histories:
                url = servers.enter_context(kept_url(fields))
                kept.append((*reuse({**fields, "url": url}), path))
            kept.sort(key=lambda found: found[0].matches)
            sizes, results = [], []
            for history, generator, path in kept:
                print(f"{path}: {history.matches:,} matches / {history.bots:,} bots kept at {history.url}", flush=True)
                sizes.append((history.matches, history.bots))
                results.append(measure_all(history, generator, cap, repeat))
            print_table(backend, sizes, results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100k/1k", help="MATCHES/BOTS, comma-separated (default 100k/1k)")
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds a measurement may take (default 120)")
    parser.add_argument("--repeat", type=int, default=7, help="requests per page and calls per command (default 7)")
    parser.add_argument("--templates", type=int, default=300, help="real matches played for records (default 300)")
    parser.add_argument("--batch", type=int, default=5000, help="matches per record_matches call (default 5000)")
    parser.add_argument("--keep", type=Path, help="build the histories in this folder and keep them (and their "
                                                   "descriptions, for --reuse); PostgreSQL's data in FOLDER/postgres")
    parser.add_argument("--reuse", type=scale_history.kept_descriptions,
                        help="measure histories kept by --keep (their .json, comma-separated) instead of building")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so that the PostgreSQL server and files go too
    if args.reuse:
        measure_kept(args.reuse, args.cap, args.repeat)
        return
    try:
        sizes = [parse_size(part) for part in args.sizes.split(",")]
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    templates = scale_history.play_templates(args.templates)
    print(f"{len(templates)} real Riga records played; sizes {', '.join(map(label, sizes))}; cap {args.cap:g} s; "
          f"{os.cpu_count()} cores", flush=True)
    for backend in (("sqlite", "postgres") if args.backend == "both" else (args.backend,)):
        results: list[dict[str, Cell]] = []
        with databases(backend, args.keep) as fresh:
            for matches, bots in sizes:
                if note := too_big(matches, templates):
                    print(f"{backend} {label((matches, bots))}: skipped, {note}", flush=True)
                    results.append({"bytes per match": f"skipped: {note}"})
                    continue
                print(f"{backend} {label((matches, bots))}: building …", flush=True)
                history, generator = scale_history.build(fresh(), matches, bots, templates, args.batch)
                results.append(measure_all(history, generator, args.cap, args.repeat))
                print_table(backend, sizes[:len(results)], results)  # so far: a stopped run keeps its figures
                if args.keep:
                    keep(history, args.templates, args.keep)
                else:
                    drop(history.url)


if __name__ == "__main__":
    main()
