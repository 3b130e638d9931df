"""The refit and the live update of bench/scale.py alone, on a kept history, several times: to
compare two trees on the same machine load (run the same file from each tree, on a copy of the
same history each, alternating).

    .venv/bin/python bench/scale_rerate.py --reuse KEPT/sqlite-....json --repeat 3

Each round times a full refit (`arena.rating.rerate`), then a live update after 1,000 new matches
(the drivers' `LiveRerate.maybe`, its first rerate done before the matches, as bench/scale.py does).
Every round adds 1,000 matches to the history.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import scale_history  # noqa: E402
from scale import NEW_MATCHES, SMALL_BATCH, kept_url, reuse  # noqa: E402
from scale_history import RULESET, History  # noqa: E402

from arena.rating import rerate  # noqa: E402
from arena.store import Store  # noqa: E402
from arena.tournament.driver import LiveRerate  # noqa: E402


def one_round(described: Path) -> tuple[float, float]:
    fields = json.loads(described.read_text())
    with kept_url(fields) as url:  # a PostgreSQL history's server started again
        return timed_round(*reuse({**fields, "url": url}))


def timed_round(history: History, generator: scale_history.Generator) -> tuple[float, float]:
    store = Store(history.url)
    began = time.perf_counter()
    rerate(store, RULESET)
    refit = time.perf_counter() - began
    live = LiveRerate(store, RULESET)
    live.last = -math.inf
    live.maybe()
    scale_history.write(store, generator, history.matches, history.matches + NEW_MATCHES, SMALL_BATCH, live.add)
    live.last = -math.inf
    began = time.perf_counter()
    live.maybe()
    return refit, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reuse", type=Path, required=True, help="a history kept by bench/scale.py --keep (its .json)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    args = parser.parse_args()
    rounds = []
    for n in range(args.repeat):
        refit, live = one_round(args.reuse)
        print(f"round {n + 1}: refit {refit:.2f} s, live update after {NEW_MATCHES:,} new {live * 1000:.0f} ms, "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
        rounds.append((refit, live))
    print(f"{ROOT}: median refit {statistics.median(r for r, _ in rounds):.2f} s, "
          f"live update {statistics.median(v for _, v in rounds) * 1000:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
