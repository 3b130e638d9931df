"""Tournament throughput on Ray against one plain process, and the time to rerate stored matches.

scaling: the same matches (built-in random bots; the first rounds of a round robin) played
  1. in one plain process, one after another (`play_job`, no Ray): matches/s = r1;
  2. on Ray with W worker CPUs (one task per match, 2·W in flight): matches/s = rW.
  Scaling efficiency = rW / (W · r1). Executor throughput only (results are not stored), so the
  figure is about distribution, not SQLite; `--with-store` times whole tournaments instead.
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

from arena import executor as executors
from arena.driver import play_tournament, start_tournament
from arena.executor import JobOutcome, LocalExecutor, MatchJob, RayExecutor, play_job
from arena.rating import HISTORY_POINTS, rate_matches, rating_history
from arena.store import MatchResult, SeatResult, Store
from arena.tournament import TournamentConfig, bot_spec, schedule
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
    return replace(outcome, record={"pid": os.getpid(), "cpu": process_cpu(), "ranks": (outcome.record or {}).get("ranks")})


def cpu_per_match(outcomes: list[JobOutcome]) -> float:
    """Worker CPU per match: per process, the CPU between its first and last match over the matches between."""
    by_pid: dict[int, list[float]] = {}
    for outcome in outcomes:
        by_pid.setdefault(outcome.record["pid"], []).append(outcome.record["cpu"])  # type: ignore[index]
    spent = sum(max(c) - min(c) for c in by_pid.values())
    return spent / max(1, sum(len(c) - 1 for c in by_pid.values()))


def overheads(jobs: list[MatchJob]) -> tuple[float, float, float]:
    """CPU ms per match: in one plain process, in a Ray worker, in the Ray driver."""
    started = process_cpu()
    for job in jobs:
        play_job(job)
    local = (process_cpu() - started) / len(jobs)
    timed = RayExecutor(task=play_job_with_cpu)  # reuses this process's Ray connection
    started = process_cpu()
    outcomes = list(timed.run(jobs))
    driver = (process_cpu() - started) / len(jobs)
    return 1000 * local, 1000 * cpu_per_match(outcomes), 1000 * driver


def scaling(args: argparse.Namespace) -> None:
    global BOT
    BOT = args.bot
    ray_executor = RayExecutor(address=args.ray_address, num_cpus=args.workers)
    workers = ray_executor.workers
    print(f"Ray: {workers} worker CPUs ({'cluster ' + args.ray_address if args.ray_address else 'local'}); "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'game':<20} {'matches':>7} {'ms/match':>9} {'1 process/s':>12} {'pool/s':>7} {'Ray/s':>8} {'efficiency':>10}"
          f"   CPU ms/match: {'plain':>6} {'worker':>7} {'driver':>7}  CPU efficiency")
    for game_id in args.games.split(","):
        jobs = jobs_for(game_id, args.matches)
        list(ray_executor.run(jobs[: 2 * workers]))  # warm the workers up (imports)
        plain = rate_of(lambda js: (play_job(j) for j in js), jobs)
        # The same matches over W plain processes (no Ray; spawned, since this process runs Ray).
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            list(pool.imap_unordered(play_job, jobs[: 2 * workers]))  # warm up (imports)
            pooled = rate_of(lambda js: pool.imap_unordered(play_job, js), jobs)
        on_ray = rate_of(ray_executor.run, jobs)
        local_cpu, worker_cpu, driver_cpu = overheads(jobs)
        print(f"{game_id:<20} {len(jobs):>7} {1000 / plain:>9.1f} {plain:>12.1f} {pooled:>7.1f} {on_ray:>8.1f} "
              f"{on_ray / (workers * plain):>10.0%}   {'':>13} {local_cpu:>6.1f} {worker_cpu:>7.1f} {driver_cpu:>7.1f}"
              f"  {local_cpu / worker_cpu:>14.0%}")
        if args.with_store:
            whole(game_id, ray_executor, workers)
    ray_executor.close()


def whole(game_id: str, ray_executor: RayExecutor, workers: int) -> None:
    """Whole tournaments (store writes and rating included), in-process vs on Ray."""
    rates = []
    for executor in (LocalExecutor(), ray_executor):
        with tempfile.TemporaryDirectory() as folder:
            store = Store(f"sqlite:///{folder}/bench.db")
            tid = start_tournament(store, bench_config(game_id, rounds=4))
            started = time.perf_counter()
            info = play_tournament(store, tid, executor)
            rates.append(info.total_matches / (time.perf_counter() - started))
    print(f"{'  with store':<20} {'':>7} {'':>9} {rates[0]:>12.1f} {'':>7} {rates[1]:>8.1f} {rates[1] / (workers * rates[0]):>10.0%}")


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
    entries = rate_matches(matches)
    timings["fit + intervals"], mark = time.perf_counter() - mark, time.perf_counter()
    history = rating_history(matches)
    timings[f"history ({HISTORY_POINTS} fits)"], mark = time.perf_counter() - mark, time.perf_counter()
    store.replace_ratings("bench@1", "bench", entries, history)
    timings["write ratings + history"] = time.perf_counter() - mark
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
