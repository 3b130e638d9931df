"""OpenSpiel's C++ games through pyspiel, measured with bench/engine_speed.py's loop: the anchors
that the engines' seat decisions/s are held against (issue 36).

The same loop as engine_speed's playout: chance sampled with its odds, legal actions listed, one
random legal action applied per acting seat (every seat with legal actions at a simultaneous
node: goofspiel), and in a second run every acting seat's observation built (the observation
string where the game has one, else the information state string). Rates per CPU second.

pyspiel comes with the `openspiel` extra (pyproject.toml); without it the table is one line
saying so. Used by `bench/engine_speed.py --openspiel`; run alone:
  .venv/bin/python bench/openspiel_anchors.py [--seconds 2] [--repeat 1]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

# (game, player counts): hearts is 4 players only, liars_dice 2; goofspiel takes 2 to 10.
GAMES = (("hearts", (4,)), ("liars_dice", (2,)), ("goofspiel", (2, 3, 4)))


def playout(game: Any, rng: random.Random, with_observations: bool) -> tuple[int, int, float]:
    """One random game: (seat decisions, observations built, CPU s spent building them)."""
    state, decisions, observations, observing = game.new_initial_state(), 0, 0, 0.0
    by_string = game.get_type().provides_observation_string
    players = range(game.num_players())
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, odds = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, odds)[0])
            continue
        simultaneous = state.is_simultaneous_node()
        acting = [p for p in players if state.legal_actions(p)] if simultaneous else [state.current_player()]
        if with_observations:
            started = time.process_time()
            for seat in acting:
                state.observation_string(seat) if by_string else state.information_state_string(seat)
            observing += time.process_time() - started
            observations += len(acting)
        if simultaneous:
            state.apply_actions([rng.choice(state.legal_actions(p) or [0]) for p in players])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        decisions += len(acting)
    return decisions, observations, observing


def measure(name: str, players: int, seconds: float) -> tuple[float, float, float]:
    """(seat decisions/s, games/s, obs/s) of `seconds` CPU seconds of seeded random games."""
    import pyspiel

    game = pyspiel.load_game(name) if name in ("hearts", "liars_dice") else \
        pyspiel.load_game(name, {"players": players})
    from engine_speed import timed_playouts  # bench/: the same loop as our engines'

    return timed_playouts(game, playout, seconds)


def pyspiel_missing() -> bool:
    """Whether pyspiel cannot be imported; if so, one line says so and how to install it."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("openspiel: skipped: pyspiel is not installed (the `openspiel` extra: "
              ".venv/bin/pip install -e '.[openspiel]')")
        return True
    return False


def openspiel_anchors(seconds: float, repeat: int) -> None:
    """Print the anchors' table (best of `repeat` per row), or one line when pyspiel is missing."""
    if pyspiel_missing():
        return
    print("\nOpenSpiel's C++ games through pyspiel, the same loop")
    print("| openspiel game | players | seat decisions/s | games/s | obs/s |")
    print("|---|---:|---:|---:|---:|")
    for name, counts in GAMES:
        for players in counts:
            runs = [measure(name, players, seconds) for _ in range(repeat)]
            rates = [max(run[i] for run in runs) for i in range(3)]
            print(f"| {name} | {players} | {rates[0]:,.0f} | {rates[1]:,.1f} | {rates[2]:,.0f} |",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per game and player count")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs per row")
    args = parser.parse_args()
    openspiel_anchors(args.seconds, args.repeat)


if __name__ == "__main__":
    main()
