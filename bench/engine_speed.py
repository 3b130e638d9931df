"""Random-playout speed of every engine on one core: seat decisions/s, games/s and observations/s.

The loop is what a search bot or the match runner does without bots' thinking time: sample chance,
list legal actions, apply a random one. A seat decision is one acting seat's choice (a
simultaneous node with three acting seats counts three). Observations are measured in a second
run of the loop that also builds every acting seat's observation, as the match runner does:
obs/s counts only the CPU time spent building them.

Rates are per CPU second of this process (time.process_time), so other load on the machine
lowers them less than wall-clock rates would.

The engine measured is the one this process loads: compiled when it is built, the Python
sources with ARENA_ENGINE=pure (engine/implementation.py); the output's first line names it.

`--baseline REV` measures REV's engine/ too, in the same run: `git archive` exports it into a
temporary directory and a subprocess runs this same loop with that directory first on
PYTHONPATH. `--pure` measures this tree's Python sources too (a subprocess with
ARENA_ENGINE=pure). Each row then prints each reference, now and now/reference side by side.
Reference and current runs alternate row by row, so a change of load on the machine hits all alike.

`--tree DIR` measures the engine of another checkout as built there (compiled, when its
scripts/setup.sh ran), with that checkout's venv and copy of this script: main's compiled engine
against this one's, e.g. `--tree /work/main`. `--openspiel` adds a table of OpenSpiel's C++ games
(bench/openspiel_anchors.py) measured with the same loop in the same run.

Usage: .venv/bin/python bench/engine_speed.py [--games riviera,riga] [--players 3] [--seconds 2]
       [--repeat 3] [--baseline 344bcc8] [--pure] [--tree /work/main] [--openspiel]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import engine
from engine import registry
from engine.core import NodeKind, sample_chance

ROOT = Path(__file__).resolve().parent.parent
METRICS = ("seat decisions/s", "games/s", "obs/s")


@dataclass
class Rates:
    """One game and player count measured once: rates per CPU second."""

    decisions: float  # seat decisions per second, without observations
    games: float
    observations: float  # observations built per CPU second spent building them

    def best(self, other: Rates) -> Rates:
        """The better of two runs, metric by metric (the runs least disturbed by other load)."""
        return Rates(*(max(mine, theirs) for mine, theirs in zip(self.values(), other.values())))

    def values(self) -> tuple[float, float, float]:
        return self.decisions, self.games, self.observations


def playout(game, rng: random.Random, with_observations: bool) -> tuple[int, int, float]:
    """Play one random game; return (seat decisions, observations built, CPU s spent on them)."""
    state, decisions, observations, observing = game.initial_state(), 0, 0, 0.0
    # Locals, not NodeKind.X: reading an Enum member off its class costs about as much as a
    # small engine step in Python 3.11, and the loop is here to measure the engine.
    terminal, chance = NodeKind.TERMINAL, NodeKind.CHANCE
    while state.kind is not terminal:
        if state.kind is chance:
            state = state.apply_chance(sample_chance(state, rng))
            continue
        acting = state.acting_players()
        if with_observations:
            started = time.process_time()
            for seat in acting:
                state.observation(seat)
            observing += time.process_time() - started
            observations += len(acting)
        state = state.apply({seat: rng.choice(state.legal_actions(seat)) for seat in acting})
        decisions += len(acting)
    return decisions, observations, observing


def measure(game_id: str, players: int, seconds: float) -> Rates:
    """Play seeded random games for `seconds` CPU seconds, then again building observations."""
    return Rates(*timed_playouts(registry.make(game_id, players), playout, seconds))


def timed_playouts(game: Any, play: Callable[..., tuple[int, int, float]],
                   seconds: float) -> tuple[float, float, float]:
    """(seat decisions/s, games/s, obs/s) of `play(game, rng, with_observations)` for `seconds` CPU
    seconds each way: the one loop for our engines and OpenSpiel's (openspiel_anchors.py)."""
    rng, games, decisions = random.Random(1), 0, 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        decisions += play(game, rng, with_observations=False)[0]
        games += 1
    elapsed = time.process_time() - started
    rng, observations, observing = random.Random(1), 0, 0.0
    started = time.process_time()
    while time.process_time() - started < seconds:
        _, built, spent = play(game, rng, with_observations=True)
        observations, observing = observations + built, observing + spent
    return decisions / elapsed, games / elapsed, observations / observing


