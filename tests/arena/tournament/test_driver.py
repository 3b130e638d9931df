"""The driver in-process: every planned match stored once, whatever order results arrive in."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

import arena.match.executor
from arena.errors import UsageError
from arena.match.executor import JobOutcome, LocalExecutor, MatchJob
from arena.match.record import MatchRecord
from arena.match.runner import run_match
from arena.store import Store
from arena.tournament.driver import Progress, check_config, play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig, schedule
from engine import registry

TOY = "tests.engine.toy_game:ToyGame"


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.GAMES, "toy", TOY)


def new_store(tmp_path: Path, name: str = "arena.db") -> Store:
    return Store(f"sqlite:///{tmp_path / name}")


def toy_config(**fields: object) -> TournamentConfig:
    base = dict(game_id="toy", players_per_match=3, entrants=("random#1", "random#2", "random#3", "random#4"),
                rounds=2, seed=5)
    return TournamentConfig(**{**base, **fields})  # type: ignore[arg-type]


class ShuffledExecutor:
    """Plays everything, then hands the outcomes back in a seeded random order."""

    workers = 1

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        outcomes = list(LocalExecutor().run(jobs))
        random.Random(self.seed).shuffle(outcomes)
        yield from outcomes


def stored(store: Store, tournament_id: int) -> dict[int, tuple]:
    return {m.match_index: (m.seed, m.chance_seed, [(s.entrant, s.rank) for s in m.seats])
            for m in store.matches(tournament_id=tournament_id, limit=10_000)}


def test_every_planned_match_is_stored_once_and_rated(tmp_path: Path) -> None:
    store, config = new_store(tmp_path), toy_config()
    seen: list[Progress] = []
    tid = start_tournament(store, config)
    info = play_tournament(store, tid, LocalExecutor(), seen.append)
    plan = schedule(config)
    assert info.status == "finished" and info.done_matches == info.total_matches == len(plan) == 4 * 3 * 2
    rows = stored(store, tid)
    assert sorted(rows) == [m.index for m in plan]
    assert all(rows[m.index][:2] == (m.seed, m.chance_seed) for m in plan)
    assert seen[-1].done == len(plan)
    board = store.leaderboard("toy@1")
    assert sorted(r.entrant for r in board) == sorted(config.entrants)
    assert all(r.games == 3 * 2 * 3 for r in board), "C(3,2) tables x 3 rotations x 2 rounds each"


def test_records_replay_and_rotations_share_the_deal(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    tid = start_tournament(store, toy_config(rounds=1))
    play_tournament(store, tid, LocalExecutor())
    deals: dict[int, set[tuple[int, ...]]] = {}
    for summary in store.matches(tournament_id=tid, limit=100):
        record = MatchRecord.from_json(store.match_record(summary.id))  # type: ignore[arg-type]
        assert record.replay().ranks() == [s.rank for s in summary.seats]
        deal = tuple(step.chance for step in record.steps if step.chance is not None)
        table = next(m.table for m in schedule(toy_config(rounds=1)) if m.index == summary.match_index)
        deals.setdefault(table, set()).add(deal)
    assert all(len(d) == 1 for d in deals.values()), "every rotation of a table gets the same cards"
    assert len({next(iter(d)) for d in deals.values()}) > 1


def test_the_writer_stores_the_records_as_the_workers_encoded_them(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.store.database
    from arena.store.record_codec import encode_record

    played: list[JobOutcome] = []
    executor = LocalExecutor(task=lambda job: played.append(arena.match.executor.play_job(job)) or played[-1])

    def writer_encodes(record: object) -> bytes:
        raise AssertionError("the writer encoded a record the worker had encoded")
    monkeypatch.setattr(arena.store.database, "encode_record", writer_encodes)
    store = new_store(tmp_path)
    tid = start_tournament(store, toy_config(rounds=1))
    assert play_tournament(store, tid, executor).status == "finished"
    assert played and all(o.encoded == encode_record(o.record or {}) for o in played), "the toy logs nothing"
    by_index = {o.job.key[1]: o.record for o in played}
    for summary in store.matches(tournament_id=tid, limit=100):
        assert store.match_record(summary.id) == by_index[summary.match_index]


def test_results_arriving_in_any_order_give_the_same_matches_and_ratings(tmp_path: Path) -> None:
    in_order, shuffled = new_store(tmp_path, "a.db"), new_store(tmp_path, "b.db")
    first = start_tournament(in_order, toy_config())
    second = start_tournament(shuffled, toy_config())
    play_tournament(in_order, first, LocalExecutor())
    play_tournament(shuffled, second, ShuffledExecutor(seed=3))
    assert stored(in_order, first) == stored(shuffled, second)
    # the run's last rerate starts from the live table, which saw the results in another order: the
    # same fit, to its tolerance (1e-4 Elo), not to the last bit
    assert [vars(row) for row in in_order.leaderboard("toy@1")] == [
        pytest.approx(vars(row), abs=1e-3) for row in shuffled.leaderboard("toy@1")]


def test_an_arena_error_in_one_match_is_stored_unrated_and_the_rest_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = arena.match.executor.run_match

    def flaky(game_id: str, bots: list[str], seed: int, *args: object, **kwargs: object) -> MatchRecord:
        if seed == schedule(toy_config())[4].seed:
            raise RuntimeError("engine bug on purpose")
        return real(game_id, bots, seed, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(arena.match.executor, "run_match", flaky)
    store = new_store(tmp_path)
    tid = start_tournament(store, toy_config())
    info = play_tournament(store, tid, LocalExecutor())
    assert (info.done_matches, info.aborted_matches) == (24, 1)
    [aborted] = store.matches(status="aborted")
    assert aborted.match_index == 4 and aborted.aborted_reason == "RuntimeError: engine bug on purpose"
    assert sum(r.games for r in store.leaderboard("toy@1")) == 23 * 3, "the aborted match is not rated"


class StopAfter:
    """Plays `count` matches, then acts as if Ctrl-C was pressed."""

    workers = 1

    def __init__(self, count: int) -> None:
        self.count = count

    def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
        for number, outcome in enumerate(LocalExecutor().run(jobs)):
            if number == self.count:
                raise KeyboardInterrupt
            yield outcome


def test_ctrl_c_keeps_what_was_played_and_resume_plays_only_the_rest(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    tid = start_tournament(store, toy_config())
    with pytest.raises(KeyboardInterrupt):
        play_tournament(store, tid, StopAfter(10))
    info = store.tournament(tid)
    assert info is not None and (info.status, info.done_matches) == ("interrupted", 10)
    played: list[MatchJob] = []

    class Recording(LocalExecutor):
        def run(self, jobs: Iterable[MatchJob]) -> Iterator[JobOutcome]:
            for job in jobs:
                played.append(job)
                yield self.task(job)

    info = play_tournament(store, tid, Recording())
    assert len(played) == 14 and {job.key[1] for job in played} == set(range(10, 24))
    assert info.status == "finished" and info.done_matches == 24


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (dict(game_id="chess"), "unknown game 'chess'; valid games:"),
        (dict(players_per_match=2, entrants=("random", "genius")), "unknown bot 'genius' in 'genius'; built-in bots:"),
        (dict(players_per_match=5), "toy is played by 2 to 4 players, not 5"),
        (dict(players_per_match=4, entrants=("random#1", "random#2", "random#3")), "needs at least 4 bots"),
        (dict(options={"show_bonus": 7}), "option show_bonus=7 is not valid"),
        (dict(players_per_match=2, entrants=("random:depth=3", "random")),
         "bot 'random:depth=3': bot 'random' takes no parameter 'depth'"),
    ],
)
def test_bad_configs_are_one_line_usage_errors(tmp_path: Path, fields: dict, message: str) -> None:
    with pytest.raises(UsageError, match=message) as error:
        check_config(toy_config(**fields), new_store(tmp_path))
    assert "\n" not in str(error.value)


def test_the_same_seed_plays_the_same_match_as_run_match(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    tid = start_tournament(store, toy_config())
    play_tournament(store, tid, LocalExecutor())
    summary = store.matches(tournament_id=tid, limit=1, offset=7)[0]
    again = run_match("toy", [s.spec for s in summary.seats], summary.seed, chance_seed=summary.chance_seed)
    assert without_times(again.to_json()) == without_times(store.match_record(summary.id))


def without_times(record: dict | None) -> dict:
    assert record is not None
    return {**record, "steps": [{**step, "elapsed_ms": None} for step in record["steps"]]}


def test_ratings_follow_a_long_run_before_it_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.tournament.driver

    monkeypatch.setattr(arena.tournament.driver, "RERATE_SECONDS", 0.0)
    monkeypatch.setattr(arena.tournament.driver, "RERATE_COST_FACTOR", 0)  # a loaded machine must not skip one
    store = new_store(tmp_path)
    tid = start_tournament(store, toy_config())
    with pytest.raises(KeyboardInterrupt):
        play_tournament(store, tid, StopAfter(9))
    board = store.leaderboard("toy@1")
    assert sum(row.games for row in board) == 9 * 3, "rated from the 9 stored matches, before the end"


def test_a_running_tournament_without_a_heartbeat_seems_stopped(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    store = new_store(tmp_path)
    tid = start_tournament(store, toy_config())
    info = store.tournament(tid)
    assert info is not None and info.status == "running"
    now = datetime.now(UTC)
    assert not info.seems_stopped(now)
    assert info.seems_stopped(now + timedelta(minutes=2))
    store.touch_tournament(tid)
    assert not store.tournament(tid).seems_stopped(now + timedelta(seconds=30))  # type: ignore[union-attr]
    play_tournament(store, tid, LocalExecutor())
    assert not store.tournament(tid).seems_stopped(now + timedelta(days=1))  # type: ignore[union-attr]
