"""Bot versions on the dashboard: the leaderboard shows each bot's latest rated version (all of
them on request), and a submitted bot's page lists its versions with their ratings — in the JSON
API and in a real browser."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.cli import main
from arena.match.runner import run_match
from arena.rating import rerate
from arena.store import MatchResult, SeatResult, Store
from arena.tournament.schedule import TournamentConfig
from dashboards.app import create_app
from dashboards.screenshot import serve
from tests.dashboards.test_api import get

GAME = "gang_of_dice"
TABLES = [("vbot@1", "random"), ("vbot@2", "random"), ("vbot@1", "vbot@2")] * 3


def store_match(store: Store, tournament_id: int, index: int, entrants: tuple[str, str]) -> None:
    """A real match between random bots, stored as the driver stores one between these entrants."""
    record = run_match(GAME, ["random", "random"], seed=index)
    seats = [
        SeatResult(seat, name, name, "submitted" if "@" in name else "builtin",
                   f"sha256:{name[-1] * 64}" if "@" in name else "arena-test",
                   record.returns[seat], record.ranks[seat])
        for seat, name in enumerate(entrants)
    ]
    store.record_match(MatchResult(tournament_id, index, 0, index, 0, GAME, record.ruleset, index, index, seats,
                                   record.to_json()))


@pytest.fixture(scope="module")
def versioned(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """`vbot` with two submitted versions that played 6 matches each; `random` beside them."""
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('versions') / 'arena.db'}")
    store.register_bot("vbot")
    for sha in ("a" * 64, "b" * 64):
        store.add_version("vbot", "node bot.js", "/nowhere", sha)
    config = TournamentConfig(GAME, 2, ("vbot@1", "vbot@2", "random"))
    ruleset = run_match(GAME, ["random", "random"], seed=0).ruleset
    tournament_id = store.create_tournament(GAME, ruleset, "round_robin", config.to_json(), len(TABLES))
    for index, entrants in enumerate(TABLES):
        store_match(store, tournament_id, index, entrants)
    rerate(store, ruleset)
    return store


@pytest.fixture(scope="module")
def client(versioned: Store) -> Iterator[TestClient]:
    with TestClient(create_app(versioned)) as test_client:
        yield test_client


def test_the_leaderboard_shows_each_bots_latest_version_unless_asked_for_all(client: TestClient) -> None:
    latest = get(client, f"/api/leaderboard?game={GAME}")
    assert sorted(r["bot"] for r in latest["rows"]) == ["random", "vbot@2"]
    assert [r["place"] for r in latest["rows"]] == [1, 2] and latest["hidden_versions"] == 1
    every = get(client, f"/api/leaderboard?game={GAME}&all_versions=1")
    assert sorted(r["bot"] for r in every["rows"]) == ["random", "vbot@1", "vbot@2"]
    assert {r["bot"]: r["games"] for r in every["rows"]} == {"vbot@1": 6, "vbot@2": 6, "random": 6}
    assert "all_versions must be 1 or 0" in get(client, "/api/leaderboard?all_versions=maybe", 400)["error"]


def test_a_submitted_bots_page_lists_its_versions_with_their_ratings(client: TestClient, versioned: Store) -> None:
    page = get(client, "/api/bots/vbot")
    assert page["bot"] == "vbot@2", "the plain name shows the latest version that played"
    assert [v["entrant"] for v in page["submitted_versions"]] == ["vbot@1", "vbot@2"]
    assert [v["sha256"][:1] for v in page["submitted_versions"]] == ["a", "b"]
    ratings = {v["entrant"]: v["ratings"][0]["elo"] for v in page["submitted_versions"]}
    stored = {r.entrant: r.elo for r in versioned.leaderboard(versioned.rulesets(GAME)[0])}
    assert ratings == {"vbot@1": stored["vbot@1"], "vbot@2": stored["vbot@2"]}
    assert get(client, "/api/bots/vbot@1")["bot"] == "vbot@1"
    assert get(client, "/api/bots/random")["submitted_versions"] == []


def test_a_suspended_version_shows_its_reason_on_the_bot_page(client: TestClient, versioned: Store) -> None:
    versioned.suspend_version("vbot", 1, "its last 3 ladder matches all ended in its own crash")
    try:
        page = get(client, "/api/bots/vbot")
        assert {v["entrant"]: v["suspended"] for v in page["submitted_versions"]} == {
            "vbot@1": "its last 3 ladder matches all ended in its own crash", "vbot@2": None}
        html = client.get("/bots/vbot").text
        row = html.split('data-version="vbot@1"')[1].split("</tr>")[0]
        assert "suspended" in row and "its last 3 ladder matches all ended in its own crash" in row
        assert "suspended" not in html.split('data-version="vbot@2"')[1].split("</tr>")[0]
    finally:
        versioned.set_disabled("vbot", False)  # `arena bot enable` lifts it: the module's store as it was
    assert get(client, "/api/bots/vbot")["submitted_versions"][0]["suspended"] is None


SUSPENSION = "its last 3 ladder matches all ended in its own crash"


def test_a_suspended_version_stays_listed_marked_with_its_reason_wherever_its_rating_shows(
    client: TestClient, versioned: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    versioned.suspend_version("vbot", 2, SUSPENSION)
    try:
        rows = {r["bot"]: r for r in get(client, f"/api/leaderboard?game={GAME}")["rows"]}
        assert rows["vbot@2"]["suspended"] == SUSPENSION and rows["random"]["suspended"] is None
        assert rows["vbot@2"]["provisional"] is True  # 6 games: far wider than ±100 Elo
        page = client.get(f"/leaderboard?game={GAME}").text
        row = page.split('data-bot="vbot@2"')[1].split("</tr>")[0]
        assert ">suspended</span>" in row and SUSPENSION in row and ">provisional</span>" in row
        assert "suspended" not in page.split('data-bot="random"')[1].split("</tr>")[0]
        [rating] = get(client, "/api/bots/vbot@2")["ratings"]
        assert rating["suspended"] == SUSPENSION and rating["provisional"] is True
        bot_page = client.get("/bots/vbot@2").text.split('id="submitted-versions"')[0]  # the Ratings card
        assert SUSPENSION in bot_page and ">provisional</span>" in bot_page
        assert main(["leaderboard", "--game", GAME, "--db", versioned.url]) == 0
        text = capsys.readouterr().out
        [line] = [line for line in text.splitlines() if "vbot@2" in line]
        assert line.endswith(f"provisional  suspended: {SUSPENSION}")
        assert "(suspended: the ladder no longer seats that version" in text
        assert main(["leaderboard", "--game", GAME, "--db", versioned.url, "--json"]) == 0
        cli_rows = {r["bot"]: r for rows in json.loads(capsys.readouterr().out).values() for r in rows}
        assert cli_rows["vbot@2"]["suspended"] == SUSPENSION and cli_rows["vbot@2"]["provisional"] is True
    finally:
        versioned.set_disabled("vbot", False)
    assert get(client, f"/api/leaderboard?game={GAME}")["rows"][0]["suspended"] is None


def test_the_leaderboard_says_the_provisional_rule(client: TestClient) -> None:
    """It read "Ratings with fewer than  games are provisional": a number it never had."""
    page = client.get(f"/leaderboard?game={GAME}").text
    assert "fewer than" not in page
    assert "provisional</span> while its 95 % interval is wider than ±100 Elo" in page


def test_match_links_read_the_match_id_the_address_uses(client: TestClient, versioned: Store) -> None:
    """A match's label was its key (`t1:m0`), one off from its address (`/matches/1`)."""
    recent = get(client, "/api/bots/vbot@2")["recent_matches"][0]
    match = next(m for m in versioned.matches(game_id=GAME) if m.id == recent["id"])
    assert match.key != str(match.id)
    for url in (f"/matches?game={GAME}", "/bots/vbot@2"):
        page = client.get(url).text
        assert f'<a href="/matches/{match.id}">{match.id}</a>' in page, url
    heading = client.get(f"/matches/{match.id}").text.split("<h1>")[1].split("</h1>")[0]
    assert heading.startswith(f"Match {match.id} ") and match.key in heading  # the key stays, as secondary text


