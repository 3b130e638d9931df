"""The aggregates kept as matches are written (arena/store/aggregates.py) equal the same figures
worked out afresh from the stored matches: after a tournament, a ladder run and a kill -9 resume;
migration 0013's backfill gives them too; `Store.pair_totals` is what the rating accumulates."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlmodel import Session

from arena.match.executor import LocalExecutor
from arena.rating import Results
from arena.store import MatchResult, SeatResult, Store, migrations
from arena.store.aggregates import Figures, recompute, stored
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from tests.arena.ladder.test_resume import ladder_process
from tests.arena.postgres_server import postgres_server  # noqa: F401
from tests.arena.store.test_migrations import fresh_url  # noqa: F401
from tests.arena.tournament.test_resume import ENTRANTS, arena, wait_for_matches


def assert_equal(found: Figures, expected: Figures) -> None:
    assert dict(found.rulesets) == dict(expected.rulesets)
    assert dict(found.tournaments) == dict(expected.tournaments)
    assert found.entrants == expected.entrants
    assert found.pairs.keys() == expected.pairs.keys()
    for key, figures in expected.pairs.items():
        assert found.pairs[key][:4] == figures[:4], key
        assert found.pairs[key][4:] == pytest.approx(figures[4:], abs=1e-9), key


def assert_kept(store: Store) -> Figures:
    """The stored aggregates equal the recomputed ones and the rating's pair totals; returns them."""
    with Session(store.engine) as session:
        kept, expected = stored(session), recompute(session)
    assert kept.entrants, "something was stored"
    assert_equal(kept, expected)
    for ruleset in store.rulesets():
        results = Results()
        for match in store.rated_matches(ruleset):
            results.add(match)
        totals = {(t.a, t.b): (t.weight, t.score) for t in store.pair_totals(ruleset)}
        fitted = results.by_name()
        assert totals.keys() == fitted.keys()
        for pair, (weight, score) in totals.items():
            assert (weight, score) == pytest.approx(fitted[pair], abs=1e-9)
    return kept


def mixed_results(tid: int, count: int, seed: int) -> list[MatchResult]:
    """4-player matches of six entrants with ties, timeouts, crashes and aborted matches."""
    rng, names = random.Random(seed), [f"bot{i}" for i in range(6)]
    results = []
    for index in range(count):
        aborted = "worker lost" if index % 7 == 3 else None
        seats = []
        for i, name in enumerate(rng.sample(names, 4)):
            termination = rng.choice(["normal"] * 6 + ["timeout", "crash"])
            seats.append(SeatResult(i, name, name, score=1.0, rank=None if aborted else rng.randint(1, 3),
                                    termination=termination, faults=rng.randint(0, 3) if termination != "crash" else 0))
        results.append(MatchResult(tid, index, 0, index, 0, "toy", "toy@1", index, index, seats, {"steps": []},
                                   aborted_reason=aborted))
    return results


def test_written_matches_keep_the_aggregates_and_sprt_games_stay_out_of_the_pair_totals(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    config = TournamentConfig(game_id="gang_of_dice", players_per_match=4, entrants=tuple(ENTRANTS.split(",")[:5]),
                              rounds=1, seed=3)
    play_tournament(store, start_tournament(store, config), LocalExecutor())
    round_robin = store.create_tournament("toy", "toy@1", "round_robin", {}, 60)
    sprt = store.create_tournament("toy", "toy@1", "sprt", {}, 60)
    for tid, seed in ((round_robin, 1), (sprt, 2)):
        results = mixed_results(tid, 60, seed)
        for start in range(0, 60, 25):  # batches that add to rows an earlier batch made
            store.record_matches(results[start:start + 25])
    store.record_matches(mixed_results(round_robin, 60, 1)[:10])  # already stored: nothing is added twice
    kept = assert_kept(store)
    assert kept.rulesets["toy@1", "toy"][1] > 0, "aborted matches were written"
    assert any(figures[2] for figures in kept.entrants.values()), "forfeits were written"
    assert any(p[0] > 0 and p[4] < p[0] / 3 for p in kept.pairs.values()), "the SPRT games count in records only"


def test_the_aggregates_survive_a_kill_9_and_a_resume(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    run = ["tournament", "run", "--game", "gang_of_dice", "--bots", ENTRANTS, "--rounds", "4", "--seed", "11",
           "--db", url, "--quiet", "--local"]
    driver = subprocess.Popen([sys.executable, "-m", "arena.cli", *run], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    store = Store(url)
    try:
        wait_for_matches(store, 30, driver)
        driver.send_signal(signal.SIGKILL)
        driver.wait(30)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert_kept(store)
    [info] = store.tournaments()
    resumed = arena("tournament", "resume", str(info.id), "--db", url, "--quiet", "--local")
    assert resumed.returncode == 0, resumed.stderr
    assert_kept(store)


def test_the_aggregates_follow_a_ladder(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    ladder = ladder_process(url, "--local")
    try:
        wait_for_matches(store, 40, ladder)
        stopped = arena("ladder", "stop", "--game", "gang_of_dice", "--db", url)
        assert stopped.returncode == 0, stopped.stderr
        ladder.communicate(timeout=120)
    finally:
        if ladder.poll() is None:
            ladder.kill()
    assert_kept(store)


def test_migration_0013_backfills_the_figures_written_with_the_matches(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    tid = store.create_tournament("toy", "toy@1", "round_robin", {}, 80)
    sprt = store.create_tournament("toy", "toy@1", "sprt", {}, 30)
    store.record_matches(mixed_results(tid, 80, 5) + mixed_results(sprt, 30, 6))
    written = assert_kept(store)
    downgrading = migrations._locking_engine(store.engine)
    with downgrading.begin() as connection:
        config = Config()
        config.set_main_option("script_location", str(migrations.SCRIPTS))
        config.attributes["connection"] = connection
        command.downgrade(config, "0012")
    downgrading.dispose()
    store.engine.dispose()
    upgraded = Store(fresh_url)
    with Session(upgraded.engine) as session:
        assert_equal(stored(session), written)
