"""A database filled by real tournaments (the real driver, in-process executor), shared by the
dashboard tests; and a dashboard served by uvicorn on loopback for the browser tests.

- Lost Cities: Rivals, 2 players: heuristic, random and random#2, two rounds (12 matches):
  the heuristic bot is clearly the strongest, so the order is not a coin toss.
- Riviera, 3 players: four random entrants (12 matches) — hidden hands for the seat views.
- One extra stored match whose seat 1 forfeited on time, for the fault pages and filters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.match.executor import LocalExecutor
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.rating import rerate
from arena.store import MatchResult, SeatResult, Store
from arena.tournament.driver import builtin_version, play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from dashboards.screenshot import CHROMIUM, chromium, serve

LCR = TournamentConfig(game_id="lost_cities_rivals", players_per_match=2,
                       entrants=("heuristic", "random", "random#2"), rounds=2, seed=11)
RIVIERA = TournamentConfig(game_id="riviera", players_per_match=3,
                           entrants=("random", "random#2", "random#3", "random#4"), seed=5)
FAULT_REASON = "no answer within 1000 ms (3 faulty decisions); the random bot played the rest"


@dataclasses.dataclass(frozen=True)
class Filled:
    """The filled database: its URL, an open Store, the tournament ids and the faulted match id."""

    url: str
    store: Store
    lcr: int
    riviera: int
    fault_tournament: int
    fault_match: int


@pytest.fixture(scope="session")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Filled:
    return fill(f"sqlite:///{tmp_path_factory.mktemp('dashboard') / 'arena.db'}")


def fill(url: str) -> Filled:
    """Play the tournaments above into the database at `url` and store the forfeited match."""
    store = Store(url)
    ids = []
    for config, name in ((LCR, "LCR cup"), (RIVIERA, "Riviera open")):
        tournament_id = start_tournament(store, config, name)
        play_tournament(store, tournament_id, LocalExecutor())
        ids.append(tournament_id)
    fault_tournament, fault_match = _store_forfeited_match(store)
    return Filled(url, store, ids[0], ids[1], fault_tournament, fault_match)


def _store_forfeited_match(store: Store) -> tuple[int, int]:
    """A real gang_of_dice match, stored as the driver stores a match whose seat 1 timed out."""
    record = run_match("gang_of_dice", ["random", "random"], seed=3)
    record.seats[1].termination, record.seats[1].reason = Termination.TIMEOUT, FAULT_REASON
    config = TournamentConfig(game_id="gang_of_dice", players_per_match=2, entrants=("random", "slowpoke"))
    tournament_id = store.create_tournament("gang_of_dice", record.ruleset, "round_robin", config.to_json(), 1)
    seats = [
        SeatResult(0, "random", "random", version=builtin_version(), score=record.returns[0], rank=1),
        SeatResult(1, "slowpoke", "random", version=builtin_version(), score=record.returns[1], rank=2,
                   termination="timeout", reason=FAULT_REASON, faults=3),
    ]
    store.record_match(MatchResult(tournament_id, 0, 0, 0, 0, "gang_of_dice", record.ruleset, 3, 3, seats,
                                   record.to_json(), decisions=10, duration_ms=5.0, node="node-b"))
    store.set_tournament_status(tournament_id, "finished")
    rerate(store, record.ruleset)
    match = store.matches(tournament_id=tournament_id)[0]
    return tournament_id, match.id


@pytest.fixture(scope="session")
def server(filled: Filled) -> Iterator[str]:
    """The dashboard on a free loopback port, served by uvicorn in a thread; yields its base URL."""
    with serve(Store(filled.url)) as base:
        yield base


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium through Playwright (never Playwright's own browser download)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: scripts/system-deps.sh installs the chromium package")
    with chromium() as launched:
        yield launched
