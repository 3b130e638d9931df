"""Live watching on a real local Ray: the sink is an actor on the driver's node; a dead one fails nothing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import ray

from arena.match.executor import RayExecutor
from arena.match.record import MatchRecord
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from tests.arena.match.test_live import Watched

# A Ray worker sends live steps once a second (the test cannot shorten that interval in the
# workers), so a match must outlast a few sends to be seen. A budget in simulations lasts as long as
# the machine takes (under a second on a fast one: CI once saw nothing); a budget in time does not:
# ~50 searched decisions of 100 ms make a match of at least 5 s on any machine.
SLOW = TournamentConfig(game_id="riviera", players_per_match=2, entrants=("ismcts:ms=100", "random"), seed=4)



def watch_tournament(store: Store, ray_executor: RayExecutor) -> tuple[Watched, int]:
    tid = start_tournament(store, SLOW)
    watched, done = Watched(store, tid), threading.Event()
    poller = threading.Thread(target=watched.poll_until, args=(done,))
    poller.start()
    try:
        assert play_tournament(store, tid, ray_executor).status == "finished"
    finally:
        done.set()
        poller.join()
    return watched, tid


def test_matches_on_ray_workers_are_watched_live(local_ray: None, tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    ray_executor = RayExecutor(live=True)
    try:
        watched, tid = watch_tournament(store, ray_executor)
    finally:
        ray_executor.close()
    assert watched.seen and store.live_matches(tid) == []
    for match in store.matches(tournament_id=tid):
        final = MatchRecord.from_json(store.match_record(match.id)).to_json()["steps"]
        assert all(s == final[:len(s)] for s in watched.seen.get(match.match_index, []))


def test_a_dead_live_actor_fails_no_match(local_ray: None, tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    ray_executor = RayExecutor(live=True)
    ray.kill(ray_executor.live_sink.actor)
    try:
        watched, tid = watch_tournament(store, ray_executor)
    finally:
        ray_executor.close()
    assert watched.seen == {}
    assert [m.status for m in store.matches(tournament_id=tid)] == ["finished", "finished"]
