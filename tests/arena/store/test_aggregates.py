"""The aggregates kept as matches are written (arena/store/aggregates.py) equal the same figures
worked out afresh from the stored matches: after a tournament, a ladder run and a kill -9 resume;
migration 0013's backfill gives them too (and 0018's the rated counts); `Store.pair_totals` and
`Store.entrant_totals` are what the rating accumulates from the rated matches."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import inspect
from sqlmodel import Session

from arena.match.executor import LocalExecutor
from arena.rating import Results
from arena.store import EntrantTotal, MatchResult, SeatResult, Store, migrations
from arena.store.aggregates import PAIR_SHARES, Figures, entrant_numbers, recompute, stored
from arena.store.retention import Selection, prune_records
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from tests.arena.ladder.test_resume import ladder_process
from tests.arena.postgres_server import postgres_server  # noqa: F401
from tests.arena.store.test_migrations import fresh_url  # noqa: F401
from tests.arena.tournament.test_resume import ENTRANTS, arena, wait_for_matches


def assert_equal(found: Figures, expected: Figures) -> None:
    assert dict(found.rulesets) == dict(expected.rulesets)
    assert dict(found.tournaments) == dict(expected.tournaments)
    assert found.entrants == expected.entrants  # the rated wins too: whole shares, exact in any order
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
        assert_entrant_totals(store, ruleset)
        assert_read_as_columns(store, ruleset, results)
    return kept


def assert_read_as_columns(store: Store, ruleset: str, from_matches: Results) -> None:
    """`pair_chunks` hold `pair_totals`' numbers, and the totals a refit reads (chunks of columns and
    entrant totals) make the same Results as the rated matches added one by one."""
    singles = list(store.pair_chunks(ruleset, size=1))  # a chunk as soon as an entrant's pairs are in
    assert [len(set(chunk.a.tolist())) for chunk in singles] == [1] * len(singles)
    assert len({int(chunk.a[0]) for chunk in singles}) == len(singles), "an entrant's pairs in one chunk"
    chunks = list(store.pair_chunks(ruleset, size=7))
    assert sorted((c.names[a], c.names[b], w, s) for c in chunks
                  for a, b, w, s in zip(c.a.tolist(), c.b.tolist(), c.weight.tolist(), c.score.tolist(), strict=True)
                  ) == [(t.a, t.b, t.weight, t.score) for t in store.pair_totals(ruleset)]
    read = Results()
    read.add_totals(chunks, store.entrant_totals(ruleset))
    assert sorted(read.names) == sorted(from_matches.names)
    assert read.by_name().keys() == from_matches.by_name().keys()
    for pair, totals in read.by_name().items():
        assert totals == pytest.approx(from_matches.by_name()[pair], abs=1e-9), pair
    for counts, expected in ((read.games, from_matches.games), (read.strikes, from_matches.strikes),
                             (read.forfeits, from_matches.forfeits)):
        assert counts == expected
    assert read.wins == pytest.approx(from_matches.wins, abs=1e-9)


def entrant_totals_from_matches(store: Store, ruleset: str) -> list[EntrantTotal]:
    """`Store.entrant_totals` as it was computed before 0018: from every rated match's seats."""
    counts: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0])
    for match in store.rated_matches(ruleset):
        winners = sum(rank == 1 for rank in match.ranks)
        for i, name in enumerate(match.entrants):
            count = counts[name]
            count[0] += 1
            count[1] += 1 / winners if match.ranks[i] == 1 else 0.0
            count[2] += match.strikes[i]
            count[3] += match.forfeits[i]
    return [EntrantTotal(name, int(g), w, int(s), int(f)) for name, (g, w, s, f) in sorted(counts.items())]


def assert_entrant_totals(store: Store, ruleset: str) -> None:
    """The rated counts kept per entrant equal those counted from the rated matches, and the
    ruleset's rated count is their number."""
    kept, expected = store.entrant_totals(ruleset), entrant_totals_from_matches(store, ruleset)
    assert [(t.entrant, t.games, t.strikes, t.forfeits) for t in kept] == [
        (t.entrant, t.games, t.strikes, t.forfeits) for t in expected]
    assert [t.wins for t in kept] == pytest.approx([t.wins for t in expected], abs=1e-9)
    assert store.rated_span(ruleset)[0] == len(store.rated_matches(ruleset))


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
    assert any(p[0] > 0 and p[4] < p[0] * PAIR_SHARES / 3 for p in kept.pairs.values()), \
        "the SPRT games count in records only"


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
    downgrade(store, "0012")
    upgraded = Store(fresh_url)
    with Session(upgraded.engine) as session:
        assert_equal(stored(session), written)


