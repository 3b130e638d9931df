"""In a real browser: position links, the step in words with the acting seats marked, and a live
match of a real tournament (played in a thread, the driver writing to a real store) followed to
its end."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

import arena.match.live
import arena.tournament.live
from arena.match.executor import LocalExecutor
from arena.match.record import MatchRecord
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from dashboards.screenshot import serve
from tests.dashboards.conftest import Filled
from tests.dashboards.test_browser import page, wait_shown  # noqa: F401 - the page fixture

pytestmark = pytest.mark.browser
# a match of a few seconds even with the faster engines, so the page sees its positions advance
# The search bot thinks 60 ms a decision (a time budget, not simulations, which a fast machine
# runs through in under a second): a match lasts at least ~3 s, many polls of the page.
LIVE = TournamentConfig(game_id="riviera", players_per_match=2, entrants=("ismcts:ms=60", "random"), seed=6)


def _query(page: Any) -> dict[str, list[str]]:  # noqa: F811
    return parse_qs(urlparse(page.url).query)


def test_a_position_link_opens_that_position_and_view_and_follows_the_steps(page: Any, server: str,  # noqa: F811
                                                                           filled: Filled) -> None:
    match = filled.store.matches(tournament_id=filled.riviera)[0]
    page.goto(f"{server}/matches/{match.id}?position=7&view=1")
    wait_shown(page, 7, 1)
    assert page.get_attribute("#log li.current", "data-pos") == "7"
    page.click("[data-go=next]")
    wait_shown(page, 8, 1)
    assert _query(page) == {"view": ["1"], "position": ["8"]}  # the address follows the viewer
    assert page.get_attribute("#permalink", "href").endswith("?view=1&position=8")
    page.click("[data-view='public']")  # another view keeps the position
    wait_shown(page, 8, "public")
    page.reload()
    wait_shown(page, 8, "public")


def test_bad_position_links_say_what_is_valid_or_open_the_end(page: Any, browser: Any, server: str,  # noqa: F811
                                                             filled: Filled) -> None:
    match = filled.store.matches(tournament_id=filled.riviera)[0]
    last = len(MatchRecord.from_json(filled.store.match_record(match.id)).steps)
    refused = browser.new_page()  # its 400s are the point: not the error-checking page
    response = refused.goto(f"{server}/matches/{match.id}?position=seven")
    assert response.status == 400 and f"position must be a whole number from 0 to {last}" in refused.inner_text("main")
    response = refused.goto(f"{server}/matches/{match.id}?view=9")
    assert response.status == 400 and "view must be 'public' or a seat from 0 to 2" in refused.inner_text("main")
    refused.close()
    page.goto(f"{server}/matches/{match.id}?position=100000&view=2")
    wait_shown(page, last, 2)
    assert f"showing its last position, {last}" in page.inner_text(".position-note")


def test_the_step_reads_in_words_and_the_acting_seats_are_marked(page: Any, server: str, filled: Filled) -> None:  # noqa: F811
    match = filled.store.matches(tournament_id=filled.riviera)[0]
    log = page.request.get(f"{server}/api/matches/{match.id}").json()["log"]
    decision = next(e for e in log if e["kind"] == "decision")
    n = decision["step"]
    page.goto(f"{server}/matches/{match.id}?position={n}")
    wait_shown(page, n, "public")
    seat = decision["actions"][0]
    assert page.inner_text("#step-now").startswith(
        f"After step {n}: seat {seat['seat']} · {seat['bot']}: {seat['label']}")
    assert f"seat {seat['seat']} · {seat['bot']}: " in page.inner_text(f"#log li[data-pos='{n}']")
    for position in (n - 1, n, n + 1):
        page.evaluate(f"window.replayViewer.show({position})")
        wait_shown(page, position, "public")
        acting = page.request.get(f"{server}/api/matches/{match.id}/frames/{position}").json()["acting"]
        marked = page.eval_on_selector_all(".seats-table tr.acting", "rows => rows.map(r => Number(r.dataset.seatRow))")
        assert marked == acting


@pytest.fixture
def running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Store, int, str, threading.Thread]]:
    """A real tournament being played in a thread (live steps sent and written every 0.2 s), and a
    dashboard on its database; yields the store, the tournament id, the dashboard URL and the thread."""
    monkeypatch.setattr(arena.match.live, "PUSH_SECONDS", 0.2)
    monkeypatch.setattr(arena.tournament.live, "WRITE_SECONDS", 0.2)
    store = Store(f"sqlite:///{tmp_path / 'live.db'}")
    tid = start_tournament(store, LIVE, "live cup")
    player = threading.Thread(target=play_tournament, args=(store, tid, LocalExecutor(live=True)), daemon=True)
    with serve(Store(store.url)) as base:
        player.start()
        yield store, tid, base, player
        player.join(300)


def test_a_live_match_is_followed_to_its_end(page: Any, browser: Any, running: tuple) -> None:  # noqa: F811
    store, tid, base, player = running
    # match 0 lasts at least ~3 s (LIVE) and the page reloads every 5 s: load it once the
    # driver has written match 0's first steps, not before, or the page can miss the match
    deadline = time.monotonic() + 120
    while 0 not in {m.match_index for m in store.live_matches(tid)}:
        assert time.monotonic() < deadline, "the driver never wrote match 0 as live"
        time.sleep(0.05)
    listing = browser.new_page()
    listing.goto(f"{base}/tournaments/{tid}")  # while match 0 plays, its page lists it with a link
    listing.wait_for_selector("#live-matches a[href$='/live/0']", timeout=10_000)
    listing.close()
    page.add_init_script("window.ARENA_LIVE_POLL_MS = 300")  # the driver writes every 0.2 s here
    page.goto(f"{base}/tournaments/{tid}/live/1")  # the second rotation: not started yet
    shown: set[str] = set()
    deadline = time.monotonic() + 240
    while page.get_attribute("#live", "data-status") != "finished" and time.monotonic() < deadline:
        if page.get_attribute("#live", "data-status") == "running":
            shown.add(page.get_attribute("#live", "data-shown"))
            assert page.locator("#board").inner_html() or page.locator("#state").inner_html()
        time.sleep(0.3)
    assert page.get_attribute("#live", "data-status") == "finished"
    assert len(shown) >= 2  # positions advanced while it played
    player.join(300)
    match = store.matches(tournament_id=tid)[1]
    rows = page.eval_on_selector_all("#final-scores tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    assert {cells[1]: float(cells[2]) for cells in rows} == {s.entrant: s.score for s in match.seats}
    assert "its replay" in page.inner_text("#live-status")
    assert store.live_matches(tid) == []
