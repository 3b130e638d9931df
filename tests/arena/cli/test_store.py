"""`arena store export|prune`: exports read back as stored; pruning keeps every result and refuses,
in one line, what a running tournament or an unreleased replay still needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.cli import main
from arena.cli.tournament import tournament_standings
from arena.rating import rerate
from arena.store import Store
from arena.store.record_codec import RecordPruned
from arena.store.retention import read_export
from dashboards.app import create_app

GAME = ["--game", "gang_of_dice", "--bots", "random,heuristic,random#2", "--rounds", "2", "--seed", "5"]


def played(url: str, status: str | None = None) -> int:
    """A tournament played into `url` (12 matches), left `finished` or set to `status`."""
    assert main(["tournament", "run", *GAME, "--local", "--quiet", "--db", url]) == 0
    store = Store(url)
    tournament_id = store.tournaments(limit=1)[0].id
    if status is not None:
        store.set_tournament_status(tournament_id, status)
    return tournament_id


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'arena.db'}"


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_an_export_reads_back_as_the_stored_matches_and_records(url: str, tmp_path: Path) -> None:
    played(url)
    store = Store(url)
    assert main(["store", "export", str(tmp_path / "out"), "--db", url]) == 0
    lines = list(read_export(tmp_path / "out" / "gang_of_dice@1.jsonl.gz"))
    summaries = store.matches()
    assert [line["match"]["id"] for line in lines] == [m.id for m in summaries] and len(lines) == 12
    for line, summary in zip(lines, summaries):
        assert json.dumps(line["record"]) == json.dumps(store.match_record(summary.id)), "the record as stored"
        assert line["match"]["key"] == summary.key and line["match"]["seed"] == summary.seed
        assert [(s["entrant"], s["rank"], s["termination"]) for s in line["seats"]] == [
            (s.entrant, s.rank, s.termination) for s in summary.seats]
    assert main(["store", "export", str(tmp_path / "out"), "--db", url]) == 2, "an export never overwrites"


def test_pruning_keeps_ratings_standings_and_pages_and_says_the_record_was_pruned(url: str) -> None:
    tournament_id = played(url)
    store = Store(url)
    ruleset = store.matches()[0].ruleset
    ratings, standings = rerate(store, ruleset), tournament_standings(store, store.tournament(tournament_id))  # type: ignore[arg-type]
    assert main(["store", "prune", "--keep-last", "2", "--db", url]) == 0
    kept = [m.id for m in store.matches()][-2:]
    for summary in store.matches():
        if summary.id in kept:
            assert store.match_record(summary.id) is not None
        else:
            with pytest.raises(RecordPruned):
                store.match_record(summary.id)
    # the same ratings (a rerate starts from the stored ones: the same fit to 1e-4 Elo)
    assert [vars(entry) for entry in rerate(store, ruleset)] == [pytest.approx(vars(e), abs=1e-3) for e in ratings]
    assert tournament_standings(store, store.tournament(tournament_id)) == standings  # type: ignore[arg-type]
    pruned = store.matches()[0].id
    with TestClient(create_app(Store(url, reader=True))) as client:
        assert "was pruned" in client.get(f"/api/matches/{pruned}").json()["replay_error"]
        page = client.get(f"/matches/{pruned}")
        assert page.status_code == 200 and "was pruned" in page.text


def test_prune_refuses_a_running_tournament_in_one_line(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    tournament_id = played(url, status="running")
    capsys.readouterr()
    for extra in ([], ["--unreleased"]):
        assert main(["store", "prune", "--before", "2999-01-01", *extra, "--db", url]) == 2
        assert f"12 of the matches are of round robin {tournament_id}, which is running" in error_line(capsys)
    assert all(Store(url).match_record(m.id) for m in Store(url).matches()), "nothing was pruned"


def test_prune_refuses_an_unreleased_replay_unless_told(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    tournament_id = played(url, status="interrupted")
    capsys.readouterr()
    assert main(["store", "prune", "--before", "2999-01-01", "--db", url]) == 2
    line = error_line(capsys)
    assert f"replays of 12 matches of round robin {tournament_id} (interrupted) are not released" in line
    assert "--unreleased" in line
    assert all(Store(url).match_record(m.id) for m in Store(url).matches()), "nothing was pruned"
    assert main(["store", "prune", "--before", "2999-01-01", "--unreleased", "--db", url]) == 0
    assert "pruned the records of 12 matches" in capsys.readouterr().out


def test_prune_needs_a_bound(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    Store(url)
    assert main(["store", "prune", "--db", url]) == 2
    assert "--before DATE, --keep-last N" in error_line(capsys)