@pytest.mark.browser
def test_the_versions_in_a_real_browser(browser: Any, versioned: Store) -> None:
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    with serve(Store(versioned.url)) as base:
        page.goto(f"{base}/leaderboard?game={GAME}")
        bots = "rows => rows.map(r => r.dataset.bot)"
        assert sorted(page.eval_on_selector_all("#leaderboard tbody tr", bots)) == ["random", "vbot@2"]
        assert page.inner_text("#leaderboard tr[data-bot='vbot@2'] td:nth-child(3)") == "sha256:" + "2" * 12
        page.wait_for_function("() => Chart.getChart(document.querySelector('#top-chart'))")
        lines = "() => Chart.getChart(document.querySelector('#top-chart')).data.datasets.map(d => d.label)"
        assert sorted(page.evaluate(lines)) == ["random", "vbot@2"], "the chart follows the table"
        page.click("#versions-toggle")
        page.wait_for_url("**all_versions=1")
        assert sorted(page.eval_on_selector_all("#leaderboard tbody tr", bots)) == ["random", "vbot@1", "vbot@2"]
        page.wait_for_function("() => Chart.getChart(document.querySelector('#top-chart'))")
        assert sorted(page.evaluate(lines)) == ["random", "vbot@1", "vbot@2"]
        page.goto(f"{base}/bots/vbot")
        rows = page.eval_on_selector_all("#submitted-versions tbody tr", "rows => rows.map(r => r.innerText)")
        assert [row.split()[0] for row in rows] == ["vbot@2", "vbot@1"]
        assert all("Gang of Dice" in row and "games" in row for row in rows)
    page.close()
    assert problems == []
