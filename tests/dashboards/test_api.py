"""The JSON API on a database filled by real tournaments: every endpoint, checked against the
store and the engine, and every kind of bad parameter answered with a clear 4xx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from arena.cli import main as arena_main
from arena.cli.leaderboard import format_interval
from arena.match.record import MatchRecord
from arena.store.records import LeaderboardRow
from dashboards.app import create_app
from dashboards.pages import TEMPLATES
from dashboards.stats import los
from dashboards.views import rating_row
from tests.dashboards.conftest import FAULT_REASON, Filled


@pytest.fixture(scope="module")
def client(filled: Filled) -> Iterator[TestClient]:
    with TestClient(create_app(filled.store)) as test_client:
        yield test_client


def get(client: TestClient, url: str, status: int = 200) -> dict:
    response = client.get(url)
    assert response.status_code == status, response.text
    return response.json()


def test_games_lists_every_registered_game_with_its_stored_rulesets(client: TestClient) -> None:
    games = {g["game"]: g["rulesets"] for g in get(client, "/api/games")["games"]}
    assert games["lost_cities_rivals"] == ["lost_cities_rivals@1"]
    assert games["riviera"] == ["riviera@1"]
    assert games["riga"] == []


def test_leaderboard_matches_the_store_and_the_cli(client: TestClient, filled: Filled, capsys) -> None:
    data = get(client, "/api/leaderboard?game=lost_cities_rivals")
    stored = filled.store.leaderboard("lost_cities_rivals@1")
    assert [r["bot"] for r in data["rows"]] == [r.entrant for r in stored]
    assert [r["place"] for r in data["rows"]] == [1, 2, 3]
    assert data["rows"][0]["bot"] == "heuristic"
    arena_main(["leaderboard", "--game", "lost_cities_rivals", "--db", filled.url, "--json"])
    cli = json.loads(capsys.readouterr().out)["lost_cities_rivals@1"]
    for mine, theirs in zip(data["rows"], cli, strict=True):
        assert (mine["bot"], mine["elo"], mine["low95"], mine["high95"], mine["games"]) == \
               (theirs["bot"], theirs["elo"], theirs["low95"], theirs["high95"], theirs["games"])
    assert data["matches"] == 12


def test_leaderboard_marks_few_games_provisional_and_shows_version_and_last_played(client: TestClient) -> None:
    data = get(client, "/api/leaderboard?ruleset=lost_cities_rivals@1")
    for row in data["rows"]:
        low, high = row["low95"], row["high95"]  # None: unbounded
        assert row["provisional"] == (low is None or high is None or (high - low) / 2 > data["provisional_half_width"])
        assert row["version"].startswith("arena-")
        assert row["last_played"] is not None
    assert any(r["provisional"] for r in data["rows"])  # 8 games each, under the threshold


def test_leaderboard_counts_strikes_and_forfeits_apart(client: TestClient) -> None:
    rows = {r["bot"]: r for r in get(client, "/api/leaderboard?game=gang_of_dice")["rows"]}
    assert (rows["slowpoke"]["strikes"], rows["slowpoke"]["forfeits"]) == (3, 1)
    assert (rows["random"]["strikes"], rows["random"]["forfeits"]) == (0, 0)


def test_rating_history_gives_one_point_per_rated_match_of_the_ruleset(client: TestClient, filled: Filled) -> None:
    data = get(client, "/api/rating-history?ruleset=lost_cities_rivals@1")
    assert [s["bot"] for s in data["series"]] == [r.entrant for r in filled.store.leaderboard("lost_cities_rivals@1")]
    for series in data["series"]:
        xs = [x for x, _ in series["points"]]
        assert xs == list(range(xs[0], 13)), "a point after every match of the ruleset from the bot's first on"
        final = filled.store.rating_history("lost_cities_rivals@1", series["bot"])[-1].elo
        assert series["points"][-1][1] == round(final, 1)
    one = get(client, "/api/rating-history?ruleset=lost_cities_rivals@1&bot=random%232")
    assert [s["bot"] for s in one["series"]] == ["random#2"]


def test_head_to_head_counts_who_finished_ahead(client: TestClient, filled: Filled) -> None:
    data = get(client, "/api/head-to-head?ruleset=lost_cities_rivals@1&a=heuristic&b=random")
    shared = [m for m in filled.store.matches(ruleset="lost_cities_rivals@1")
              if {s.entrant for s in m.seats} == {"heuristic", "random"}]
    rank = [{s.entrant: s.rank for s in m.seats} for m in shared]
    assert data["matches"] == len(shared) == 4
    assert data["a_ahead"] == sum(r["heuristic"] < r["random"] for r in rank)
    assert data["b_ahead"] == sum(r["random"] < r["heuristic"] for r in rank)
    assert data["ties"] == sum(r["random"] == r["heuristic"] for r in rank)
    assert data["los"] == round(los(data["a_ahead"], data["b_ahead"]), 4)
    flipped = get(client, "/api/head-to-head?ruleset=lost_cities_rivals@1&a=random&b=heuristic")
    assert (flipped["a_ahead"], flipped["b_ahead"]) == (data["b_ahead"], data["a_ahead"])
    assert {m["id"] for m in data["recent"]} == {m.id for m in shared}


def test_los_is_symmetric_and_none_without_results() -> None:
    assert los(0, 0) is None
    assert los(5, 5) == pytest.approx(0.5)
    assert los(8, 2) == pytest.approx(1 - los(2, 8))
    assert los(8, 2) > 0.9


def test_tournaments_list_and_detail(client: TestClient, filled: Filled) -> None:
    listing = get(client, "/api/tournaments")
    assert [t["id"] for t in listing["tournaments"]] == [filled.fault_tournament, filled.riviera, filled.lcr]
    detail = get(client, f"/api/tournaments/{filled.lcr}")
    assert detail["config"]["entrants"] == ["heuristic", "random", "random#2"]
    assert (detail["done_matches"], detail["total_matches"], detail["progress"]) == (12, 12, 1.0)
    assert detail["status"] == "finished"
    assert [s["bot"] for s in detail["standings"]][0] == "heuristic"
    assert sum(s["games"] for s in detail["standings"]) == 24
    page_two = get(client, "/api/tournaments?per_page=2&page=2")
    assert [t["id"] for t in page_two["tournaments"]] == [filled.lcr] and page_two["pages"] == 2


def test_matches_filters_and_pages(client: TestClient, filled: Filled) -> None:
    everything = get(client, "/api/matches?per_page=200")
    assert everything["total"] == 25 == len(everything["matches"])
    assert get(client, "/api/matches?game=riviera")["total"] == 12
    assert get(client, f"/api/matches?tournament={filled.lcr}")["total"] == 12
    by_bot = get(client, "/api/matches?bot=heuristic&per_page=200")
    assert by_bot["total"] == 8 and all("heuristic" in {s["bot"] for s in m["seats"]} for m in by_bot["matches"])
    faulted = get(client, "/api/matches?termination=any_fault")
    assert [m["id"] for m in faulted["matches"]] == [filled.fault_match]
    assert get(client, "/api/matches?termination=timeout")["total"] == 1
    assert get(client, "/api/matches?termination=crash")["total"] == 0
    first, second = get(client, "/api/matches?per_page=10"), get(client, "/api/matches?per_page=10&page=3")
    assert first["pages"] == 3 and len(second["matches"]) == 5
    seen = {m["id"] for p in (1, 2, 3) for m in get(client, f"/api/matches?per_page=10&page={p}")["matches"]}
    assert len(seen) == 25


def test_match_detail_has_the_whole_log_and_the_result(client: TestClient, filled: Filled) -> None:
    match = next(m for m in filled.store.matches(tournament_id=filled.riviera)
                 if m.seats[0].entrant != m.seats[0].spec)
    record = MatchRecord.from_json(filled.store.match_record(match.id))
    data = get(client, f"/api/matches/{match.id}")
    assert len(data["log"]) == len(record.steps) == data["positions"] - 1
    assert data["result"]["seats"][0]["score"] == record.returns[0]
    assert [s["rank"] for s in data["result"]["seats"]] == record.ranks
    decision = next(e for e in data["log"] if e["kind"] == "decision")
    action = decision["actions"][0]
    assert action["label"] == record.game().action_label(action["action"]) and action["elapsed_ms"] is not None
    assert action["bot"] == match.seats[action["seat"]].entrant  # random#2, not the spec it plays
    assert [s["bot"] for s in data["result"]["seats"]] == [s.entrant for s in match.seats]
    chance = next(e for e in data["log"] if e["kind"] == "chance")
    assert chance["outcome"] == record.steps[chance["step"] - 1].chance and 0 < chance["probability"] <= 1
    assert chance["label"].startswith(("colour removed: ", "first holder: seat "))  # Riviera's set-up
    assert "scores" in data["seat_fields"] and "hand" not in data["seat_fields"]


def test_frames_show_each_seat_exactly_its_observation(client: TestClient, filled: Filled) -> None:
    match = filled.store.matches(tournament_id=filled.riviera)[0]
    record = MatchRecord.from_json(filled.store.match_record(match.id))
    position, state = _position_with_hands(record)
    for seat in range(3):
        frame = get(client, f"/api/matches/{match.id}/frames/{position}?view={seat}")
        assert frame["state"] == json.loads(json.dumps(state.observation(seat)))
    public = get(client, f"/api/matches/{match.id}/frames/{position}")["state"]
    assert "hand" not in public and public["hand_sizes"] == state.observation(0)["hand_sizes"]
    assert all(str(state.observation(s)["hand"]) not in json.dumps(public) for s in range(3))
    final = get(client, f"/api/matches/{match.id}/frames/{len(record.steps)}?view=public")
    assert final["node"] == "terminal" and [s["score"] for s in final["result"]["seats"]] == record.returns


def _position_with_hands(record: MatchRecord):  # noqa: ANN202
    """The first position where every seat holds cards and the hands differ."""
    state = record.game().initial_state()
    for n, step in enumerate(record.steps):
        hands = [state.observation(s).get("hand") for s in range(record.num_players)]
        if all(hands) and len({tuple(h) for h in hands}) == len(hands):
            return n, state
        state = state.apply_chance(step.chance) if step.chance is not None else state.apply(step.actions)
    raise AssertionError("no position with three different hands")


def test_bots_and_bot_pages(client: TestClient, filled: Filled) -> None:
    bots = {b["bot"]: b for b in get(client, "/api/bots")["bots"]}
    assert {"heuristic", "random", "random#2", "random#3", "random#4", "slowpoke"} <= set(bots)
    assert {r["ruleset"] for r in bots["random"]["ratings"]} == {"lost_cities_rivals@1", "riviera@1", "gang_of_dice@1"}
    heuristic = get(client, "/api/bots/heuristic")
    assert heuristic["versions"][0]["spec"] == "heuristic" and heuristic["matches"] == 8
    assert heuristic["ratings"][0]["place"] == 1 and heuristic["faults"]["total"] == 0
    slow = get(client, "/api/bots/slowpoke")
    assert slow["faults"]["total"] == 1
    entry = slow["faults"]["entries"][0]
    assert (entry["match"], entry["termination"], entry["reason"]) == (filled.fault_match, "timeout", FAULT_REASON)
    assert get(client, f"/api/bots/{quote('random#2', safe='')}")["bot"] == "random#2"


@pytest.mark.parametrize(("url", "status", "says"), [
    ("/api/leaderboard?game=chess", 400, "unknown game 'chess'; valid games: gang_of_dice"),
    ("/api/leaderboard?ruleset=riga@9", 404, "no matches of ruleset 'riga@9'"),
    ("/api/leaderboard?game=riviera&ruleset=lost_cities_rivals@1", 400, "is not a ruleset of 'riviera'"),
    ("/api/matches?page=0", 400, "page must be a whole number from 1"),
    ("/api/matches?page=abc", 400, "page must be a whole number"),
    ("/api/matches?page=99", 404, "page 99 does not exist; there is 1 page"),
    ("/api/matches?per_page=5000", 400, "per_page must be at most 200"),
    ("/api/matches?termination=boom", 400, "unknown termination 'boom'; valid: normal, timeout"),
    ("/api/matches?bot=nobody", 404, "no bot named 'nobody'"),
    ("/api/matches?tournament=x", 400, "tournament must be a whole number"),
    ("/api/matches?game=go", 400, "unknown game 'go'"),
    ("/api/matches/abc", 400, "match id must be a whole number"),
    ("/api/matches/99999", 404, "no match 99999 is stored"),
    ("/api/matches/1/frames/100000", 400, "position must be a whole number from 0 to"),
    ("/api/matches/1/frames/2?view=9", 400, "view must be 'public' or a seat from 0 to 1"),
    ("/api/tournaments/77", 404, "no tournament 77 is stored"),
    ("/api/tournaments?page=5", 404, "page 5 does not exist"),
    ("/api/head-to-head?ruleset=lost_cities_rivals@1&a=heuristic", 400, "missing b"),
    ("/api/head-to-head?ruleset=lost_cities_rivals@1&a=heuristic&b=nobody", 404, "bot 'nobody' has no rating"),
    ("/api/head-to-head?ruleset=lost_cities_rivals@1&a=random&b=random", 400, "two different bots"),
    ("/api/rating-history?ruleset=riviera@1&bot=heuristic", 404, "bot 'heuristic' has no rating in riviera@1"),
    ("/api/rating-history?game=riga", 404, "no matches of riga are stored yet"),
    ("/api/bots/nobody", 404, "no bot named 'nobody'"),
    ("/api/bots/heuristic?page=3", 404, "page 3 does not exist"),
    ("/api/nowhere", 404, "no API endpoint /api/nowhere"),
])
def test_bad_parameters_get_a_clear_4xx(client: TestClient, url: str, status: int, says: str) -> None:
    body = get(client, url, status)
    assert says in body["error"] and body["status"] == status


def test_pages_render_and_bad_parameters_get_an_error_page(client: TestClient, filled: Filled) -> None:
    for url in ("/", "/leaderboard?game=riviera", "/leaderboard?game=riga", "/head-to-head",
                "/head-to-head?ruleset=lost_cities_rivals@1&a=heuristic&b=random", "/tournaments",
                f"/tournaments/{filled.lcr}", "/matches?termination=any_fault", f"/matches/{filled.fault_match}",
                "/bots", "/bots/slowpoke", "/matches?per_page=10&page=2", "/tournaments?per_page=1&page=2"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "<html" in response.text
    response = client.get("/leaderboard?game=chess")
    assert response.status_code == 400 and "unknown game &#39;chess&#39;" in response.text
    assert client.get("/matches?page=50").status_code == 404
    assert FAULT_REASON in client.get("/bots/slowpoke").text
    assert "<b>warning card W" in client.get(f"/matches/{filled.fault_match}").text  # a chance label
    assert '<code data-node>node-b</code>' in client.get(f"/matches/{filled.fault_match}").text  # where it ran
    assert get(client, f"/api/matches?tournament={filled.fault_tournament}")["matches"][0]["node"] == "node-b"
    assert client.get("/static/vendor/chart-4.6.1.umd.min.js").status_code == 200


def test_a_running_tournament_shows_its_progress_and_refreshes(tmp_path) -> None:  # noqa: ANN001
    from arena.store import Store
    from arena.tournament.driver import start_tournament
    from tests.dashboards.conftest import LCR

    store = Store(f"sqlite:///{tmp_path / 'running.db'}")
    tournament_id = start_tournament(store, LCR, "still going")
    with TestClient(create_app(store)) as fresh:
        data = get(fresh, f"/api/tournaments/{tournament_id}")
        assert ((data["status"], data["done_matches"], data["total_matches"], data["progress"])
                == ("running", 0, 12, 0.0))
        assert data["standings"] == []
        assert 'data-refresh="5"' in fresh.get(f"/tournaments/{tournament_id}").text
        assert get(fresh, "/api/leaderboard?game=riga")["rows"] == []
        assert "No ratings yet" in fresh.get("/leaderboard").text


def test_a_record_the_engine_cannot_replay_is_explained_not_a_crash(tmp_path) -> None:  # noqa: ANN001
    from arena.store import MatchResult, SeatResult, Store
    from arena.tournament.schedule import TournamentConfig

    store = Store(f"sqlite:///{tmp_path / 'old.db'}")
    record = run_match_json("gang_of_dice")
    record["ruleset"] = "gang_of_dice@0"  # as if played under an older version of the rules
    config = TournamentConfig(game_id="gang_of_dice", players_per_match=2, entrants=("random", "random#2"))
    tournament_id = store.create_tournament("gang_of_dice", "gang_of_dice@0", "round_robin", config.to_json(), 1)
    seats = [SeatResult(0, "random", "random", rank=1), SeatResult(1, "random#2", "random", rank=2)]
    store.record_match(MatchResult(tournament_id, 0, 0, 0, 0, "gang_of_dice", "gang_of_dice@0", 1, 1, seats, record))
    store.set_tournament_status(tournament_id, "finished")  # a running one's replays wait anyway
    match_id = store.matches()[0].id
    with TestClient(create_app(store)) as fresh:
        data = get(fresh, f"/api/matches/{match_id}")
        assert "played under gang_of_dice@0; this engine plays gang_of_dice@1" in data["replay_error"]
        assert "cannot be replayed" in get(fresh, f"/api/matches/{match_id}/frames/0", 409)["error"]
        page = fresh.get(f"/matches/{match_id}")
        assert page.status_code == 200 and "this engine plays gang_of_dice@1" in page.text
        board = fresh.get("/leaderboard?game=gang_of_dice").text  # stored, never rated
        assert "1 match of <code>gang_of_dice@0</code> is stored; ratings are computed" in board


def run_match_json(game_id: str) -> dict:
    from arena.match.runner import run_match

    return run_match(game_id, ["random", "random"], seed=1).to_json()


def test_the_leaderboard_page_shows_strikes_and_forfeits_and_says_what_they_count(client: TestClient) -> None:
    page = client.get("/leaderboard?game=gang_of_dice").text
    assert ">Strikes</th>" in page and ">Forfeits</th>" in page and ">Faults</th>" not in page
    assert "Strikes count faulty decisions" in page and "Forfeits count matches" in page
    [slowpoke] = [row for row in page.split("<tr")[1:] if 'data-bot="slowpoke"' in row]
    assert 'data-value="3"' in slowpoke and 'data-value="1"' in slowpoke


def test_the_leaderboard_counts_the_matches_its_ratings_are_fitted_to(tmp_path) -> None:  # noqa: ANN001
    """A tournament that is still writing: its new matches are stored but not rated until the next
    rerate, and the page's match count stays the table's."""
    from arena.match.executor import LocalExecutor
    from arena.store import MatchResult, SeatResult, Store
    from arena.tournament.driver import play_tournament, start_tournament
    from arena.tournament.schedule import TournamentConfig

    store = Store(f"sqlite:///{tmp_path / 'live.db'}")
    config = TournamentConfig(game_id="gang_of_dice", players_per_match=2, entrants=("random", "random#2"))
    play_tournament(store, start_tournament(store, config), LocalExecutor())
    writing = store.create_tournament("gang_of_dice", "gang_of_dice@1", "round_robin", config.to_json(), 2)
    seats = [SeatResult(0, "random", "random", rank=1), SeatResult(1, "random#2", "random", rank=2)]
    store.record_match(MatchResult(writing, 0, 0, 0, 0, "gang_of_dice", "gang_of_dice@1", 1, 1, seats,
                                   run_match_json("gang_of_dice")))
    with TestClient(create_app(store)) as fresh:
        data = get(fresh, "/api/leaderboard?game=gang_of_dice")
        assert (data["matches"], data["stored_matches"]) == (2, 3)
        assert sum(row["games"] for row in data["rows"]) == 2 * data["matches"]
        assert "2 rated matches" in fresh.get("/leaderboard?game=gang_of_dice").text


def test_the_page_prints_the_same_whole_elo_and_interval_as_the_cli() -> None:
    # 1867.46 rounded first to 1867.5 would print as 1868 on the page beside the CLI's 1867
    row = LeaderboardRow(1, "bot", "riviera", "riviera@1", 1867.46, 1655.48, 2153.5001, 24, 20.0, 0, 0)
    shown = rating_row(row)
    filters = TEMPLATES.env.filters
    assert filters["elo"](shown["elo"]) == f"{row.elo:.0f}" == "1867"
    assert filters["interval"](shown).split() == format_interval(row.low, row.high).split() == ["1655", "–", "2154"]
