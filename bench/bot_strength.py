"""The ladder random < heuristic < ismcts, measured on the platform: a round robin per game.

For each game this runs `arena tournament run` (seat rotations, duplicate seeds, Ray) with the
three built-in bots into a fresh SQLite database, prints `arena leaderboard` (Elo with its 95%
interval), the decision time per bot read back from the stored match records (every decision,
forced ones included, and the mean over decisions that took more than 0.5 ms, i.e. real thinking),
each rung's head-to-head score against the rung below with a 95% interval, and whether each
rung's leaderboard interval lies wholly above the next one's.

Usage:
    .venv/bin/python bench/bot_strength.py [--games riviera,riga] [--rounds 4] [--players 2]
        [--ismcts ismcts:sims=100] [--no-random] [--workers 2] [--out bench/results] [--report] [--add]

Record the printed tables in BENCHMARKS.md with the command line that produced them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from arena.cli.leaderboard import format_interval, interval_end
from arena.store import Store
from engine import registry

ROOT = Path(__file__).resolve().parents[1]
ARENA = [sys.executable, "-m", "arena.cli"]
ENV = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled",
       "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def run_tournament(game_id: str, bots: list[str], args: argparse.Namespace, db: str) -> float:
    """Play the round robin; return its wall time in seconds."""
    command = [*ARENA, "tournament", "run", "--game", game_id, "--bots", ",".join(bots),
               "--players-per-match", str(args.players), "--rounds", str(args.rounds),
               "--seed", str(args.seed), "--db", db, "--name", f"bot-strength-{game_id}", "--quiet"]
    command += ["--local"] if args.workers == 0 else ["--workers", str(args.workers)]
    started = time.perf_counter()
    subprocess.run(command, check=True, env=ENV, cwd=ROOT)
    return time.perf_counter() - started


def leaderboard(game_id: str, db: str) -> list[dict]:
    """The rows of `arena leaderboard --json` (one ruleset per game here: default options)."""
    output = subprocess.run([*ARENA, "leaderboard", "--game", game_id, "--db", db, "--json"],
                            check=True, env=ENV, cwd=ROOT, capture_output=True, text=True).stdout
    return [row for rows in json.loads(output).values() for row in rows]


def stored_records(db: str) -> list[dict]:
    store = Store(db)
    return [r for r in (store.match_record(m.id) for m in store.matches(limit=100_000)) if r]


def head_to_head(records: list[dict]) -> dict[tuple[str, str], list[float]]:
    """Per ordered pair of bots at one table: the first's pairwise score (1 ahead, 1/2 tied, 0)."""
    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    for record in records:
        bots, ranks = [seat["bot"] for seat in record["seats"]], record.get("ranks")
        if not ranks:
            continue
        for i, a in enumerate(bots):
            for j, b in enumerate(bots):
                if i != j:
                    scores[(a, b)].append(1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0)
    return scores


def print_head_to_head(scores: dict[tuple[str, str], list[float]], ladder: list[str]) -> None:
    """Each rung against the one below: mean pairwise score with a 95% normal interval."""
    print("\n| pair | games | score of the first | 95% interval |")
    print("|---|---:|---:|---:|")
    for upper, lower in rung_pairs(ladder) + ([(ladder[-1], ladder[0])] if len(ladder) > 2 else []):
        values = scores.get((upper, lower), [])
        if len(values) < 2:
            continue
        mean = statistics.mean(values)
        half = 1.96 * statistics.stdev(values) / len(values) ** 0.5
        print(f"| {upper} vs {lower} | {len(values)} | {mean:.2f} | "
              f"{max(0, mean - half):.2f}–{min(1, mean + half):.2f} |")


def rung_pairs(ladder: list[str]) -> list[tuple[str, str]]:
    """Each rung with the one below it, from the top: [(ismcts, heuristic), (heuristic, random)]."""
    return list(zip(ladder[:0:-1], ladder[-2::-1]))


def print_ladder(rows: list[dict], ladder: list[str]) -> None:
    """Whether each rung's leaderboard interval lies wholly above the next rung down's."""
    by_bot = {row["bot"]: row for row in rows}
    for upper, lower in rung_pairs(ladder):
        if upper not in by_bot or lower not in by_bot:
            continue
        low, high = by_bot[upper]["low95"], by_bot[lower]["high95"]
        verdict = "apart" if low is not None and high is not None and low > high else "overlap"
        print(f"\nleaderboard intervals, {upper} low {interval_end(low)} vs {lower} high {interval_end(high)}: "
              f"{verdict}", end="")
    print()


def decision_times(records: list[dict]) -> dict[str, dict[str, float]]:
    """Per entrant: decisions, mean ms, mean ms of thinking decisions (> 0.5 ms), slowest ms."""
    times: dict[str, list[float]] = defaultdict(list)
    for record in records:
        bots = [seat["bot"] for seat in record["seats"]]
        for step in record["steps"]:
            for seat, elapsed in (step.get("elapsed_ms") or {}).items():
                times[bots[int(seat)]].append(float(elapsed))
    return {
        bot: {
            "decisions": len(values),
            "mean_ms": statistics.mean(values),
            "thinking_mean_ms": statistics.mean([v for v in values if v > 0.5] or [0.0]),
            "max_ms": max(values),
        }
        for bot, values in times.items()
    }


def print_game(game_id: str, rows: list[dict], times: dict[str, dict[str, float]], seconds: float) -> None:
    print(f"\n### {game_id} ({seconds:.0f} s)\n")
    print("| place | bot | Elo | 95% interval | games | win rate | mean ms/decision | mean ms thinking | max ms |")
    print("|---:|---|---:|:---:|---:|---:|---:|---:|---:|")
    for row in rows:
        t = times.get(row["bot"], {})
        print(f"| {row['place']} | {row['bot']} | {row['elo']:.0f} | {format_interval(row['low95'], row['high95'])} | "
              f"{row['games']} | {row['win_rate']:.2f} | {t.get('mean_ms', 0):.2f} | "
              f"{t.get('thinking_mean_ms', 0):.1f} | {t.get('max_ms', 0):.0f} |")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(registry.game_ids()))
    parser.add_argument("--players", type=int, default=2, help="seats per table (default 2)")
    parser.add_argument("--rounds", type=int, default=4, help="schedule repetitions (default 4)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ismcts", default="ismcts:sims=100", help="the search bot's spec")
    parser.add_argument("--no-random", action="store_true",
                        help="the top two rungs only (heuristic vs ismcts): "
                             "every game is the pair the ladder hinges on")
    parser.add_argument("--workers", type=int, default=2, help="Ray CPUs; 0 plays in-process (--local)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"), help="where the databases go")
    parser.add_argument("--report", action="store_true", help="only print the tables of the stored databases")
    parser.add_argument("--add", action="store_true",
                        help="keep the stored matches and add this run's (give it another --seed)")
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    bots = ["heuristic", args.ismcts] if args.no_random else ["random", "heuristic", args.ismcts]
    for game_id in args.games.split(","):
        db_path = Path(args.out) / f"bot_strength_{game_id}.db"
        db = f"sqlite:///{db_path}"
        seconds = 0.0
        if not args.report:
            if not args.add:
                db_path.unlink(missing_ok=True)
            seconds = run_tournament(game_id, bots, args, db)
        records = stored_records(db)
        rows = leaderboard(game_id, db)
        print_game(game_id, rows, decision_times(records), seconds)
        print_head_to_head(head_to_head(records), bots)
        print_ladder(rows, bots)


if __name__ == "__main__":
    main()
