"""Pages at a field of thousands (issue 33): the ladder page shows one page of its field, in the
order and with the members the whole field has; a page of bots is placed as the whole leaderboard
places them (counted per ruleset, not by a window over every rating); head-to-head asks for a typed
name beyond 200 rated bots and finds one far down the table by its key; in Chromium, the ladder
page updating in place stays on the page it shows. A store of a few thousand synthetic registered
bots and ratings."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import insert
from sqlmodel import Session, col, select, update
from starlette.testclient import TestClient

from arena.ladder.driver import open_ladder
from arena.ladder.field import LadderConfig, ladder_field
from arena.match.runner import run_match
from arena.store import MatchResult, RatingEntry, SeatResult, Store
from arena.store import dashboard_queries as dq
from arena.store.tables import BotRow, SubmissionRow, now
from arena.tournament.entrants import latest_versions_only
from dashboards.app import create_app
from dashboards.screenshot import serve
from tests.arena.postgres_server import PostgresServer, postgres_server  # noqa: F401
from tests.dashboards.test_paging import get

GAME = "gang_of_dice"
ANCHORS = ("heuristic", "random")
BOTS = 2500  # registered bots; every 7th is left unrated (Elo 0 on the ladder page, as before)


class Field:
    """A ladder of GAME over BOTS registered bots with one validated version each, rated (but every
    7th), plus the versions the ladder does not seat: an old version, a disabled bot, a suspended
    version, one awaiting validation."""

    def __init__(self, url: str) -> None:
        self.store = Store(url)
        self.ladder = open_ladder(self.store, LadderConfig(GAME, 2, ANCHORS, gateway=None))
        self._register()
        record = run_match(GAME, list(ANCHORS), seed=1, chance_seed=1)
        seats = [SeatResult(seat, name, name, "builtin", "arena-test", record.returns[seat], record.ranks[seat])
                 for seat, name in enumerate(ANCHORS)]
        self.store.record_match(MatchResult(self.ladder, 0, 0, 0, 0, GAME, record.ruleset, 1, 1, seats,
                                            record.to_json()))
        self.ruleset = record.ruleset
        rated = [f"b{n:05d}@1" for n in range(1, BOTS + 1) if n % 7] + list(ANCHORS) + ["b00001@2"]
        # Elo ties between neighbours (i // 2) check the order by name; b00003 is disabled, still rated
        entries = [RatingEntry(name, 1000 + (i // 2) * 0.5, 980 + (i // 2) * 0.5, 1020 + (i // 2) * 0.5, 50, 10.0, 0, 0)
                   for i, name in enumerate(reversed(rated))]
        self.store.replace_ratings(self.ruleset, GAME, entries, [])

    def _register(self) -> None:
        with Session(self.store.engine) as session:
            session.execute(insert(BotRow), [{"name": f"b{n:05d}", "token_hash": f"t{n}", "created_at": now()}
                                             for n in range(1, BOTS + 5)])
            ids = dict(session.exec(select(BotRow.name, BotRow.id)).all())
            versions = [{"bot_id": ids[f"b{n:05d}"], "number": 1, "sha256": "", "command": "x",
                         "created_at": now(), "validated_at": now()} for n in range(1, BOTS + 5)]
            versions.append({**versions[0], "number": 2})  # b00001@1 is no longer its latest version
            session.execute(insert(SubmissionRow), versions)
            session.execute(update(BotRow).where(col(BotRow.name) == "b00003").values(disabled=True))
            session.execute(update(SubmissionRow).where(col(SubmissionRow.bot_id) == ids["b00005"])
                            .values(suspended_reason="crashed in its validation match"))
            session.execute(update(SubmissionRow).where(col(SubmissionRow.bot_id) == ids[f"b{BOTS + 4:05d}"])
                            .values(validated_at=None))
            session.commit()

    def whole_field(self) -> list[str]:
        """The field in the order the ladder page always showed it: every member, by Elo (unrated at
        0), anchors first then by name at a tie: read whole, as the page did before it was paged."""
        members = ladder_field(self.store, LadderConfig.from_json(self.store.tournament(self.ladder).config))
        elo = {row.entrant: row.elo for row in self.store.leaderboard(self.ruleset, limit=1_000_000)}
        return [m.entrant for m in sorted(members, key=lambda m: -(elo.get(m.entrant) or 0))]


@pytest.fixture(scope="module")
def field(tmp_path_factory: pytest.TempPathFactory) -> Field:
    return Field(f"sqlite:///{tmp_path_factory.mktemp('big_field') / 'arena.db'}")


@pytest.fixture(scope="module")
def client(field: Field) -> Iterator[TestClient]:
    with TestClient(create_app(field.store)) as test_client:
        yield test_client


def test_the_ladder_pages_put_together_are_the_whole_field_in_its_order(client: TestClient, field: Field) -> None:
    whole = field.whole_field()
    # the anchors and a version of each bot: not the disabled bot's, the suspended or the unvalidated one
    assert len(whole) == 2 + BOTS + 4 - 3 == 2503
    first = get(client, "/api/ladder")["ladders"][0]
    assert (first["page"], first["pages"], first["per_page"], first["total"]) == (1, 26, 100, len(whole))
    shown = [bot["bot"] for bot in first["field"]]
    for number in range(2, first["pages"] + 1):
        page = get(client, f"/api/ladder?page={number}")["ladders"][0]
        assert len(page["field"]) == (100 if number < first["pages"] else len(whole) - 2500)
        shown += [bot["bot"] for bot in page["field"]]
    assert shown == whole
    last = get(client, "/api/ladder?per_page=200&page=13")["ladders"][0]
    assert [bot["bot"] for bot in last["field"]] == whole[2400:]
    assert "there are 26 pages" in get(client, "/api/ladder?page=27", 404)["error"]


def test_a_ladder_page_row_has_what_the_whole_field_gave_it(client: TestClient, field: Field) -> None:
    rows = {row.entrant: row for row in field.store.leaderboard(field.ruleset, limit=1_000_000)}
    last = get(client, "/api/ladder?page=26")["ladders"][0]
    for bot in get(client, "/api/ladder?page=3")["ladders"][0]["field"] + last["field"]:
        row = rows.get(bot["bot"])
        assert bot["elo"] == (row.elo if row else None) and bot["games"] == (row.games if row else 0)
        assert bot["anchor"] == (bot["bot"] in ANCHORS) and bot["last_hour"] == 0
    assert all(bot["elo"] is None and bot["provisional"] for bot in last["field"])  # the unrated, at the end
    suspended = get(client, "/api/ladder")["ladders"][0]["suspended"]
    assert suspended == [{"bot": "b00005@1", "reason": "crashed in its validation match"}]


def test_the_ladder_page_shows_its_page_of_the_field_and_links_the_next(client: TestClient, field: Field) -> None:
    whole = field.whole_field()
    html = client.get("/ladder?page=2").text
    shown = re.findall(r'<tr class="[^"]*" data-bot="([^"]+)"', html)
    assert shown == whole[100:200]
    assert "page 2 of 26" in html and f"{len(whole)} bots, best rated first: places 101 to 200" in html
    following = re.search(r'<a href="([^"]+)" rel="next">Lower →</a>', html)
    assert following is not None and following.group(1) == "?page=3"
    assert re.findall(r'data-bot="([^"]+)"', client.get("/ladder" + following.group(1)).text)[:100] == whole[200:300]
    assert f'href="/leaderboard?ruleset={field.ruleset}&game={GAME}">the leaderboard</a>' in html


def test_a_page_of_bots_is_placed_as_on_the_whole_leaderboard(field: Field) -> None:
    board = field.store.leaderboard(field.ruleset, limit=1_000_000)
    places = {row.entrant: row.place for row in board}
    page = [row.entrant for row in board[::25]]  # a page of 100 bots from all over the table
    found = dq.every_entrant_ratings(field.store, page)  # the bots list's ratings: one read of the ruleset
    assert {name: [row.place for row in rows] for name, rows in found.items()} == {n: [places[n]] for n in page}
    for name in ("random", "b00001@2", board[-1].entrant):  # one bot alone (its page, head to head): a count
        [row] = dq.entrant_ratings(field.store, name)
        assert row.place == places[name] and row.elo == board[places[name] - 1].elo


def test_head_to_head_takes_a_typed_name_beyond_200_rated_bots(client: TestClient, field: Field) -> None:
    board = field.store.leaderboard(field.ruleset, limit=1_000_000)
    html = client.get(f"/head-to-head?ruleset={field.ruleset}").text
    assert "<select name=\"a\"" not in html and 'list="top-bots"' in html
    suggested = re.findall(r'<option value="([^"]+)"></option>', html)
    assert suggested == [row.entrant for row in board[:200]]
    assert f'name="a" value="{board[0].entrant}"' in html and f'name="b" value="{board[1].entrant}"' in html
    low, top = board[-1].entrant, board[0].entrant  # the last of the table, far past any list
    pair = client.get(f"/head-to-head?ruleset={field.ruleset}&a={quote(low, safe='')}&b={quote(top, safe='')}")
    assert pair.status_code == 200 and f'name="a" value="{low}"' in pair.text
    data = get(client, f"/api/head-to-head?ruleset={field.ruleset}&a={quote(low, safe='')}&b={quote(top, safe='')}")
    assert data["a"]["place"] == len(board) and data["b"]["place"] == 1


@pytest.mark.postgres
def test_the_field_is_ordered_and_paged_alike_on_postgres(postgres_server: PostgresServer) -> None:  # noqa: F811
    pg = Field(postgres_server.fresh_database())
    whole = pg.whole_field()
    for first in (0, 100, 2500):
        entries, total = pg.store.field_page(pg.ruleset, ANCHORS, offset=first, limit=100)
        assert [entry.entrant for entry in entries] == whole[first:first + 100] and total == len(whole)
    owners = {entry.entrant: entry.owner for entry in pg.store.field_page(pg.ruleset, ANCHORS)[0]}
    assert owners["heuristic"] == "anchor:heuristic" and owners["b00002@1"] == "bot:b00002" and len(owners) == total


def test_leaderboard_pages_are_the_whole_table_past_its_first_thousand(client: TestClient, field: Field) -> None:
    every = field.store.leaderboard(field.ruleset, limit=1_000_000)
    whole = latest_versions_only(every)  # b00001@1 is left out: b00001@2 is rated
    assert len(whole) == len(every) - 1 > 2000
    first = get(client, f"/api/leaderboard?ruleset={field.ruleset}")
    assert (first["total"], first["pages"], first["hidden_versions"]) == (len(whole), math.ceil(len(whole) / 100), 1)
    ends = [end for row in whole for end in (row.low, row.elo, row.high) if math.isfinite(end)]
    assert first["elo_range"] == [min(ends), max(ends)]
    hidden_at = next(i for i, row in enumerate(every) if row.entrant == "b00001@1")
    for number in (1, hidden_at // 100 + 1, hidden_at // 100 + 2, 15, first["pages"]):  # around the hidden row
        rows = get(client, f"/api/leaderboard?ruleset={field.ruleset}&page={number}")["rows"]
        expected = whole[(number - 1) * 100:number * 100]
        assert [(r["bot"], r["place"]) for r in rows] == [(r.entrant, r.place) for r in expected]
    every_version = get(client, f"/api/leaderboard?ruleset={field.ruleset}&all_versions=1&page=2")
    assert every_version["total"] == len(every) and every_version["hidden_versions"] == 0
    assert [r["bot"] for r in every_version["rows"]] == [r.entrant for r in every[100:200]]
    html = client.get(f"/leaderboard?ruleset={field.ruleset}&page=15").text
    assert f"{len(whole)} bots" in html and f"page 15 of {first['pages']}" in html
    assert re.findall(r'<tr class="[^"]*" data-bot="([^"]+)"', html) == [r.entrant for r in whole[1400:1500]]


@pytest.mark.browser
def test_the_ladder_page_updates_in_place_on_the_page_it_shows(browser: Any, field: Field) -> None:
    """Chromium: page 2 of the field, followed to page 3 by its link, stays on page 3 as it updates."""
    whole = field.whole_field()
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    rows = "() => [...document.querySelectorAll('#ladders table.field tbody tr')].map(r => r.dataset.bot)"
    with serve(Store(field.store.url)) as base:
        page.goto(f"{base}/ladder?page=2")
        assert page.evaluate(rows) == whole[100:200]
        page.click("#ladders a[rel=next]")
        page.wait_for_url(f"{base}/ladder?page=3")
        page.wait_for_function("() => Number(document.getElementById('ladders').dataset.updates || 0) >= 1",
                               timeout=60_000)
        assert page.evaluate(rows) == whole[200:300]
    page.close()
    assert problems == []
