"""A launched bot's log is private: after a real tournament with two launched bots that print a
marker (one on every decision, showing its observation; one before it crashes), the marker is on
no public dashboard page, in no /api answer, in no stored public record and not in `arena
tournament show --json`; `Store.bot_logs` and `arena bot logs` give it to the operator.

A real gateway in this process launches the bots in their bubblewrap sandbox (as `arena serve`
does); the tournament is played by the real driver with the in-process executor (`--local`)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from arena.cli import main as arena_main
from arena.gateway.server import GatewayThread
from arena.launch.launcher import LaunchLimits
from arena.match.executor import LocalExecutor
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from dashboards.app import create_app
from dashboards.author_client import AuthorsClient
from dashboards.authors import AuthorPages
from tests.arena.gateway.test_bot_logs import register_log_bot
from tests.arena.gateway_fixtures import HOST_KEY

MARKER = "QX7-SECRET-MARK"  # printed by the bots only: no page may show it
GAME = "gang_of_dice"


@pytest.fixture
def played(tmp_path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Store, int]]:  # noqa: ANN001
    """A finished round robin of logger (prints), crasher (prints, dies before connecting) and random."""
    monkeypatch.setenv("ARENA_HOST_KEY", HOST_KEY)
    monkeypatch.delenv("ARENA_UNSANDBOXED", raising=False)
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    register_log_bot(store, tmp_path, "logger", "--marker-hex", MARKER.encode().hex())
    register_log_bot(store, tmp_path, "crasher", "--marker-hex", MARKER.encode().hex(), "--crash-at-start")
    with GatewayThread(store, host_key=HOST_KEY, limits=LaunchLimits(linger_s=30.0, cpu_seconds=60)) as gateway:
        config = TournamentConfig(GAME, 2, ("logger", "crasher", "random"), seed=3, gateway=gateway.address)
        tournament_id = start_tournament(store, config, "privacy")
        play_tournament(store, tournament_id, LocalExecutor(live=True))
    yield store, tournament_id


def public_urls(store: Store, tournament_id: int) -> list[str]:
    """Every public page and /api answer about the tournament, its matches and its bots."""
    urls = ["/", "/leaderboard", f"/leaderboard?game={GAME}", "/tournaments", f"/tournaments/{tournament_id}",
            "/matches", f"/matches?game={GAME}", "/bots",
            "/api", "/api/games", f"/api/leaderboard?game={GAME}", f"/api/rating-history?game={GAME}",
            "/api/tournaments", f"/api/tournaments/{tournament_id}", f"/api/tournaments/{tournament_id}/live",
            "/api/matches", f"/api/matches?game={GAME}&per_page=100", "/api/bots"]
    for entrant in ("logger@1", "crasher@1", "random"):
        urls += [f"/bots/{entrant}", f"/api/bots/{entrant}", f"/matches?bot={entrant}", f"/api/matches?bot={entrant}"]
    urls += [f"/head-to-head?game={GAME}&a=logger@1&b=random", f"/api/head-to-head?game={GAME}&a=logger@1&b=random"]
    for match in store.matches(tournament_id=tournament_id):
        urls += [f"/tournaments/{tournament_id}/live/{match.match_index}",
                 f"/api/tournaments/{tournament_id}/live/{match.match_index}"]
        for view in ("public", *map(str, range(len(match.seats)))):
            urls += [f"/matches/{match.id}?view={view}", f"/api/matches/{match.id}?view={view}"]
        for bot in ("logger", "crasher"):  # the author pages' log address, and guesses at one under /api
            urls += [f"/my/bots/{bot}/replays/{match.id}", f"/api/my/bots/{bot}/replays/{match.id}",
                     f"/api/bots/{bot}@1/replays/{match.id}", f"/api/matches/{match.id}/decisions",
                     f"/my/bots/{bot}/logs/{match.id}", f"/my/bots/{bot}/recent", f"/api/my/bots/{bot}/logs/{match.id}",
                     f"/api/bots/{bot}/logs/{match.id}", f"/api/bots/{bot}@1/logs/{match.id}",
                     f"/api/matches/{match.id}/logs", f"/matches/{match.id}/logs"]
    return urls


def frame_urls(client: TestClient, store: Store, tournament_id: int) -> list[str]:
    """Every replay frame of every match, in every view."""
    urls = []
    for match in store.matches(tournament_id=tournament_id):
        positions = client.get(f"/api/matches/{match.id}").json()["positions"]
        for view in ("public", *map(str, range(len(match.seats)))):
            urls += [f"/api/matches/{match.id}/frames/{n}?view={view}" for n in range(positions)]
    return urls


def test_no_public_page_api_or_record_shows_a_launched_bots_output(played: tuple[Store, int], capsys) -> None:  # noqa: ANN001
    store, tournament_id = played
    matches = store.matches(tournament_id=tournament_id)
    logger_matches = [m for m in matches if any(s.entrant == "logger@1" for s in m.seats)]
    assert len(matches) == 6 and len(logger_matches) == 4

    # the logs exist, so there is something to leak, and each decision's part of them (the debug
    # output its author reads beside the decision, `arena-bot replay`) is that decision's own
    for match in logger_matches:
        [log] = store.bot_logs(match.id, "logger")
        assert f"{MARKER} match=" in log.text and "hand=" in log.text and log.version == 1
        parts = log.by_decision()
        assert parts and all(text.count(" step=") == 1 and f" step={step} hand=" in text
                             for step, text in parts.items()), parts
    crashed = [log for m in matches for log in store.bot_logs(m.id, "crasher")]
    assert any(f"{MARKER} crashing before it connects" in log.text for log in crashed)
    assert all(log.termination == "crash" for log in crashed)

    # the author pages on, as `arena dashboard` serves them: nobody is signed in here
    pages = AuthorPages(AuthorsClient("127.0.0.1:9"))
    with TestClient(create_app(store, pages), follow_redirects=False) as client:
        urls = public_urls(store, tournament_id) + frame_urls(client, store, tournament_id)
        answered = 0
        for url in urls:
            response = client.get(url)
            assert response.status_code in (200, 303, 401, 404), (url, response.status_code, response.text[:300])
            assert response.status_code != 303 or response.headers["location"] == "/signin", url
            answered += response.status_code == 200
            assert "QX7" not in response.text, f"{url} shows a bot's output"
    assert answered > 100, "the pages answered: searching error pages would prove nothing"

    for match in matches:
        record = store.match_record(match.id)
        assert record is not None and "QX7" not in json.dumps(record), "the stored public record"
        assert all("log" not in seat for seat in record["seats"])
    assert arena_main(["tournament", "show", str(tournament_id), "--json", "--db", store.url]) == 0
    shown = capsys.readouterr().out
    assert json.loads(shown)["id"] == tournament_id and "QX7" not in shown

    assert arena_main(["bot", "logs", "logger", "--match", str(logger_matches[0].id), "--db", store.url]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"== match {logger_matches[0].id}, seat ") and ", logger@1, termination normal" in printed
    assert f"{MARKER} match=" in printed and f"{MARKER}-err match=" in printed
