"""Random playouts of one engine, every position hashed: what test_differential.py compares between
the compiled engine (this process) and the Python sources (a subprocess with ARENA_ENGINE=pure).

A position's digest is the golden replays' (`position_digest`): node kind, every seat's
observation, the acting seats' legal actions in order, the chance outcomes with their odds, the
returns and ranks at the end. The steps come from `random.Random(seed)` through `sample_chance`
and `rng.choice` of the legal actions, so an engine that samples a different chance outcome or
lists the actions in another order diverges at that position too.

Run as a module it prints, as JSON, what `playouts` returns for the engine it loads:
  python -m tests.engine.differential GAME DECISIONS          the playouts' chained digests
  python -m tests.engine.differential GAME DECISIONS SEED     one playout's position digests
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from dataclasses import asdict, dataclass
from typing import Any

from engine import registry
from engine.core import NodeKind, State, Step, advance, sample_chance
from tests.engine.golden.make_golden import OPTIONS, position_digest

# The golden replays' option sets, and Riviera played in turn as well as all at once.
OPTION_SETS: dict[str, list[dict[str, Any]]] = {**OPTIONS, "riviera": [{}, {"playMode": "sequential"}]}


@dataclass(frozen=True)
class Playout:
    """One seeded random game: its set-up, how many seat decisions it had, and its positions'
    digests chained into one (sha256 over them in order)."""

    seed: int
    players: int
    options: dict[str, Any]
    decisions: int
    digest: str


def setup_of(game_id: str, seed: int) -> tuple[int, dict[str, Any]]:
    """The player count and options of playout `seed`: every count and option set in turn."""
    info = registry.info(game_id)
    counts = list(range(info.min_players, info.max_players + 1))
    option_sets = OPTION_SETS[game_id]
    return counts[seed % len(counts)], option_sets[(seed // len(counts)) % len(option_sets)]


def positions(game_id: str, seed: int) -> list[str]:
    """Every position digest of playout `seed`, from the initial state to the end."""
    players, options = setup_of(game_id, seed)
    rng = random.Random(seed)
    state = registry.make(game_id, players, **options).initial_state()
    found = [position_digest(state)]
    while state.kind is not NodeKind.TERMINAL:
        state = advance(state, random_step(state, rng))
        found.append(position_digest(state))
    return found


def random_step(state: State, rng: random.Random) -> Step:
    """Chance sampled with its odds, or a uniformly random legal action for every acting seat."""
    if state.kind is NodeKind.CHANCE:
        return Step(chance=sample_chance(state, rng))
    return Step(actions={s: rng.choice(state.legal_actions(s)) for s in state.acting_players()})


def playouts(game_id: str, decisions: int) -> list[Playout]:
    """Seeded playouts 0, 1, 2, ... until they hold at least `decisions` seat decisions."""
    done: list[Playout] = []
    total = seed = 0
    while total < decisions:
        players, options = setup_of(game_id, seed)
        digest, count = chained(game_id, seed)
        done.append(Playout(seed, players, options, count, digest))
        total += count
        seed += 1
    return done


def chained(game_id: str, seed: int) -> tuple[str, int]:
    """(sha256 of playout `seed`'s position digests in order, its seat decisions)."""
    players, options = setup_of(game_id, seed)
    rng = random.Random(seed)
    state = registry.make(game_id, players, **options).initial_state()
    chain, count = hashlib.sha256(position_digest(state).encode()), 0
    while state.kind is not NodeKind.TERMINAL:
        step = random_step(state, rng)
        count += len(step.actions or ())
        state = advance(state, step)
        chain.update(position_digest(state).encode())
    return chain.hexdigest()[:32], count


def main(argv: list[str]) -> None:
    game_id, decisions = argv[0], int(argv[1])
    if len(argv) > 2:
        print(json.dumps(positions(game_id, int(argv[2]))))
    else:
        print(json.dumps([asdict(p) for p in playouts(game_id, decisions)]))


if __name__ == "__main__":
    main(sys.argv[1:])
