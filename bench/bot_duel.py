"""Two built-in bots head to head in one process: the quick check used to tune ISMCTS.

Plays N matches of a 2+-player game, bot A in one seat and bot B in all others, rotating A's seat
and sharing each seed across the rotation; prints A's mean pairwise score (1 ahead, 1/2 tied).

Usage: .venv/bin/python bench/bot_duel.py GAME SPEC_A SPEC_B GAMES [PLAYERS]
   e.g. .venv/bin/python bench/bot_duel.py lost_cities_rivals ismcts:sims=100,trust=2 heuristic 10
"""

from __future__ import annotations

import sys
import time

from arena.match import run_match


def duel(game_id: str, a: str, b: str, games: int, players: int = 2) -> float:
    """A's mean pairwise score against the B seats over `games` matches."""
    total = 0.0
    for i in range(games):
        seats = [a if (seat + i) % players == 0 else b for seat in range(players)]
        ranks = run_match(game_id, seats, seed=i // players).ranks
        assert ranks is not None
        mine = seats.index(a)
        others = [r for seat, r in enumerate(ranks) if seat != mine]
        total += sum((ranks[mine] < r) + 0.5 * (ranks[mine] == r) for r in others) / len(others)
    return total / games


def main() -> None:
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    game_id, a, b, games = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    players = int(sys.argv[5]) if len(sys.argv) == 6 else 2
    started = time.perf_counter()
    score = duel(game_id, a, b, games, players)
    print(f"{game_id} {a} vs {b}: {score:.3f} over {games} games ({time.perf_counter() - started:.1f}s)")


if __name__ == "__main__":
    main()
