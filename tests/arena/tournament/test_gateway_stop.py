"""A tournament whose gateway stops: the matches it cut short are not results; resume plays them."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from arena.gateway.server import GatewayThread
from arena.match.executor import JobOutcome, LocalExecutor, MatchJob
from arena.store import Store
from arena.tournament.driver import GatewayGone, play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from tests.arena.gateway_fixtures import (  # noqa: F401
    HOST_KEY,
    SDK_BOT,
    BotProcesses,
    bots,
    toy_registered,
    wait_connected,
)
from tests.bots.test_sdk import free_port


class StopsTheGatewayAfter:
    """Plays matches in this process; after `count` of them the gateway is stopped (an orderly stop)."""

    workers = 1

    def __init__(self, count: int, gateway: GatewayThread) -> None:
        self.count, self.gateway = count, gateway

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        for number, outcome in enumerate(LocalExecutor().run(jobs), start=1):
            yield outcome
            if number == self.count:
                self.gateway.stop()


def test_a_stopped_gateway_interrupts_the_tournament_and_resume_plays_what_it_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bots: BotProcesses, toy_registered: None  # noqa: F811
) -> None:
    monkeypatch.setenv("ARENA_HOST_KEY", HOST_KEY)
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    token = store.register_bot("steady")
    port = free_port()
    config = TournamentConfig(game_id="toy", players_per_match=2, entrants=("steady", "random"), rounds=3,
                              seed=5, gateway=f"127.0.0.1:{port}")
    tid = start_tournament(store, config)
    total = store.tournament(tid).total_matches  # type: ignore[union-attr]
    with GatewayThread(store, port=port, host_key=HOST_KEY) as first:
        process = bots.python(SDK_BOT, "--address", first.address, "--token", token)
        wait_connected(first, "steady", process=process)
        with pytest.raises(GatewayGone) as gone:
            play_tournament(store, tid, StopsTheGatewayAfter(2, first))
    assert "the gateway stopped or cannot be reached" in str(gone.value)
    info = store.tournament(tid)
    assert info is not None and (info.status, info.done_matches, info.aborted_matches) == ("interrupted", 2, 0)
    assert all(seat.termination == "normal" for match in store.matches(tournament_id=tid) for seat in match.seats)
    time.sleep(0.5)  # the bot notices, backs off and keeps dialling the closed port
    with GatewayThread(store, port=port, host_key=HOST_KEY) as second:
        wait_connected(second, "steady", timeout_s=15, process=process)
        info = play_tournament(store, tid, LocalExecutor())
    assert (info.status, info.done_matches, info.aborted_matches) == ("finished", total, 0)
