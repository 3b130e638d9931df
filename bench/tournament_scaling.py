"""Tournament throughput on Ray against one plain process, and the time to rerate stored matches.

scaling: the same matches (built-in random bots; the first rounds of a round robin) played
  1. in one plain process, one after another (`play_job`, no Ray): matches/s = r1;
  2. over W plain processes (`multiprocessing` pool, no Ray): what the machine gives W processes;
  3. on Ray with W worker CPUs, one task per match (`RayExecutor(batch=False)`, the former path);
  4. on Ray, short matches batched per task (`RayExecutor()`, sized from the measured match time;
     `matches/task` is the mean batch). 2·W tasks in flight in both.
  Scaling efficiency = rW / (W · r1). Executor throughput only (results are not stored), so the
  figure is about distribution, not SQLite; `--with-store` times whole tournaments instead.
  `--repeat N` plays each configuration N times, interleaved, and keeps its best rate (a shared
  machine's noise only ever slows a run down). `--target-ms` changes the batched tasks' length.
  `--ray-address HOST:PORT` measures on a running cluster, e.g. a local multi-node one:
      ray start --head --port=6390 --num-cpus=1 --include-dashboard=false --disable-usage-stats
      ray start --address=127.0.0.1:6390 --num-cpus=1
      .venv/bin/python bench/tournament_scaling.py scaling --ray-address 127.0.0.1:6390
      ray stop

rerate: stores N synthetic 4-player matches (20 entrants, strengths drawn once) in a fresh SQLite
  file (or --db URL), then times `rerate`: reading the seats, the rating fit with its intervals, the history fits,
  writing ratings and history.

Usage: .venv/bin/python bench/tournament_scaling.py scaling [--games gang_of_dice,riga] [--matches 200]
       .venv/bin/python bench/tournament_scaling.py rerate [--matches 100000]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import resource
import shutil
import tempfile
import time
from dataclasses import replace

from arena.match import executor as executors
from arena.match.executor import JobOutcome, LocalExecutor, MatchJob, RayExecutor, play_job
from arena.rating import rerate
from arena.store import MatchResult, SeatResult, Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig, bot_spec, schedule
from engine import registry

BOT = "random"  # set by --bot


def bench_config(game_id: str, rounds: int) -> TournamentConfig:
    players = registry.info(game_id).min_players
    entrants = tuple(f"{BOT}#{i}" for i in range(1, 7))
    return TournamentConfig(game_id=game_id, players_per_match=players, entrants=entrants, rounds=rounds, seed=1)


def jobs_for(game_id: str, count: int) -> list[MatchJob]:
    config = bench_config(game_id, rounds=1 + count // 30)
    plan = schedule(config)[:count]
    return [MatchJob.for_game(game_id, key=(0, m.index), bots=tuple(bot_spec(e) for e in m.seats),
                              seed=m.seed, chance_seed=m.chance_seed) for m in plan]


def rate_of(run, jobs: list[MatchJob]) -> float:  # noqa: ANN001
    started = time.perf_counter()
    done = sum(1 for _ in run(jobs))
    assert done == len(jobs)
    return done / (time.perf_counter() - started)


def process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def play_job_with_cpu(job: MatchJob) -> JobOutcome:
    """play_job, plus the worker process's pid and its CPU seconds so far (Ray's own share included)."""
    outcome = play_job(job)
    return replace(outcome, record={"pid": os.getpid(), "cpu": process_cpu(),
                                    "ranks": (outcome.record or {}).get("ranks")})


def cpu_per_match(outcomes: list[JobOutcome]) -> float:
    """Worker CPU per match: per process, the CPU between its first and last match over the matches between."""
    by_pid: dict[int, list[float]] = {}
    for outcome in outcomes:
        by_pid.setdefault(outcome.record["pid"], []).append(outcome.record["cpu"])  # type: ignore[index]
    spent = sum(max(c) - min(c) for c in by_pid.values())
    return spent / max(1, sum(len(c) - 1 for c in by_pid.values()))


def overheads(jobs: list[MatchJob], batch: bool, target_ms: float = executors.TARGET_TASK_MS) -> tuple[float, float]:
    """CPU ms per match on Ray: in a worker (Ray's own work in it included), in the driver."""
    timed = RayExecutor(task=play_job_with_cpu, batch=batch, target_ms=target_ms)  # this process's Ray connection
    started = process_cpu()
    outcomes = list(timed.run(jobs))
    driver = (process_cpu() - started) / len(jobs)
    return 1000 * cpu_per_match(outcomes), 1000 * driver


def plain_cpu(jobs: list[MatchJob]) -> float:
    """CPU ms per match in one plain process."""
    started = process_cpu()
    for job in jobs:
        play_job(job)
    return 1000 * (process_cpu() - started) / len(jobs)


def best_rates(jobs: list[MatchJob], pool, repeat: int, target_ms: float) -> dict[str, float]:  # noqa: ANN001
    """The best matches/s of each configuration over `repeat` interleaved runs, and matches per batched task."""
    best: dict[str, float] = {}
    for _ in range(repeat):
        old, new = RayExecutor(batch=False), RayExecutor(target_ms=target_ms)  # a fresh one measures from scratch
        runs = {"plain": lambda js: (play_job(j) for j in js), "pool": lambda js: pool.imap_unordered(play_job, js),
                "ray 1/task": old.run, "ray batched": new.run}
        for name, run in runs.items():
            best[name] = max(best.get(name, 0.0), rate_of(run, jobs))
        best["matches/task"] = len(jobs) / new.tasks
    return best


def scaling(args: argparse.Namespace) -> None:
    global BOT
    BOT = args.bot
    ray_executor = RayExecutor(address=args.ray_address, num_cpus=args.workers, batch=False)
    workers = ray_executor.workers
    print(f"Ray: {workers} worker CPUs ({'cluster ' + args.ray_address if args.ray_address else 'local'}); "
          f"load average {os.getloadavg()[0]:.1f}; best of {args.repeat}")
    print(f"{'':<20} {'':>7} {'':>9} {'matches/s':^56}  {'efficiency':^15}  {'CPU ms/match':^33}")
    print(f"{'game':<20} {'matches':>7} {'ms/match':>9} {'1 process':>10} {'pool':>7} {'Ray 1/task':>11} "
          f"{'Ray batched':>12} {'matches/task':>13}  {'1/task':>7} {'batched':>7}  "
          f"{'plain':>6} {'worker 1/b':>11} {'driver 1/b':>11}")
    with multiprocessing.get_context("spawn").Pool(workers) as pool:  # spawned: this process runs Ray
        for game_id in args.games.split(","):
            jobs = jobs_for(game_id, args.matches)
            list(ray_executor.run(jobs[: 2 * workers]))  # warm the workers up (imports)
            list(pool.imap_unordered(play_job, jobs[: 2 * workers]))
            best = best_rates(jobs, pool, args.repeat, args.target_ms)
            plain = best["plain"]
            cpu = [plain_cpu(jobs), *overheads(jobs, batch=False),
                   *overheads(jobs, batch=True, target_ms=args.target_ms)]
            print(f"{game_id:<20} {len(jobs):>7} {1000 / plain:>9.1f} {plain:>10.1f} {best['pool']:>7.1f} "
                  f"{best['ray 1/task']:>11.1f} {best['ray batched']:>12.1f} {best['matches/task']:>13.1f}  "
                  f"{best['ray 1/task'] / (workers * plain):>7.0%} {best['ray batched'] / (workers * plain):>7.0%}  "
                  f"{cpu[0]:>6.1f} {cpu[1]:>5.1f}/{cpu[3]:<5.1f} {cpu[2]:>5.1f}/{cpu[4]:<5.1f}")
            if args.with_store:
                whole(game_id, RayExecutor(), workers)
    ray_executor.close()


def whole(game_id: str, ray_executor: RayExecutor, workers: int) -> None:
    """Whole tournaments (store writes and rating included), in-process vs on Ray (batched)."""
    rates = []
    for executor in (LocalExecutor(), ray_executor):
        with tempfile.TemporaryDirectory() as folder:
            store = Store(f"sqlite:///{folder}/bench.db")
            tid = start_tournament(store, bench_config(game_id, rounds=4))
            started = time.perf_counter()
            info = play_tournament(store, tid, executor)
            rates.append(info.total_matches / (time.perf_counter() - started))
    print(f"{'  with store':<20} {'':>7} {'':>9} {rates[0]:>10.1f} {'':>7} {'':>11} {rates[1]:>12.1f} {'':>13}  "
          f"{'':>7} {rates[1] / (workers * rates[0]):>7.0%}")


def synthetic_results(count: int, seed: int) -> list[MatchResult]:
    rng = random.Random(seed)
    strength = {f"bot{i:02d}": rng.gauss(0, 1) for i in range(20)}
    results = []
    for index in range(count):
        seated = rng.sample(sorted(strength), 4)
        perf = [strength[e] + rng.gauss(0, 1) for e in seated]
        ranks = [1 + sum(p > mine for p in perf) for mine in perf]
        seats = [SeatResult(i, e, "random", score=float(4 - r), rank=r) for i, (e, r) in enumerate(zip(seated, ranks))]
        results.append(MatchResult(1, index, 0, index // 4, index % 4, "bench", "bench@1", index, index // 4,
                                   seats, {"ranks": ranks}, decisions=1))
    return results


def rerate_bench(args: argparse.Namespace) -> None:
    folder = tempfile.mkdtemp(prefix="arena-rerate-")
    store = Store(args.db or f"sqlite:///{folder}/rerate.db")
    tid = store.create_tournament("bench", "bench@1", "round_robin", {}, args.matches)
    assert tid == 1, "use an empty database"
    started = time.perf_counter()
    results = synthetic_results(args.matches, seed=1)
    for start in range(0, len(results), 5000):
        store.record_matches(results[start:start + 5000])
    print(f"stored {args.matches} matches in {time.perf_counter() - started:.1f} s ({store.url})")
    timings = {}
    mark = time.perf_counter()
    matches = store.rated_matches("bench@1")
    timings["read seats"], mark = time.perf_counter() - mark, time.perf_counter()
    rerate(store, "bench@1")  # totals, fit + intervals, ratings and one history point written
    timings["rerate (totals, fit, write)"] = time.perf_counter() - mark
    for name, seconds in timings.items():
        print(f"  {name:<24} {seconds:6.2f} s")
    print(f"  {'rerate total':<24} {sum(timings.values()):6.2f} s for {len(matches)} matches")
    store.engine.dispose()
    shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    scale = commands.add_parser("scaling")
    scale.add_argument("--games", default="gang_of_dice,lost_cities_rivals,riviera,riga")
    scale.add_argument("--matches", type=int, default=200)
    scale.add_argument("--workers", type=int, help="CPUs for a local Ray (default: all)")
    scale.add_argument("--ray-address")
    scale.add_argument("--bot", default="random", help="the bot spec of every entrant (default random)")
    scale.add_argument("--with-store", action="store_true", help="also time whole stored tournaments")
    scale.add_argument("--repeat", type=int, default=1, help="runs of each configuration; the best is kept")
    scale.add_argument("--target-ms", type=float, default=executors.TARGET_TASK_MS,
                       help="how long a batched task should last (default: the executor's); on a loaded machine "
                            "matches last k times longer, and k times the default gives a quiet machine's batches")
    scale.set_defaults(run=scaling)
    rerate = commands.add_parser("rerate")
    rerate.add_argument("--matches", type=int, default=100_000)
    rerate.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    rerate.set_defaults(run=rerate_bench)
    args = parser.parse_args()
    args.run(args)
    executors.disconnect()


if __name__ == "__main__":
    main()
