"""ismcts simulations per CPU second, per game: how a search bot's strength per second moves with
the engine.

Positions: every fifth decision of seeded random playouts (the same positions for every engine
that plays by the same rules). At each, `bots.ismcts.IsmctsBot(sims=N)` decides for the acting
seat with a seeded generator; the rate is the simulations it ran (`last_simulations`) over the CPU
seconds of those decisions (time.process_time). A search spends its time in the engine's clone,
legal actions and apply, and in the heuristic's rollouts and observations.

`--tree DIR` measures another checkout too (set up with scripts/setup.sh: its compiled engine and
its bots, run by its own venv), alternating with this one position set by position set, e.g. the
engines as issue 36 found them. Every run is a new process (the bots' caches start empty); best
of `--repeat` runs per row.

Usage: .venv/bin/python bench/ismcts_speed.py [--games riga] [--players 3] [--sims 100]
       [--positions 12] [--repeat 2] [--tree /work/issue36_base]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import engine
from engine import registry
from engine.core import NodeKind, sample_chance

ROOT = Path(__file__).resolve().parent.parent


def positions(game: Any, count: int, every: int = 5) -> list[Any]:
    """`count` decision positions with one acting seat: every `every`-th decision of seeded
    random playouts."""
    rng, found = random.Random(11), []
    while len(found) < count:
        state, decisions = game.initial_state(), 0
        while state.kind is not NodeKind.TERMINAL and len(found) < count:
            if state.kind is NodeKind.CHANCE:
                state = state.apply_chance(sample_chance(state, rng))
                continue
            acting = state.acting_players()
            decisions += 1
            if decisions % every == 0 and len(acting) == 1 and len(state.legal_actions(acting[0])) > 1:
                found.append(state)
            state = state.apply({seat: rng.choice(state.legal_actions(seat)) for seat in acting})
    return found


def simulations_per_second(game_id: str, players: int, sims: int, count: int) -> float:
    """ismcts simulations per CPU second over `count` positions of `game_id`."""
    from bots.ismcts import IsmctsBot

    game = registry.make(game_id, players)
    simulations, spent = 0, 0.0
    for number, state in enumerate(positions(game, count)):
        seat = state.acting_players()[0]
        bot = IsmctsBot(game, seat, random.Random(number), sims=sims)
        observation, legal = state.observation(seat), state.legal_actions(seat)
        started = time.process_time()
        bot.act(observation, legal)
        spent += time.process_time() - started
        simulations += bot.last_simulations
    return simulations / spent


def in_tree(tree: Path, game_id: str, players: int, sims: int, count: int) -> float:
    """The measurement in a new process of the checkout `tree` (this one too): its venv, its engine
    and bots (PYTHONPATH), this script; each run starts with the bots' caches empty (the Gang of
    Dice heuristic's re-roll plans are cached: a second run in one process would find them)."""
    env = {k: v for k, v in os.environ.items() if k != "ARENA_ENGINE"} | {"PYTHONPATH": str(tree)}
    python = str(tree / ".venv" / "bin" / "python")
    if tree == ROOT:  # this tree, as this process runs it (its interpreter, its ARENA_ENGINE)
        env, python = {**os.environ, "PYTHONPATH": str(tree)}, sys.executable
    command = [python, __file__, "--json", "--games", game_id,
               "--players", str(players), "--sims", str(sims), "--positions", str(count)]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        sys.exit(f"ismcts_speed: error: the run in {tree} failed on {game_id} {players}p: {last}")
    reply = json.loads(done.stdout)
    if Path(reply["engine"]).resolve().parent != tree.resolve():  # a PYTHONPATH that lost
        raise RuntimeError(f"the run in {tree} imported {reply['engine']}, not that tree's engine")
    return float(reply["rate"])


def checked_tree(folder: str) -> Path:
    """`--tree DIR` when it is a checkout set up with scripts/setup.sh, else a one-line exit."""
    tree = Path(folder)
    if not (tree / ".venv" / "bin" / "python").exists() or not (tree / "bots" / "ismcts.py").exists():
        sys.exit(f"ismcts_speed: error: --tree {folder} is not a checkout of this repository set up "
                 "with `bash scripts/setup.sh` (its .venv and bots/ismcts.py), e.g. /work/main")
    return tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(registry.game_ids()))
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--sims", type=int, default=100, help="simulations per decision")
    parser.add_argument("--positions", type=int, default=12, help="decisions per run and row")
    parser.add_argument("--repeat", type=int, default=2, help="best of this many runs per row")
    parser.add_argument("--tree", metavar="DIR", help="another checkout set up with scripts/setup.sh")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a --tree run
    args = parser.parse_args()
    for game_id in args.games.split(","):
        if game_id not in registry.game_ids():
            sys.exit(f"ismcts_speed: error: --games: unknown game {game_id!r}; the games are "
                     + ", ".join(registry.game_ids()))
    if args.json:
        rate = simulations_per_second(args.games, args.players, args.sims, args.positions)
        print(json.dumps({"engine": os.path.dirname(engine.__file__), "rate": rate}))
        return
    tree = checked_tree(args.tree) if args.tree else None
    print(f"engine now: {engine.IMPLEMENTATION}; ismcts sims={args.sims}, {args.positions} positions a run")
    names = ["simulations/s now"] + ([f"simulations/s {tree.name}", f"now / {tree.name}"] if tree else [])
    print("| game | players | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for game_id in args.games.split(","):
        now = other = 0.0
        for _ in range(args.repeat):
            if tree:
                other = max(other, in_tree(tree, game_id, args.players, args.sims, args.positions))
            now = max(now, in_tree(ROOT, game_id, args.players, args.sims, args.positions))
        cells = [f"{now:,.0f}"] + ([f"{other:,.0f}", f"{now / other:.2f}×"] if tree else [])
        print(f"| {game_id} | {args.players} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
