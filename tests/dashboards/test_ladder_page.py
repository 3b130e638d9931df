"""The ladder page: the match now playing is not also queued, the matchmaker's reason reads in words,
and the page updates in place (no meta refresh; a plain page without JavaScript)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.ladder.driver import open_ladder
from arena.ladder.field import LadderConfig
from arena.match.runner import run_match
from arena.store import LadderMatch, LiveMatch, MatchResult, SeatResult, Store
from dashboards.app import create_app
from dashboards.screenshot import serve

GAME = "gang_of_dice"
SEATS = ("heuristic", "random")


class Ladder:
    """A ladder as its driver leaves the store: table 0 planned (two rotations), rotation 0 playing."""

    def __init__(self, tmp_path: Path) -> None:
        self.store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
        self.id = open_ladder(self.store, LadderConfig(GAME, 2, SEATS, gateway=None))
        self.planned = [LadderMatch(self.id, r, 0, r, SEATS[r:] + SEATS[:r], 10 + r, 99, "focus") for r in (0, 1)]
        self.store.plan_ladder_matches(self.planned)
        self.store.put_live([LiveMatch(self.id, 0, 0, 0, 99, list(SEATS), [])])

    def store_result(self, index: int) -> None:
        """The match at `index` played for real and stored, as the driver stores it."""
        planned = self.planned[index]
        record = run_match(GAME, list(planned.seats), seed=planned.seed, chance_seed=planned.chance_seed)
        seats = [SeatResult(seat, name, name, "builtin", "arena-test", record.returns[seat], record.ranks[seat])
                 for seat, name in enumerate(planned.seats)]
        self.store.record_match(MatchResult(self.id, index, 0, 0, planned.rotation, GAME, record.ruleset, planned.seed,
                                            planned.chance_seed, seats, record.to_json()))


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    return Ladder(tmp_path)


@pytest.fixture
def client(ladder: Ladder) -> Iterator[TestClient]:
    with TestClient(create_app(ladder.store)) as test_client:
        yield test_client


def test_the_match_playing_now_is_not_also_in_the_queue(ladder: Ladder, client: TestClient) -> None:
    [report] = client.get("/api/ladder").json()["ladders"]
    assert [m["index"] for m in report["live"]] == [0]
    assert [m["index"] for m in report["queue"]] == [1]
    page = client.get("/ladder").text
    queue = page.split('class="table queue"')[1].split("</table>")[0]
    playing = page.split('class="table now-playing"')[1].split("</table>")[0]
    assert queue.count("<tr>") == 2 and playing.count("<tr>") == 2  # each: its head and one match


def test_the_reason_a_table_was_chosen_reads_in_words(ladder: Ladder, client: TestClient) -> None:
    [report] = client.get("/api/ladder").json()["ladders"]
    [queued] = report["queue"]
    assert queued["why"] == "focus" and queued["seats"] == ["random", "heuristic"]
    assert queued["why_words"].startswith("to place heuristic: its rating is the least certain")  # seat 0 of rotation 0
    cell = client.get("/ladder").text.split('data-why="focus">')[1].split("</td>")[0]
    assert cell == queued["why_words"] and "95 % interval" in cell


def test_the_page_has_no_meta_refresh_and_is_whole_without_javascript(ladder: Ladder, client: TestClient) -> None:
    page = client.get("/ladder").text
    assert 'http-equiv="refresh"' not in page
    assert 'id="ladders" data-live="5"' in page and "Now playing" in page and "Field" in page


@pytest.mark.browser
def test_the_ladder_page_updates_in_place(browser: Any, ladder: Ladder) -> None:
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    with serve(Store(ladder.store.url)) as base:
        page.goto(f"{base}/ladder")
        page.evaluate("window.notReloaded = true")
        assert "0 matches stored" in page.inner_text(".ladder .card-head")
        assert page.eval_on_selector_all(".ladder table.queue tbody tr", "rows => rows.length") == 1
        ladder.store_result(0)  # rotation 0 ends: not playing any more, stored
        stored = "() => document.querySelector('.ladder .card-head').innerText.includes('1 matches stored')"
        page.wait_for_function(stored, timeout=60_000)
        assert page.evaluate("window.notReloaded") is True, "updated in place, not reloaded"
        assert int(page.get_attribute("#ladders", "data-updates") or 0) >= 1
    page.close()
    assert problems == []
