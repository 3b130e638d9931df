"""Real matches stored as the driver stores them, for the drawn-board tests: a database of a
few chosen matches (game, player count, seed, options) and the dashboard serving it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.match.runner import run_match
from arena.store import MatchResult, SeatResult, Store
from arena.tournament.driver import builtin_version
from arena.tournament.schedule import TournamentConfig
from dashboards.replay import Replay, public_view
from dashboards.screenshot import serve


@dataclass(frozen=True)
class Stored:
    """One stored match: its id in the database and its replay (every position's state)."""

    id: int
    replay: Replay

    def view(self, position: int, view: str | int) -> dict[str, Any]:
        """The observation `view` ("public" or a seat) had at `position`."""
        state = self.replay.states[position]
        return public_view(state) if view == "public" else state.observation(int(view))


def store_match(store: Store, game_id: str, bots: Sequence[str], seed: int,
                options: dict[str, Any] | None = None) -> int:
    """Play one real match of random bots, entered under the names `bots`, and store it in a
    finished tournament of its own; returns its id."""
    record = run_match(game_id, ["random"] * len(bots), seed=seed, options=options)
    config = TournamentConfig(game_id=game_id, players_per_match=len(bots), entrants=tuple(bots))
    tournament = store.create_tournament(game_id, record.ruleset, "round_robin", config.to_json(), 1)
    seats = [SeatResult(i, bot, "random", version=builtin_version(), score=record.returns[i], rank=record.ranks[i])
             for i, bot in enumerate(bots)]
    store.record_match(MatchResult(tournament, 0, 0, 0, 0, game_id, record.ruleset, seed, seed, seats,
                                   record.to_json(), decisions=len(record.steps)))
    store.set_tournament_status(tournament, "finished")
    return store.matches(tournament_id=tournament)[0].id


@contextmanager
def served(path: Path, matches: Sequence[tuple[str, Sequence[str], int, dict[str, Any] | None]]
           ) -> Iterator[tuple[str, list[Stored]]]:
    """A new database at `path` holding `matches` (game, bots, seed, options), served on
    loopback; yields the base URL and the stored matches."""
    store = Store(f"sqlite:///{path}")
    stored = []
    for game_id, bots, seed, options in matches:
        match_id = store_match(store, game_id, bots, seed, options)
        stored.append(Stored(match_id, Replay.from_record(store.match_record(match_id), list(bots))))
    with serve(store) as base:
        yield base, stored
