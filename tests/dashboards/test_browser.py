"""The dashboard in a real browser (Debian's headless Chromium, driven by Playwright), on a
database filled by real tournaments: the leaderboard's order, the chart, the replay viewer and
the seat views that must hide the other hands."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.match.record import MatchRecord
from dashboards.screenshot import take
from tests.dashboards.conftest import Filled
from tests.dashboards.test_api import _position_with_hands

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page; any script error or failed request on it fails the test."""
    page = browser.new_page(viewport={"width": 1360, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.set_default_timeout(10_000)
    yield page
    page.close()
    assert problems == []


def test_leaderboard_shows_the_stored_order_and_sorts(page: Any, server: str, filled: Filled) -> None:
    page.goto(f"{server}/leaderboard?game=lost_cities_rivals")
    stored = [row.entrant for row in filled.store.leaderboard("lost_cities_rivals@1")]
    assert _bots_in_table(page) == stored
    assert page.locator("#leaderboard tbody tr.provisional").count() == len(stored)  # 8 games each
    page.click("#leaderboard th:has-text('Win rate')")
    rates = [float(v) for v in page.eval_on_selector_all(
        "#leaderboard tbody tr td:nth-child(7)", "cells => cells.map(c => c.dataset.value)")]
    assert rates == sorted(rates)
    page.click("#leaderboard th:has-text('#')")
    assert _bots_in_table(page) == stored


def _bots_in_table(page: Any) -> list[str]:
    return page.eval_on_selector_all("#leaderboard tbody tr", "rows => rows.map(r => r.dataset.bot)")


def test_game_picker_switches_the_leaderboard(page: Any, server: str, filled: Filled) -> None:
    page.goto(f"{server}/leaderboard?game=lost_cities_rivals")
    page.click(".game-tabs a:has-text('Riviera')")
    page.wait_for_url("**game=riviera")
    assert _bots_in_table(page) == [row.entrant for row in filled.store.leaderboard("riviera@1")]


def test_top_bots_chart_draws_every_rating_point(page: Any, server: str, filled: Filled) -> None:
    page.goto(f"{server}/leaderboard?game=lost_cities_rivals")
    page.wait_for_function("() => Chart.getChart(document.querySelector('#top-chart'))")
    drawn = page.evaluate("""() => {
        const chart = Chart.getChart(document.querySelector('#top-chart'));
        return chart.data.datasets.map(d => [d.label, d.data.length,
                                             chart.getDatasetMeta(chart.data.datasets.indexOf(d)).data.length]);
    }""")
    for label, points, elements in drawn:
        assert points == elements == len(filled.store.rating_history("lost_cities_rivals@1", label))
    assert [label for label, _, _ in drawn] == [r.entrant for r in filled.store.leaderboard("lost_cities_rivals@1")]
    coloured = page.evaluate("""() => {
        const c = document.querySelector('#top-chart');
        const pixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) n++;
        return n;
    }""")
    assert coloured > 2000  # axes, grid, three lines: a blank canvas has none


def test_replay_steps_to_the_end_and_shows_the_final_scores(page: Any, server: str, filled: Filled) -> None:
    match = next(m for m in filled.store.matches(tournament_id=filled.lcr)
                 if "random#2" in {s.entrant for s in m.seats})
    record = MatchRecord.from_json(filled.store.match_record(match.id))
    page.goto(f"{server}/matches/{match.id}")
    last = len(record.steps)
    wait_shown(page, 0, "public")
    for n in (1, 2, 3):
        page.click("[data-go=next]")
        wait_shown(page, n, "public")
    assert page.inner_text("#position") == f"3 / {last}"
    assert page.get_attribute("#log li.current", "data-pos") == "3"
    assert page.is_hidden("#result")
    page.keyboard.press("End")
    wait_shown(page, last, "public")
    rows = page.eval_on_selector_all("#final-scores tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    by_bot = {cells[1]: float(cells[2]) for cells in rows}
    assert by_bot == {seat.entrant: seat.score for seat in match.seats}
    assert sorted(by_bot.values()) == sorted(record.returns)
    assert page.get_attribute("#log li.current", "data-pos") == str(last)


def test_a_seat_view_hides_the_other_hands(page: Any, server: str, filled: Filled) -> None:
    match = filled.store.matches(tournament_id=filled.riviera)[0]
    record = MatchRecord.from_json(filled.store.match_record(match.id))
    position, state = _position_with_hands(record)
    hands = [[str(card) for card in state.observation(seat)["hand"]] for seat in range(3)]
    page.goto(f"{server}/matches/{match.id}")
    page.click(f"#log li[data-pos='{position}']")
    wait_shown(page, position, "public")
    shown = _lists(page)
    assert not any(hand in shown for hand in hands)
    assert _dealt_to(page) == set()
    for seat in range(3):
        page.click(f"[data-view='{seat}']")
        page.wait_for_url(f"**/matches/{match.id}?view={seat}&position={position}")
        wait_shown(page, position, seat)
        shown = _lists(page)
        assert hands[seat] in shown
        assert all(hands[other] not in shown for other in range(3) if other != seat)
        assert _dealt_to(page) == {seat}  # the step log names only this seat's dealt cards


def _dealt_to(page: Any) -> set[int]:
    """The seats whose dealt cards the page's step log names ("dealt green 11 to seat 0")."""
    return {int(seat)
            for seat in re.findall(r"dealt (?:red|green|purple|blue|orange) \d+ to seat (\d)", page.inner_text("#log"))}


def _lists(page: Any) -> list[list[str]]:
    """Every list of values the state panel shows, as its items' texts."""
    return page.eval_on_selector_all("#state .list", "lists => lists.map(l => [...l.children].map(c => c.textContent))")


def wait_shown(page: Any, position: int, view: str | int) -> None:
    """Wait until the replay viewer has drawn `position` in `view`. A view button loads another page,
    so the predicate also runs on a document still being parsed, where #replay is not there yet."""
    page.wait_for_function(f"() => document.getElementById('replay')?.dataset.shown === '{position}:{view}'")


def test_every_page_loads_without_errors(page: Any, server: str, filled: Filled) -> None:
    for path in ("/", "/head-to-head?ruleset=lost_cities_rivals@1&a=heuristic&b=random", "/tournaments",
                 f"/tournaments/{filled.riviera}", "/matches?game=riviera&page=2&per_page=5", "/bots",
                 "/bots/heuristic", f"/matches/{filled.fault_match}"):
        response = page.goto(server + path)
        assert response.status == 200, path
        page.wait_for_load_state("networkidle")
    page.goto(f"{server}/head-to-head?ruleset=lost_cities_rivals@1&a=heuristic&b=random")
    assert page.inner_text("#los").endswith("%")


def test_screenshot_of_the_leaderboard(browser: Any, server: str, tmp_path: Path) -> None:
    out = tmp_path / "leaderboard.png"
    take(browser, f"{server}/leaderboard?game=lost_cities_rivals", str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000


def test_bot_page_charts_its_rating_in_every_ruleset(page: Any, server: str, filled: Filled) -> None:
    page.goto(f"{server}/bots/random")
    page.wait_for_function("() => Chart.getChart(document.querySelector('#bot-history'))")
    lines = page.evaluate("""() => Chart.getChart(document.querySelector('#bot-history'))
                                   .data.datasets.map(d => [d.label, d.data.length])""")
    assert dict(lines) == {r: len(filled.store.rating_history(r, "random"))
                           for r in ("gang_of_dice@1", "lost_cities_rivals@1", "riviera@1")}
