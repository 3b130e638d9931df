"""Tournaments on a real local Ray (2 CPUs, loopback): stored once, rated, robust to dying workers.

One Ray instance for the whole module (starting Ray costs seconds); the toy game reaches the
workers through each job's game reference, not through a patched registry.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena.gateway.server import GatewayThread
from arena.link.hostkey import host_key
from arena.match import executor
from arena.match.executor import JobOutcome, MatchJob, RayExecutor, play_job
from arena.match.record import encode_public
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig, schedule
from engine import registry

TOY = "tests.engine.toy_game:ToyGame"
ROOT = Path(__file__).resolve().parents[3]
SDK_BOT = ROOT / "bots" / "examples" / "python" / "random_bot.py"



@pytest.fixture(autouse=True)
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.GAMES, "toy", TOY)


def real_game() -> str | None:
    """The quickest registered real game for built-in bots (None before any is registered)."""
    games = [g for g in registry.game_ids() if g != "toy"]
    return "gang_of_dice" if "gang_of_dice" in games else (games[0] if games else None)


@pytest.mark.parametrize("game_id", ["toy", real_game() or "toy"])
def test_a_round_robin_on_ray_stores_every_match_once_and_rates(local_ray: None, tmp_path: Path, game_id: str) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    players = registry.info(game_id).min_players
    config = TournamentConfig(game_id=game_id, players_per_match=players, rounds=2, seed=3,
                              entrants=("random#1", "random#2", "random#3", "random#4"))
    tid = start_tournament(store, config)
    info = play_tournament(store, tid, RayExecutor(max_in_flight=3))
    plan = schedule(config)
    assert info.status == "finished" and info.done_matches == len(plan) and info.aborted_matches == 0
    matches = store.matches(tournament_id=tid, limit=10_000)
    assert sorted(m.match_index for m in matches) == [m.index for m in plan]
    assert len({m.key for m in matches}) == len(plan)
    board = store.leaderboard(info.ruleset)
    assert sorted(r.entrant for r in board) == sorted(config.entrants)
    assert sum(r.games for r in board) == len(plan) * players
    assert all(r.low < r.elo < r.high for r in board)


def timed_task(job: MatchJob) -> JobOutcome:
    """Records when the match ran (to see how many ran at once)."""
    started = time.time()
    time.sleep(0.3)
    return JobOutcome(job, {"start": started, "end": time.time()})


def most_at_once(outcomes: list[JobOutcome]) -> int:
    spans = [(o.record["start"], o.record["end"]) for o in outcomes]  # type: ignore[index]
    return max(sum(s <= start < e for s, e in spans) for start, _ in spans)


def toy_jobs(count: int, seed: int = 1) -> list[MatchJob]:
    return [MatchJob.for_game("toy", key=(seed, i), bots=("random", "random"), seed=seed * 1000 + i, chance_seed=i)
            for i in range(count)]


def test_no_more_than_max_in_flight_matches_run_at_once(local_ray: None) -> None:
    """The promise is an upper bound: with 2 CPUs, one at a time holds only by the cap. (Two at once
    is what a quiet machine does with max_in_flight=2, but a loaded one may run them one after the other.)"""
    for cap in (1, 2):
        outcomes = list(RayExecutor(max_in_flight=cap, task=timed_task).run(toy_jobs(4)))
        assert len(outcomes) == 4
        assert most_at_once(outcomes) <= cap


def marker(job: MatchJob) -> Path:
    return Path(tempfile.gettempdir()) / f"arena-test-worker-death-{job.seed}"


def die_once(job: MatchJob) -> JobOutcome:
    """Kills its own worker process the first time it sees a job with an odd index."""
    if job.key[1] % 2 and not marker(job).exists():
        marker(job).touch()
        os._exit(1)
    return play_job(job)


def always_die(job: MatchJob) -> JobOutcome:
    os._exit(1)


def test_a_match_whose_worker_dies_is_played_again_and_returned_once(local_ray: None) -> None:
    jobs = toy_jobs(4, seed=int(time.time()))
    try:
        outcomes = list(RayExecutor(task=die_once).run(jobs))
    finally:
        for job in jobs:
            marker(job).unlink(missing_ok=True)
    assert sorted(o.job.key for o in outcomes) == [j.key for j in jobs]
    assert {o.job.key[1]: o.attempts for o in outcomes} == {0: 1, 1: 2, 2: 1, 3: 2}
    for outcome in outcomes:
        assert outcome.error is None
        expected = play_job(outcome.job).record
        assert outcome.record["ranks"] == expected["ranks"]  # type: ignore[index]


def test_a_match_that_kills_every_worker_is_given_up_as_aborted(local_ray: None) -> None:
    [outcome] = RayExecutor(task=always_die, max_attempts=2).run(toy_jobs(1))
    assert outcome.record is None and outcome.attempts == 2
    assert outcome.error is not None and outcome.error.startswith("worker died 2 times")


def test_a_connected_bot_plays_its_tournament_matches_through_the_gateway(local_ray: None, tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    token = store.register_bot("dialer")
    with GatewayThread(store, host_key=host_key()) as gateway:
        bot = subprocess.Popen([sys.executable, str(SDK_BOT), "--address", gateway.address, "--token", token,
                                "--seed", "2"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            _wait_connected(gateway, "dialer")
            config = TournamentConfig(game_id="toy", players_per_match=2, rounds=1, seed=4, gateway=gateway.address,
                                      entrants=("random#1", "random#2", "dialer"), time_per_move_ms=2000)
            tid = start_tournament(store, config)
            info = play_tournament(store, tid, RayExecutor())
        finally:
            bot.terminate()
            bot.wait(10)
    assert info.done_matches == len(schedule(config)) == 6 and info.aborted_matches == 0
    dialer = [s for m in store.matches(tournament_id=tid) for s in m.seats if s.entrant == "dialer"]
    assert len(dialer) == 4 and all(s.kind == "connected" and s.termination == "normal" for s in dialer)
    assert "dialer" in {r.entrant for r in store.leaderboard(info.ruleset)}


def _wait_connected(gateway: GatewayThread, name: str, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while name not in gateway.gateway.sessions:
        assert time.monotonic() < deadline, f"bot {name} did not connect within {timeout_s} s"
        time.sleep(0.05)



def test_a_batch_lasts_about_the_target_and_shrinks_when_few_matches_remain() -> None:
    assert executor.batch_size(None, 1000, workers=2, target_ms=100) == 1, "nothing measured yet: one match"
    assert executor.batch_size(5.0, 1000, workers=2, target_ms=100) == 20
    assert executor.batch_size(8.0, None, workers=2, target_ms=100) == 12, "a lazy stream of jobs: no tail rule"
    assert executor.batch_size(250.0, 1000, workers=2, target_ms=100) == 1, "long matches: one per task"
    assert executor.batch_size(0.01, 10_000, workers=2, target_ms=100) == executor.MAX_BATCH
    assert executor.batch_size(5.0, 36, workers=2, target_ms=100) == 9, "the rest spread over 2 tasks per worker"
    assert executor.batch_size(5.0, 3, workers=2, target_ms=100) == 1
    assert executor.batch_size(5.0, 1000, workers=2, target_ms=0) == 1, "batching off"


def test_the_running_mean_follows_recent_matches_per_game() -> None:
    durations = executor.MatchDurations()
    assert durations.mean_ms("toy") is None
    durations.add("toy", 500.0)  # a worker's first match: its imports included
    for _ in range(40):  # about one batch
        durations.add("toy", 5.0)
        durations.add("other", 50.0)
    assert 5.0 < durations.mean_ms("toy") < 6.0  # type: ignore[operator]
    assert durations.mean_ms("other") == pytest.approx(50.0)


def sleepy(job: MatchJob) -> JobOutcome:
    """A toy match that lasts 10 ms or more, so batches of several form."""
    time.sleep(0.01)
    return play_job(job)


def test_short_matches_share_tasks_and_each_comes_back_once_with_its_record(local_ray: None) -> None:
    jobs = toy_jobs(60, seed=7)
    batched, single = RayExecutor(task=sleepy), RayExecutor(task=sleepy, batch=False)
    for runner in (batched, single):
        outcomes = list(runner.run(jobs))
        assert sorted(o.job.key for o in outcomes) == [j.key for j in jobs]
        assert all(o.error is None and o.attempts == 1 for o in outcomes)
        for outcome in outcomes:
            assert outcome.record["ranks"] == play_job(outcome.job).record["ranks"]  # type: ignore[index]
            assert outcome.encoded == encode_public(outcome.record or {}), "encoded on the worker, for the store"
    assert single.tasks == len(jobs)
    assert batched.tasks < len(jobs) // 2


def echo(job: MatchJob) -> JobOutcome:
    return JobOutcome(job, {"played": True}, duration_ms=0.1)


def test_matches_with_connected_bots_run_one_per_task(local_ray: None) -> None:
    jobs = [replace(job, gateway="127.0.0.1:1") if job.key[1] % 10 == 0 else job for job in toy_jobs(200, seed=8)]
    runner = RayExecutor(task=echo)
    assert sorted(o.job.key for o in runner.run(jobs)) == [j.key for j in jobs]
    connected = sum(1 for j in jobs if j.gateway)
    # A task for each connected match and at least one for each run of 9 built-in ones between them.
    assert 2 * connected <= runner.tasks < len(jobs) // 2


def die_in_batch(job: MatchJob) -> JobOutcome:
    """Kills its worker the first time it plays match 10 (in the first batch of several matches)."""
    if job.key[1] == 10 and not marker(job).exists():
        marker(job).touch()
        os._exit(1)
    return sleepy(job)


def test_a_worker_killed_mid_batch_has_the_batch_played_again_each_match_once(local_ray: None) -> None:
    jobs = toy_jobs(40, seed=int(time.time()) + 1)
    try:
        outcomes = list(RayExecutor(task=die_in_batch).run(jobs))
    finally:
        marker(jobs[10]).unlink(missing_ok=True)
    assert sorted(o.job.key for o in outcomes) == [j.key for j in jobs], "every match once"
    attempts = {o.job.key[1]: o.attempts for o in outcomes}
    again = sorted(index for index, count in attempts.items() if count == 2)
    assert set(attempts.values()) == {1, 2}
    assert 10 in again and len(again) > 1, "the whole batch of match 10, not match 10 alone"
    assert again == list(range(again[0], again[-1] + 1)), f"one batch of consecutive matches: {again}"
    for outcome in outcomes:
        assert outcome.error is None
        assert outcome.record["ranks"] == play_job(outcome.job).record["ranks"]  # type: ignore[index]


def test_the_next_task_starts_while_the_caller_handles_a_result(local_ray: None) -> None:
    outcomes = RayExecutor(max_in_flight=1, task=timed_task).run(toy_jobs(2, seed=9))
    next(outcomes)
    handed_over = time.time()
    time.sleep(1.0)  # the driver writing to a slow database
    second = next(outcomes)
    assert second.record["start"] < handed_over + 0.5  # type: ignore[index]
