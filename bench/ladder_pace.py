"""The ladder's pace on the real engines: matches per hour, and the games a new version gets at once.

A ladder of one game (default gang_of_dice, 2 per table) with the anchors random and heuristic and
two submitted bots (the Python SDK example, launched in their sandbox by a gateway in this
process), on a local Ray (or --local). After a warm-up it counts the stored matches over
--seconds (matches per hour); then a new version of one submitted bot is stored and its ladder
matches are counted over --new-seconds (the issue asks for the first 10 minutes: 600).

Usage: .venv/bin/python bench/ladder_pace.py [--game gang_of_dice] [--workers 2] [--seconds 60] [--new-seconds 600]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path

from arena.gateway.server import GatewayThread
from arena.ladder.driver import Ladder, open_ladder
from arena.ladder.field import LadderConfig
from arena.match.executor import LocalExecutor, RayExecutor
from arena.store import Store

SDK_BOT = Path(__file__).resolve().parents[1] / "bots" / "examples" / "python" / "random_bot.py"
KEY = "bench-host-key"


def count(store: Store, ladder_id: int, entrant: str | None = None) -> int:
    return store.count_matches(tournament_id=ladder_id, entrant=entrant)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="gang_of_dice")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--local", action="store_true")
    parser.add_argument("--warmup", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--new-seconds", type=float, default=600.0)
    args = parser.parse_args()
    os.environ["ARENA_HOST_KEY"] = KEY
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{folder}/arena.db")
        for name in ("alpha", "beta"):
            store.register_bot(name, command=f"python3 {SDK_BOT.name}", files=str(SDK_BOT.parent))
        with GatewayThread(store, host_key=KEY) as gateway:
            ladder_id = open_ladder(store, LadderConfig(args.game, 2, ("random", "heuristic"), gateway=gateway.address))
            executor = LocalExecutor() if args.local else RayExecutor(num_cpus=args.workers)
            stop = threading.Event()
            thread = threading.Thread(target=Ladder(store, ladder_id, executor).run, kwargs={"until": stop.is_set})
            thread.start()
            try:
                time.sleep(args.warmup)
                start = count(store, ladder_id)
                time.sleep(args.seconds)
                played = count(store, ladder_id) - start
                store.add_version("alpha", f"python3 {SDK_BOT.name}", str(SDK_BOT.parent), sha256="")
                joined = time.monotonic()
                marks = {}
                while (elapsed := time.monotonic() - joined) < args.new_seconds:
                    time.sleep(1.0)
                    for mark in (60, 120, 300, 600):
                        if elapsed >= mark and mark not in marks:
                            marks[mark] = count(store, ladder_id, "alpha@2")
                new = count(store, ladder_id, "alpha@2")
                total = count(store, ladder_id) - start - played
            finally:
                stop.set()
                thread.join()
                executor.close()
    where = "in this process" if args.local else f"local Ray, {args.workers} CPUs"
    print(f"{args.game}, 2 per table, anchors random + heuristic + 2 submitted SDK bots, {where}")
    print(f"| matches per hour | a new version's matches in its first {args.new_seconds:.0f} s | of all matches then |")
    print(f"|---:|---:|---:|\n| {played * 3600 / args.seconds:,.0f} | {new} | {total} |")
    print("by mark (s: its matches): " + ", ".join(f"{m}: {n}" for m, n in sorted(marks.items())))


if __name__ == "__main__":
    main()
