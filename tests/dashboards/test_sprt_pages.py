"""The Tests pages (SPRT) and their JSON API, on a database filled by real SPRT runs, in Chromium too."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import arena.sprt.driver
from arena.match.executor import LocalExecutor
from arena.sprt.driver import play_sprt, start_sprt
from arena.sprt.pairs import SprtConfig
from arena.store import Store
from dashboards.app import create_app
from dashboards.screenshot import serve


@dataclasses.dataclass(frozen=True)
class StoredTests:
    store: Store
    decided: int  # heuristic against random: H1
    undecided: int  # a bot against itself, stopped by --max-pairs


@pytest.fixture(scope="module")
def tests_db(tmp_path_factory: pytest.TempPathFactory) -> StoredTests:
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('sprt') / 'arena.db'}")
    ids = []
    for config in (SprtConfig("riviera", "heuristic", "random", elo1=100.0, seed=2),
                   SprtConfig("gang_of_dice", "random", "random#2<b>", max_pairs=6, seed=4)):
        ids.append(play_sprt(store, start_sprt(store, config, name=""), LocalExecutor()).id)
    return StoredTests(store, *ids)


@pytest.fixture(scope="module")
def client(tests_db: StoredTests) -> Iterator[TestClient]:
    with TestClient(create_app(tests_db.store)) as test_client:
        yield test_client


def test_the_api_serves_the_stored_tests(client: TestClient, tests_db: StoredTests) -> None:
    listed = client.get("/api/tests").json()
    assert [t["id"] for t in listed["tests"]] == [tests_db.undecided, tests_db.decided] and listed["total"] == 2
    one = client.get(f"/api/tests/{tests_db.decided}").json()
    stored = tests_db.store.sprt(tests_db.decided, history=True)
    assert stored is not None
    assert one["verdict"] == "H1" and one["pentanomial"] == stored.state.pentanomial
    assert one["pairs"] == stored.state.pairs == len(one["history"]) and one["unit"] == "nElo"
    assert [p["pairs"] for p in one["history"]] == list(range(1, stored.state.pairs + 1))
    assert one["config"]["a"] == "heuristic" and one["upper"] == pytest.approx(2.9444, abs=1e-4)
    assert client.get(f"/api/tests/{tests_db.undecided}").json()["verdict"] == "undecided"
    assert "/api/tests/{id}" in client.get("/api").json()["endpoints"]
    assert f'href="/tests/{tests_db.decided}"' in client.get(f"/tournaments/{tests_db.decided}").text


def test_missing_or_bad_test_ids_are_one_line_errors(client: TestClient) -> None:
    missing = client.get("/api/tests/999")
    assert missing.status_code == 404 and missing.json()["error"] == "no SPRT test 999 is stored"
    bad = client.get("/api/tests/x")
    assert bad.status_code == 400 and "SPRT test id must be a whole number" in bad.json()["error"]
    assert client.get("/tests/999").status_code == 404


@pytest.fixture(scope="module")
def server(tests_db: StoredTests) -> Iterator[str]:
    with serve(tests_db.store) as base:
        yield base


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    page = browser.new_page(viewport={"width": 1360, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.set_default_timeout(10_000)
    yield page
    page.close()
    assert problems == []


@pytest.mark.browser
def test_the_tests_page_lists_them_and_one_test_draws_its_llr_bounds_and_counts(
    page: Any, server: str, tests_db: StoredTests
) -> None:
    page.goto(f"{server}/tests")
    rows = page.eval_on_selector_all("#tests tbody tr", "rows => rows.map(r => r.innerText)")
    assert "H1 accepted" in rows[1] and "undecided" in rows[0] and "random#2<b>" in rows[0]
    page.click(f"#tests tr[data-test='{tests_db.decided}'] a:has-text('heuristic')")
    page.wait_for_url(f"**/tests/{tests_db.decided}")
    assert page.inner_text("#verdict-text") == "H1 accepted: heuristic is better by at least 100.0 nElo"
    stored_state = tests_db.store.sprt(tests_db.decided).state  # type: ignore[union-attr]
    assert stored_state.pentanomial[:4] == [0, 0, 0, 0], "heuristic won every pair (seeded)"
    assert page.inner_text("#elo") == (f"> {stored_state.low:+.1f} nElo (every pair went one way: "
                                       "a 95 % bound, no estimate)")
    page.wait_for_function("() => Chart.getChart(document.querySelector('#llr-chart'))"
                           " && Chart.getChart(document.querySelector('#pentanomial-chart'))")
    llr_chart = page.evaluate("""() => Chart.getChart(document.querySelector('#llr-chart')).data.datasets
                                 .map(d => d.data.map(p => [p.x, p.y]))""")
    bars = page.evaluate("() => Chart.getChart(document.querySelector('#pentanomial-chart')).data.datasets[0].data")
    stored = tests_db.store.sprt(tests_db.decided, history=True)
    assert stored is not None
    line, upper, lower = llr_chart
    assert line == [[0, 0]] + [[p, pytest.approx(v, abs=1e-4)] for p, v in stored.history]
    assert [y for _, y in upper] == pytest.approx([stored.state.upper] * 2, abs=1e-4)
    assert [y for _, y in lower] == pytest.approx([stored.state.lower] * 2, abs=1e-4)
    assert bars == stored.state.pentanomial
    assert page.eval_on_selector("a.active", "a => a.textContent") == "Tests"


@pytest.mark.browser
def test_a_running_test_updates_its_page_in_place_until_its_verdict(
    page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    test_id = start_sprt(store, SprtConfig("gang_of_dice", "random", "random#2", max_pairs=6, seed=4))
    # every game written at once, and the run held after its first write until the page is open
    monkeypatch.setattr(arena.sprt.driver, "FLUSH_SECONDS", 0.0)
    first_write, go = threading.Event(), threading.Event()
    flush = arena.sprt.driver._Writer.flush

    def held_flush(writer: Any) -> None:
        flush(writer)
        first_write.set()
        assert go.wait(60), "the page never opened"

    monkeypatch.setattr(arena.sprt.driver._Writer, "flush", held_flush)
    player = threading.Thread(target=play_sprt, args=(store, test_id, LocalExecutor()), daemon=True)
    with serve(Store(store.url)) as base:
        player.start()
        assert first_write.wait(60)
        running = store.sprt(test_id)
        assert running is not None and running.tournament.status == "running"
        page.goto(f"{base}/tests/{test_id}")
        assert page.inner_text("#verdict-text") == "Running"
        assert "live: updates every 2 s" in page.inner_text("#verdict")
        assert page.inner_text("#pairs").startswith(f"{running.state.pairs} ")
        page.evaluate("window.loadedOnce = true")  # gone if the page reloaded instead of updating
        go.set()
        player.join(120)
        done = store.sprt(test_id, history=True)
        assert done is not None and done.tournament.status == "finished" and done.state.pairs > running.state.pairs
        page.wait_for_function("() => document.querySelector('#verdict-text').textContent !== 'Running'",
                               timeout=20_000)
    assert page.evaluate("window.loadedOnce") is True
    assert page.inner_text("#pairs").startswith(f"{done.state.pairs} ")
    assert page.inner_text("#llr").startswith(f"{done.state.llr:.2f} ")
    bars = page.evaluate("() => Chart.getChart(document.querySelector('#pentanomial-chart')).data.datasets[0].data")
    assert bars == done.state.pentanomial
    assert page.locator("#verdict[data-live]").count() == 0 and "live:" not in page.inner_text("#verdict")
