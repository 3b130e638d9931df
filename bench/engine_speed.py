"""Random-playout speed of every engine on one core: decisions/s and games/s.

The loop is what a search bot or the match runner does without bots' thinking time: sample chance,
list legal actions, apply a random one. Observations are measured separately (obs/s), since the
match runner builds one per decision.

Rates are per CPU second of this process (time.process_time), so other load on the machine
lowers them less than wall-clock rates would.

Usage: .venv/bin/python bench/engine_speed.py [--games riviera,riga] [--seconds 2]
"""

from __future__ import annotations

import argparse
import random
import time

from engine import registry
from engine.core import NodeKind, sample_chance


def playout(game, rng: random.Random, with_observations: bool) -> int:
    """Play one random game; return the number of decision nodes."""
    state, decisions = game.initial_state(), 0
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, rng))
            continue
        acting = state.acting_players()
        if with_observations:
            for seat in acting:
                state.observation(seat)
        state = state.apply({seat: rng.choice(state.legal_actions(seat)) for seat in acting})
        decisions += 1
    return decisions


def measure(game_id: str, players: int, seconds: float, with_observations: bool) -> tuple[float, float]:
    game = registry.make(game_id, players)
    rng = random.Random(1)
    games = decisions = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        decisions += playout(game, rng, with_observations)
        games += 1
    elapsed = time.process_time() - started
    return decisions / elapsed, games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(registry.game_ids()))
    parser.add_argument("--seconds", type=float, default=2.0, help="per game and player count")
    args = parser.parse_args()
    print("| game | players | decisions/s | games/s | decisions/s with observations |")
    print("|---|---:|---:|---:|---:|")
    for game_id in args.games.split(","):
        info = registry.info(game_id)
        for players in range(info.min_players, info.max_players + 1):
            dps, gps = measure(game_id, players, args.seconds, with_observations=False)
            dps_obs, _ = measure(game_id, players, args.seconds, with_observations=True)
            print(f"| {game_id} | {players} | {dps:,.0f} | {gps:,.1f} | {dps_obs:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
