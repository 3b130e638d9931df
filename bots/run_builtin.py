"""Any built-in bot as an external bot over the SDK: the readable, complete path for a strong bot.

    .venv/bin/python -m bots.run_builtin --bot ismcts:sims=200 --token TOKEN [--address 127.0.0.1:50051]

It is the same code as the built-in bot (bots/ismcts.py, bots/heuristic/), wrapped in the SDK: at
each match start it builds the game from the MatchStart message (game id, players, options) and a
bot for its seat, seeded from `--seed` and the match id, then answers that match's decisions with
it; several matches at once each get their own bot. Without --token it reads $ARENA_TOKEN (and
$ARENA_ADDRESS), as a bot launched by the arena does.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import zlib

from bots import bot_names, make_bot, parse_spec
from bots.base import Bot as BuiltinBot
from bots.sdk import Bot, Decision, run
from engine import registry


class BuiltinOverSdk(Bot):
    """Plays one built-in bot spec in every match this connection is given."""

    def __init__(self, spec: str, seed: int = 0) -> None:
        self.spec, self.seed = spec, seed
        self.players: dict[tuple[str, int], BuiltinBot] = {}

    def on_match_start(self, start) -> None:  # type: ignore[no-untyped-def]
        game = registry.make(start.game_id, start.num_players, **json.loads(start.options_json or "{}"))
        bot_seed = zlib.crc32(f"{self.seed}:{start.match_id}:{start.seat}".encode())
        self.players[(start.match_id, start.seat)] = make_bot(self.spec, game, start.seat, bot_seed)

    def on_match_end(self, end) -> None:  # type: ignore[no-untyped-def]
        self.players.pop((end.match_id, end.seat), None)

    def decide(self, decision: Decision) -> int:
        player = self.players[(decision.match_id, decision.seat)]
        return player.act(decision.observation, decision.legal_actions)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Run a built-in bot (random, heuristic, ismcts) as an external bot.")
    parser.add_argument("--bot", required=True, help="built-in bot spec, e.g. ismcts:sims=200 or heuristic")
    parser.add_argument("--address", default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"))
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="bot token (default $ARENA_TOKEN)")
    parser.add_argument("--seed", type=int, default=0, help="seed mixed with each match id (default 0)")
    parser.add_argument("--matches", type=int, help="stop after this many matches (default: run until stopped)")
    args = parser.parse_args(argv)
    if parse_spec(args.bot)[0] not in bot_names():
        parser.error(f"unknown bot {parse_spec(args.bot)[0]!r}; built-in bots: {', '.join(bot_names())}")
    try:  # check the parameters now rather than at the first match
        for game_id in registry.game_ids():
            make_bot(args.bot, registry.make(game_id, registry.info(game_id).min_players), 0, 0)
    except ValueError as error:
        parser.error(str(error))
    if not args.token:
        parser.error("give --token TOKEN (from `arena bot register NAME`) or set ARENA_TOKEN")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    played = run(args.address, args.token, BuiltinOverSdk(args.bot, args.seed), max_matches=args.matches,
                 client_name=f"builtin-{parse_spec(args.bot)[0]}/1.0")
    print(f"played {played} matches")


if __name__ == "__main__":
    main()
