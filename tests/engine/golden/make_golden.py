"""Writes the golden playthroughs that tests/engine/test_golden_replay.py replays.

Made once by the engines as they were before the speed work (main at 344bcc8), so that a faster
engine must reproduce what the old one did, position by position. Never regenerate this file to
make that test pass: a difference is a change of behaviour, the thing the test exists to catch.

Usage: .venv/bin/python -m tests.engine.golden.make_golden
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import registry
from engine.core import NodeKind, State, Step, advance, sample_chance

HERE = Path(__file__).resolve().parent
MATCHES_PER_SETUP = 3
# Every player count on the default rules, and one non-default option set per game.
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "riviera": [{}],
    "gang_of_dice": [{}, {"variant": "physical", "g_counts_as_distinct": True, "start_rule": "winner_starts"}],
    "lost_cities_rivals": [{}, {"display_limit": 4, "start_player": 1}],
    "riga": [{}, {"use_riga_buildings": False, "use_grand_master": False}],
}


def position_digest(state: State, as_recorded: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> str:
    """What the engine shows of one position, hashed: node kind, acting seats with their legal
    actions in order, every seat's observation, chance outcomes with their odds, the result.
    `as_recorded` maps an observation to what the engine showed when the games were recorded,
    where a deliberate change since then shows more (test_golden_replay.py says which)."""
    observations = [state.observation(s) for s in range(state.num_players)]
    if as_recorded is not None:
        observations = [as_recorded(observation) for observation in observations]
    shown: dict[str, Any] = {"kind": state.kind.value, "observations": observations}
    if state.kind is NodeKind.DECISION:
        shown["legal"] = {str(s): state.legal_actions(s) for s in state.acting_players()}
    elif state.kind is NodeKind.CHANCE:
        shown["chance"] = state.chance_outcomes()
    else:
        shown["result"] = [state.returns(), state.ranks()]
    text = json.dumps(shown, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def playthrough(game_id: str, players: int, options: dict[str, Any], seed: int) -> dict[str, Any]:
    """One random game with every position's digest."""
    rng = random.Random(seed)
    state = registry.make(game_id, players, **options).initial_state()
    steps: list[Any] = []
    digests = [position_digest(state)]
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            step = Step(chance=sample_chance(state, rng))
            steps.append(step.chance)
        else:
            step = Step(actions={s: rng.choice(state.legal_actions(s)) for s in state.acting_players()})
            steps.append({str(s): a for s, a in step.actions.items()})
        state = advance(state, step)
        digests.append(position_digest(state))
    return {"game": game_id, "players": players, "options": options, "seed": seed, "steps": steps, "digests": digests}


def main() -> None:
    for game_id, option_sets in OPTIONS.items():
        info = registry.info(game_id)
        games = [
            playthrough(game_id, players, options, seed=1000 * players + 10 * k + m)
            for k, options in enumerate(option_sets)
            for players in range(info.min_players, info.max_players + 1)
            for m in range(MATCHES_PER_SETUP)
        ]
        with gzip.open(HERE / f"{game_id}.json.gz", "wt") as out:
            json.dump(games, out, separators=(",", ":"))
        print(game_id, len(games), "games,", sum(len(g["steps"]) for g in games), "steps")


if __name__ == "__main__":
    main()
