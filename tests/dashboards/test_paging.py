"""Paged lists at scale (issue 33): the leaderboard, the bots and the matches read one page at a
time (the bots' page and its ratings by key, the matches past the middle from the oldest end).
Every page put together gives exactly the one whole list the unpaged reading gives."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from arena.store import dashboard_queries as dq
from dashboards.app import create_app
from tests.dashboards.conftest import Filled


@pytest.fixture(scope="module")
def client(filled: Filled) -> Iterator[TestClient]:
    with TestClient(create_app(filled.store)) as test_client:
        yield test_client


def get(client: TestClient, url: str, status: int = 200) -> dict[str, Any]:
    response = client.get(url)
    assert response.status_code == status, response.text
    return response.json()  # type: ignore[no-any-return]


def every_page(client: TestClient, url: str, key: str, per_page: int) -> list[Any]:
    """The `key` lists of every page of `url`, one after the other."""
    first = get(client, f"{url}&per_page={per_page}&page=1")
    found = list(first[key])
    for number in range(2, first["pages"] + 1):
        found += get(client, f"{url}&per_page={per_page}&page={number}")[key]
    assert first["pages"] == max(1, -(-first["total"] // per_page))
    return found


@pytest.mark.parametrize("ruleset", ["lost_cities_rivals@1", "riviera@1"])
def test_leaderboard_pages_put_together_are_the_whole_table(client: TestClient, ruleset: str) -> None:
    whole = get(client, f"/api/leaderboard?ruleset={ruleset}&per_page=200")
    assert whole["pages"] == 1 and whole["total"] == len(whole["rows"]) >= 3
    # each row's version, last played and LOS against the next one down: the next one is on the next page
    assert every_page(client, f"/api/leaderboard?ruleset={ruleset}", "rows", 1) == whole["rows"]
    assert every_page(client, f"/api/leaderboard?ruleset={ruleset}", "rows", 2) == whole["rows"]
    assert whole["rows"][0]["los_next"] is not None and whole["rows"][-1]["los_next"] is None
    page = get(client, f"/api/leaderboard?ruleset={ruleset}&per_page=1&page=2")
    assert page["elo_range"] == whole["elo_range"]  # the bars of every page on the whole table's scale
    low, high = whole["elo_range"]
    assert low == min(r["elo"] if r["low95"] is None else r["low95"] for r in whole["rows"])
    assert high == max(r["elo"] if r["high95"] is None else r["high95"] for r in whole["rows"])


def test_leaderboard_page_past_the_last_is_a_404(client: TestClient) -> None:
    pages = get(client, "/api/leaderboard?ruleset=riviera@1&per_page=1")["pages"]
    error = get(client, f"/api/leaderboard?ruleset=riviera@1&per_page=1&page={pages + 1}", 404)
    assert f"there are {pages} pages" in error["error"]


def test_leaderboard_page_shows_its_rows_and_a_pager(client: TestClient) -> None:
    whole = get(client, "/api/leaderboard?ruleset=riviera@1")
    page = client.get("/leaderboard?ruleset=riviera@1&per_page=2&page=2").text
    shown = [row["bot"] for row in whole["rows"][2:4]]
    assert all(f'data-bot="{bot}"' in page for bot in shown)
    assert not any(f'data-bot="{row["bot"]}"' in page for row in whole["rows"][:2])
    assert f"{whole['total']} bots" in page and "Lower →" in page and "← Higher" in page


def test_bot_pages_put_together_are_every_bot_with_its_places(client: TestClient, filled: Filled) -> None:
    whole = get(client, "/api/bots?per_page=200")["bots"]
    assert [b["bot"] for b in whole] == sorted(b["bot"] for b in whole) and len(whole) == 6
    assert every_page(client, "/api/bots?", "bots", 3) == whole
    for bot in whole:  # the place counted in one window query equals the one counted per bot
        assert bot["ratings"] == get(client, f"/api/bots/{quote(bot['bot'], safe='')}")["ratings"]
        assert [r["place"] for r in bot["ratings"]] == [r.place for r in dq.entrant_ratings(filled.store, bot["bot"])]


@pytest.mark.parametrize("query", ["", "game=riviera", "bot=random", "termination=any_fault", "tournament=1"])
def test_match_pages_put_together_are_every_match_newest_first(client: TestClient, query: str) -> None:
    whole = get(client, f"/api/matches?{query}&per_page=200")
    assert whole["pages"] == 1
    for per_page in (1, 3, 7):  # the pages past the middle are read from the oldest end, turned round
        assert every_page(client, f"/api/matches?{query}", "matches", per_page) == whole["matches"]


def test_the_last_match_page_is_the_oldest_matches(client: TestClient, filled: Filled) -> None:
    first = get(client, "/api/matches?per_page=4")
    last = get(client, f"/api/matches?per_page=4&page={first['pages']}")
    oldest = filled.store.matches(limit=first["total"])  # the store's own list, oldest first
    assert len(last["matches"]) == first["total"] - 4 * (first["pages"] - 1)
    assert [m["id"] for m in last["matches"]] == [m.id for m in oldest[:len(last["matches"])]][::-1]


def test_a_bot_past_the_first_leaderboard_read_has_its_head_to_head_and_chart(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A field larger than one leaderboard read (1,000 rows): its bots further down are looked up by
    name. Here one read holds 2 rows, as 1,000 would of a field of 1,001."""
    whole = get(client, "/api/leaderboard?ruleset=riviera@1&all_versions=1")["rows"]
    a, b = whole[-1]["bot"], whole[-2]["bot"]
    pair = f"/api/head-to-head?ruleset=riviera@1&a={quote(a, safe='')}&b={quote(b, safe='')}"
    chart = f"/api/rating-history?ruleset=riviera@1&bot={quote(a, safe='')}"
    expected = get(client, pair), get(client, chart)
    from arena.store import Store

    reads = Store.leaderboard
    monkeypatch.setattr(Store, "leaderboard", lambda self, ruleset, *, limit=2, offset=0: reads(
        self, ruleset, limit=min(limit, 2), offset=offset))
    assert (get(client, pair), get(client, chart)) == expected
    assert client.get(f"/bots/{quote(a, safe='')}").status_code == 200
    error = get(client, "/api/head-to-head?ruleset=riviera@1&a=nobody&b=random", 404)["error"]
    assert error.startswith("bot 'nobody' has no rating in riviera@1; rated: ")


def test_tournament_standings_pages_put_together_are_the_whole_standings(client: TestClient, filled: Filled) -> None:
    whole = get(client, f"/api/tournaments/{filled.riviera}")
    assert whole["standings_page"] == {"page": 1, "pages": 1, "per_page": 100, "total": 4}
    assert len(whole["standings"]) == 4 and "pager" not in client.get(f"/tournaments/{filled.riviera}").text
    shown = []
    for number in (1, 2, 3):
        page = get(client, f"/api/tournaments/{filled.riviera}?per_page=2&page={number}", 404 if number == 3 else 200)
        shown += page.get("standings", [])
    assert shown == whole["standings"]
    html = client.get(f"/tournaments/{filled.riviera}?per_page=2").text
    assert "page 1 of 2 · 4 in all" in html and 'href="?per_page=2&amp;page=2" rel="next">Lower →' in html
    assert html.count('class="place place-') == 2


def test_head_to_head_lists_every_rated_bot_of_a_small_field(client: TestClient) -> None:
    html = client.get("/head-to-head?ruleset=riviera@1").text
    assert '<select name="a">' in html and '<select name="b">' in html and "<datalist" not in html