def varied_results(tid: int, count: int, seed: int) -> list[MatchResult]:
    """2- to 6-player matches of eight entrants: shared places (a shared first too), strikes,
    forfeits of every kind, aborted matches."""
    rng, names = random.Random(seed), [f"bot{i}" for i in range(8)]
    faults = ["timeout", "illegal_action", "protocol_error", "disconnect", "crash"]
    results = []
    for index in range(count):
        aborted = "worker lost" if index % 9 == 4 else None
        players = 2 + index % 5
        seats = []
        for i, name in enumerate(rng.sample(names, players)):
            termination = rng.choice(["normal"] * 5 + faults)
            seats.append(SeatResult(i, name, name, score=1.0, rank=None if aborted else rng.randint(1, players - 1),
                                    termination=termination, faults=rng.randint(0, 2)))
        results.append(MatchResult(tid, index, 0, index, 0, "toy", "toy@1", index, index, seats, {"steps": []},
                                   aborted_reason=aborted))
    return results


def test_the_rated_entrant_totals_kept_equal_those_counted_from_the_matches(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    round_robin = store.create_tournament("toy", "toy@1", "round_robin", {}, 200)
    sprt = store.create_tournament("toy", "toy@1", "sprt", {}, 50)
    other = store.create_tournament("toy", "toy@2", "round_robin", {}, 40)
    results = varied_results(round_robin, 200, 7) + varied_results(sprt, 50, 8)
    random.Random(9).shuffle(results)
    for start in range(0, len(results), 37):  # batches that add to the rows earlier ones made
        store.record_matches(results[start:start + 37])
    store.record_matches([replace(r, ruleset="toy@2") for r in varied_results(other, 40, 10)])
    assert_kept(store)
    totals = store.entrant_totals("toy@1")
    assert any(t.wins % 1 for t in totals), "shared first places count in part"
    assert all(t.forfeits for t in totals) and all(t.strikes for t in totals)
    finished = sum(r.aborted_reason is None for r in results if r.tournament_id == round_robin)
    assert store.rated_span("toy@1")[0] == finished, "aborted and SPRT matches are not rated"
    assert sum(t.games for t in totals) == sum(
        len(r.seats) for r in results if r.tournament_id == round_robin and r.aborted_reason is None)
    for tid in (round_robin, sprt, other):
        store.set_tournament_status(tid, "finished")
    assert prune_records(store.engine, Selection()) == 290, "retention drops every record"
    assert assert_kept(store) and store.entrant_totals("toy@1") == totals, "and keeps every figure"


def downgrade(store: Store, revision: str) -> None:
    downgrading = migrations._locking_engine(store.engine)
    with downgrading.begin() as connection:
        config = Config()
        config.set_main_option("script_location", str(migrations.SCRIPTS))
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
    downgrading.dispose()
    store.engine.dispose()


def test_migration_0018_backfills_the_rated_counts_of_a_database_with_matches(fresh_url: str) -> None:  # noqa: F811
    store = Store(fresh_url)
    tid = store.create_tournament("toy", "toy@1", "round_robin", {}, 120)
    sprt = store.create_tournament("toy", "toy@1", "sprt", {}, 30)
    store.record_matches(varied_results(tid, 120, 11) + varied_results(sprt, 30, 12))
    written = assert_kept(store)
    downgrade(store, "0017")
    columns = {column["name"] for column in inspect(store.engine).get_columns("entrant_stats")}
    assert "rated_games" not in columns, "the database is at 0017: no rated counts"
    store.engine.dispose()
    upgraded = Store(fresh_url)
    assert migrations.revision(upgraded.engine) == migrations.HEAD
    with Session(upgraded.engine) as session:
        assert_equal(stored(session), written)
    assert_kept(upgraded)


def test_a_writers_cache_of_entrant_numbers_keeps_only_committed_ones(fresh_url: str) -> None:  # noqa: F811
    """`entrant_numbers` with a writer's cache: numbers stored before are kept in it, those its own
    transaction gives are not (that transaction may roll back, and the number go to another name)."""
    store = Store(fresh_url)
    known: dict[str, int] = {}
    with Session(store.engine) as session:
        first = entrant_numbers(session, ["a", "b"], known)
        session.commit()
    assert known == {} and sorted(first) == ["a", "b"]
    with Session(store.engine) as session:
        numbered = entrant_numbers(session, ["a", "c"], known)
        session.rollback()
    assert known == first and numbered["a"] == first["a"]
    with Session(store.engine) as session:
        again = entrant_numbers(session, ["c", "d"], known)
        session.commit()
    assert known == first
    with Session(store.engine) as session:
        assert entrant_numbers(session, ["a", "c", "d"]) == {"a": first["a"], "c": again["c"], "d": again["d"]}