def export_engine(rev: str, folder: str) -> None:
    """Write REV's engine/ package into `folder` (`git archive`, nothing else of REV)."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev, "engine"], cwd=ROOT,
                             capture_output=True)
    if archive.returncode != 0:
        problem = archive.stderr.decode(errors="replace").strip().splitlines()
        sys.exit(f"engine_speed: error: --baseline {rev!r} is not a git revision with an engine/ "
                 f"folder ({problem[-1] if problem else 'git archive failed'}); give a commit, "
                 f"branch or tag, e.g. 344bcc8")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")


def measure_baseline(folder: str, game_id: str, players: int, seconds: float) -> Rates:
    """Measure the engine exported to `folder` in a subprocess running this same loop."""
    # ARENA_ENGINE=pure: an exported engine is never compiled (and an old one ignores the switch).
    env = {**os.environ, "ARENA_ENGINE": "pure",
           "PYTHONPATH": os.pathsep.join([folder, os.environ.get("PYTHONPATH", "")])}
    reply = measure_in_subprocess(env, "baseline", game_id, players, seconds)
    # A PYTHONPATH that lost to an installed engine would compare the new engine with itself.
    if Path(reply["engine"]).resolve().parent != Path(folder).resolve():
        raise RuntimeError(f"the baseline run imported {reply['engine']}, not the exported engine")
    return Rates(**reply["rates"])


def measure_pure(game_id: str, players: int, seconds: float) -> Rates:
    """Measure this tree's Python sources (ARENA_ENGINE=pure) in a subprocess."""
    reply = measure_in_subprocess({**os.environ, "ARENA_ENGINE": "pure"}, "pure", game_id, players, seconds)
    if reply["implementation"] != "pure":  # the switch must have worked, or pure = compiled
        raise RuntimeError(f"the ARENA_ENGINE=pure run loaded the {reply['implementation']} engine")
    return Rates(**reply["rates"])


