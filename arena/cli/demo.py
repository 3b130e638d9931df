"""`arena demo`: the README's main job — a round robin of the built-in bots for every game, rated.

For every registered game: a round robin at the game's smallest table size between every built-in
bot that can play that game (a bot that cannot is left out, e.g. a heuristic written for one game
only), padded with extra random entrants (`random#2`, `random#3`, ...) so that there is a field of
at least four. The search bot gets a fixed number of simulations per decision (`ismcts:sims=50`,
100 in Gang of Dice): enough to place above the heuristic in every game, small enough that the
demo takes a few minutes on two cores. Matches run on a local Ray and land in the database (`arena.db` by default), so
`arena leaderboard` and the dashboard show them afterwards; the leaderboards are printed at the end.
"""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli.leaderboard import format_leaderboard
from arena.cli.options import game_info
from arena.cli.tournament import add_run_options, close_executor, make_executor, play_with_progress
from arena.store import Store
from arena.tournament.driver import plan_tournament, store_tournament
from arena.tournament.schedule import TournamentConfig
from bots import bot_names, make_bot
from engine import registry

# A `sims` budget (not `ms`: the demo replays the same on every machine) that puts ismcts above the
# heuristic in every game's leaderboard and keeps the demo a few minutes (docs/tournaments.md).
DEMO_SPECS = {"ismcts": "ismcts:sims=50"}
GAME_SPECS = {"gang_of_dice": {"ismcts": "ismcts:sims=100"}}  # at 50 it only tied the heuristic
MIN_FIELD = 4


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="a rated round robin of the built-in bots for every game")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds per game (default 4)")
    parser.add_argument("--games", help="comma-separated game ids (default: every registered game)")
    add_run_options(parser)
    parser.set_defaults(handler=demo_command)


def demo_command(args: argparse.Namespace) -> int:
    store = Store(args.db)
    plans = [plan_tournament(demo_config(game_id, args.seed, args.rounds), store) for game_id in demo_games(args.games)]
    executor = make_executor(args)
    try:
        played = [play_with_progress(store, store_tournament(store, plan, "demo"), executor, args.quiet, plan)
                  for plan in plans]
    finally:
        close_executor(executor)
    print(f"\nleaderboards ({store.url}; every stored match of each ruleset counts):\n")
    for info in played:
        rows = store.leaderboard(info.ruleset)
        print(format_leaderboard(info.ruleset, rows, store.rated_count(info.ruleset)))
        print()
    return 0


def demo_games(text: str | None) -> list[str]:
    """The games to play: the given ids (checked), else every registered game."""
    if text is None:
        return registry.game_ids()
    return [game_info(g.strip()).id for g in text.split(",") if g.strip()]


def demo_config(game_id: str, seed: int, rounds: int) -> TournamentConfig:
    """A round robin at the game's smallest table between every built-in bot that plays it."""
    players = registry.info(game_id).min_players
    entrants = demo_entrants(game_id, players)
    return TournamentConfig(game_id=game_id, players_per_match=players, entrants=tuple(entrants),
                            rounds=rounds, seed=seed)


def demo_spec(game_id: str, name: str) -> str:
    """The spec a built-in bot enters the demo of a game with: its demo budget, else its name."""
    return GAME_SPECS.get(game_id, {}).get(name, DEMO_SPECS.get(name, name))


def demo_entrants(game_id: str, players: int) -> list[str]:
    """Built-in bots that can play the game, then `random#2`, `random#3`, ... up to the field size."""
    game = registry.make(game_id, players)
    entrants = []
    for name in bot_names():
        spec = demo_spec(game_id, name)
        try:
            make_bot(spec, game, 0, 0)
        except (TypeError, ValueError):  # a bot written for other games only
            continue
        entrants.append(spec)
    extra = 2
    while len(entrants) < max(MIN_FIELD, players + 2):
        entrants.append(f"random#{extra}")
        extra += 1
    return entrants