def measure_in_subprocess(env: dict[str, str], which: str, game_id: str, players: int,
                          seconds: float) -> dict:
    """This same loop in a subprocess with `env`: its --json reply."""
    command = [sys.executable, __file__, "--games", game_id, "--players", str(players),
               "--seconds", str(seconds), "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        sys.exit(f"engine_speed: error: the {which} engine failed on {game_id} {players}p: {last}")
    return json.loads(done.stdout)


def measure_tree(tree: Path, game_id: str, players: int, seconds: float) -> Rates:
    """Measure the engine of another checkout `tree` (as built there) with its own venv and its
    own copy of this script, in a subprocess."""
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_ENGINE", "PYTHONPATH")}
    command = [str(tree / ".venv" / "bin" / "python"), str(tree / "bench" / "engine_speed.py"),
               "--games", game_id, "--players", str(players), "--seconds", str(seconds), "--json"]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        sys.exit(f"engine_speed: error: the engine of {tree} failed on {game_id} {players}p: {last}")
    reply = json.loads(done.stdout)
    if Path(reply["engine"]).resolve().parent != tree.resolve():
        raise RuntimeError(f"the run in {tree} imported {reply['engine']}, not that tree's engine")
    return Rates(**reply["rates"])


def checked_tree(folder: str) -> Path:
    """`--tree DIR` when it is a checkout set up with scripts/setup.sh, else a one-line exit."""
    tree = Path(folder)
    for needed in (tree / ".venv" / "bin" / "python", tree / "bench" / "engine_speed.py"):
        if not needed.exists():
            sys.exit(f"engine_speed: error: --tree {folder}: {needed} is missing; give a checkout of "
                     "this repository set up with `bash scripts/setup.sh`, e.g. /work/main")
    probe = subprocess.run([str(tree / ".venv" / "bin" / "python"), "-c",
                            "import engine; print(getattr(engine, 'IMPLEMENTATION', 'pure'))"],
                           cwd=tree, capture_output=True, text=True)
    print(f"engine {tree.name}: {probe.stdout.strip() or probe.stderr.strip().splitlines()[-1]} "
          f"({tree})")
    return tree


def rows(games: str, players: str | None) -> list[tuple[str, int]]:
    """The (game, player count) pairs to measure: every player count unless `players` is given."""
    chosen = []
    for game_id in games.split(","):
        try:
            info = registry.info(game_id)
        except KeyError as error:
            sys.exit(f"engine_speed: error: --games: {error.args[0]}")
        counts = range(info.min_players, info.max_players + 1)
        chosen += [(game_id, n) for n in player_counts(players, counts)]
    return chosen


def player_counts(players: str | None, counts: range) -> list[int]:
    """The counts `--players` names that the game allows (all of them when it names none)."""
    if not players:
        return list(counts)
    try:
        return [n for n in map(int, players.split(",")) if n in counts]
    except ValueError:
        sys.exit(f"engine_speed: error: --players {players!r} is not a comma-separated list of "
                 "player counts, e.g. 3 or 2,4")


def print_table(game_id: str, players: int, new: Rates, refs: list[Rates]) -> None:
    """One row: the new rates, or with references, for decisions/s and obs/s each reference,
    now, and now / each reference."""
    if not refs:
        cells = [f"{new.decisions:,.0f}", f"{new.games:,.1f}", f"{new.observations:,.0f}"]
    else:
        cells = []
        for pick in (lambda r: r.decisions, lambda r: r.observations):
            cells += [f"{pick(r):,.0f}" for r in refs] + [f"{pick(new):,.0f}"]
            cells += [f"{pick(new) / pick(r):.2f}×" for r in refs]
    print(f"| {game_id} | {players} | " + " | ".join(cells) + " |", flush=True)


def print_header(labels: list[str]) -> None:
    """The table's header; `labels` name the references (a baseline revision, "pure")."""
    print(f"engine now: {engine.IMPLEMENTATION} ({'compiled with mypyc' if engine.compiled() else 'Python sources'})")
    if not labels:
        names = list(METRICS)
    else:
        names = [name for metric in (METRICS[0], METRICS[2]) for name in
                 [f"{metric} {label}" for label in labels] + [f"{metric} now"]
                 + [f"{metric} ratio {label}" for label in labels]]
    print("| game | players | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))


def best(runs: Rates | None, run: Rates) -> Rates:
    """The best so far, metric by metric, after one more run."""
    return run if runs is None else runs.best(run)


def measure_row(args: argparse.Namespace, folder: str, game_id: str, players: int) -> None:
    """Measure one row `--repeat` times, alternating reference and current runs; print it."""
    old = pure = other = new = None
    for _ in range(args.repeat):
        if args.baseline:
            old = best(old, measure_baseline(folder, game_id, players, args.seconds))
        if args.pure:
            pure = best(pure, measure_pure(game_id, players, args.seconds))
        if args.tree:
            other = best(other, measure_tree(Path(args.tree), game_id, players, args.seconds))
        new = best(new, measure(game_id, players, args.seconds))
    print_table(game_id, players, new, [r for r in (old, pure, other) if r is not None])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(registry.game_ids()))
    parser.add_argument("--players", help="player counts, e.g. 3 or 2,4 (default: all)")
    parser.add_argument("--seconds", type=float, default=2.0, help="per game and player count")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs per row")
    parser.add_argument("--baseline", metavar="REV", help="also measure REV's engine/, side by side")
    parser.add_argument("--pure", action="store_true",
                        help="also measure this tree's Python sources (ARENA_ENGINE=pure), side by side")
    parser.add_argument("--tree", metavar="DIR",
                        help="also measure the engine as built in another checkout (e.g. a clone of "
                             "main set up with scripts/setup.sh: compiled), run by its own venv")
    parser.add_argument("--openspiel", action="store_true",
                        help="also measure OpenSpiel's C++ games (hearts, liars_dice, goofspiel) "
                             "through pyspiel with the same loop, as anchors")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the baseline run
    args = parser.parse_args()
    if args.json:
        (game_id, players), = rows(args.games, args.players)
        rates = measure(game_id, players, args.seconds)
        # An old engine (a --baseline) has no IMPLEMENTATION: it is Python sources only.
        implementation = getattr(engine, "IMPLEMENTATION", "pure")
        print(json.dumps({"engine": os.path.dirname(engine.__file__), "implementation": implementation,
                          "rates": asdict(rates)}))
        return
    chosen = rows(args.games, args.players)
    tree_label = checked_tree(args.tree).name if args.tree else None
    with tempfile.TemporaryDirectory() as folder:
        if args.baseline:
            export_engine(args.baseline, folder)
        print_header([label for label in (args.baseline, "pure" if args.pure else None, tree_label) if label])
        for game_id, players in chosen:
            measure_row(args, folder, game_id, players)
    if args.openspiel:
        # bench/, this script's folder (on sys.path when run as a script; tests load it by path)
        from openspiel_anchors import openspiel_anchors
        openspiel_anchors(args.seconds, args.repeat)


if __name__ == "__main__":
    main()
