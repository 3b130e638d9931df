"""The JSON API: /api/... One `*_data(request)` function per endpoint reads and checks the
parameters and returns the data; the HTML pages call the same functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from arena.ladder.report import ladder_report
from arena.store import Store, TournamentInfo
from arena.store import dashboard_queries as dq
from arena.store.record_codec import RecordPruned
from arena.store.release import replay_withheld
from dashboards import live, params, views
from dashboards.params import BadRequest
from dashboards.replay import Replay, ReplayUnavailable


def store(request: Request) -> Store:
    return request.app.state.store  # type: ignore[no-any-return]


def games_data(request: Request) -> dict[str, Any]:
    return {"games": views.games(store(request))}


def leaderboard_data(request: Request) -> dict[str, Any]:
    query = request.query_params
    game_id, ruleset = views.pick_ruleset(store(request), params.game(query.get("game")), query.get("ruleset"))
    number, per_page = params.page(query, views.LEADERBOARD_PER_PAGE)
    return views.leaderboard(store(request), game_id, ruleset, params.flag(query, "all_versions"), number, per_page)


def history_data(request: Request) -> dict[str, Any]:
    game_id, ruleset = views.pick_ruleset(
        store(request), params.game(request.query_params.get("game")), request.query_params.get("ruleset")
    )
    if ruleset is None:
        raise BadRequest(f"no matches of {game_id} are stored yet", 404)
    return views.rating_history(store(request), ruleset, request.query_params.getlist("bot") or None)


def head_to_head_data(request: Request) -> dict[str, Any]:
    query = request.query_params
    game_id, ruleset = views.pick_ruleset(store(request), params.game(query.get("game")), query.get("ruleset"))
    missing = [name for name in ("a", "b") if not query.get(name)]
    if missing:
        raise BadRequest(f"give two bots to compare: ?a=BOT&b=BOT (missing {' and '.join(missing)})")
    if ruleset is None:
        raise BadRequest(f"no matches of {game_id} are stored yet", 404)
    return views.head_to_head(store(request), ruleset, query["a"], query["b"])


def tournaments_data(request: Request) -> dict[str, Any]:
    number, per_page = params.page(request.query_params, 25)
    return views.tournaments(store(request), number, per_page)


def tournament_data(request: Request) -> dict[str, Any]:
    number, per_page = params.page(request.query_params, views.STANDINGS_PER_PAGE)
    data = views.tournament(store(request), path_id(request, "tournament"), number, per_page)
    return {**data, "live": live.live_list(store(request), tournament_info(request))}


def ladder_data(request: Request) -> dict[str, Any]:
    """Every ladder: its state, one page of its field (`?page=`: best rated first, provisional
    marks, games in the last hour), suspended versions, planned queue, and the matches playing now
    (with the live pages' held-back steps)."""
    number, per_page = params.page(request.query_params, views.FIELD_PER_PAGE)
    ladders = []
    for info in store(request).ladders():
        report = ladder_report(store(request), info, (number - 1) * per_page, per_page)
        paging = {"page": number, "pages": max(1, -(-report["field_total"] // per_page)), "per_page": per_page,
                  "total": report["field_total"]}
        ladders.append({**report, **paging, "live": live.live_list(store(request), info)})
    params.check_page_exists(number, per_page, max((ladder["total"] for ladder in ladders), default=0))
    return {"ladders": ladders}


def live_list_data(request: Request) -> dict[str, Any]:
    info = tournament_info(request)
    return {"tournament": info.id, "status": info.status, "matches": live.live_list(store(request), info)}


def live_match_data(request: Request) -> dict[str, Any]:
    """A running match, public view only: no seat's view while it plays (live pages are public)."""
    if request.query_params.get("view", "public") != "public":
        raise BadRequest("a live match shows the public view only; the seats' views open with its replay "
                         "once every rotation of its table has been played")
    text = request.path_params["index"]
    if not text.isdigit():
        raise BadRequest(f"match index must be a whole number, not {text!r}")
    return live.live_state(store(request), tournament_info(request), int(text))


def tournament_info(request: Request) -> TournamentInfo:
    tournament_id = path_id(request, "tournament")
    info = store(request).tournament(tournament_id)
    if info is None:
        raise BadRequest(f"no tournament {tournament_id} is stored", 404)
    return info


def tests_data(request: Request) -> dict[str, Any]:
    number, per_page = params.page(request.query_params, 25)
    return views.sprt_tests(store(request), number, per_page)


def test_data(request: Request) -> dict[str, Any]:
    return views.sprt_test(store(request), path_id(request, "SPRT test"))


def matches_data(request: Request) -> dict[str, Any]:
    query = request.query_params
    number, per_page = params.page(query)
    filters = {
        "game": params.game(query.get("game")), "bot": query.get("bot") or None,
        "tournament": params.positive_int(query, "tournament"),
        "termination": params.termination(query.get("termination")),
    }
    return views.matches(store(request), filters, number, per_page)


def match_data(request: Request) -> dict[str, Any]:
    match_id = path_id(request, "match")
    summary = dq.match_summary(store(request), match_id)
    if summary is None:
        raise BadRequest(f"no match {match_id} is stored", 404)
    view = params.view(request.query_params.get("view"), len(summary.seats))
    try:
        replay = replay_of(request, match_id)
    except ReplayUnavailable as error:
        return {**views.match_row(summary), "view": view, "replay_error": str(error), "positions": 0, "log": [],
                "position": 0, "position_note": None}
    record = replay.record
    position, note = params.position(request.query_params.get("position"), replay.positions)
    return {
        **views.match_row(summary), "options": record.options, "view": view, "position": position,
        "position_note": note,
        "positions": replay.positions, "seat_faults": [[f.to_json() for f in s.faults] for s in record.seats],
        "result": replay.result(), "seat_fields": replay.seat_fields(), "log": replay.log(view), "replay_error": None,
    }


def frame_data(request: Request) -> dict[str, Any]:
    match_id = path_id(request, "match")
    try:
        replay = replay_of(request, match_id)
    except ReplayUnavailable as error:
        raise BadRequest(f"match {match_id} cannot be replayed: {error}", 409) from None
    text = request.path_params["position"]
    if not text.isdigit() or int(text) >= replay.positions:
        raise BadRequest(f"position must be a whole number from 0 to {replay.positions - 1}, not {text!r}")
    view = params.view(request.query_params.get("view"), replay.record.num_players)
    return replay.frame(int(text), view)


def bots_data(request: Request) -> dict[str, Any]:
    number, per_page = params.page(request.query_params, views.BOTS_PER_PAGE)
    return views.bots(store(request), number, per_page)


def bot_data(request: Request) -> dict[str, Any]:
    fault_page, per_page = params.page(request.query_params)
    return views.bot(store(request), request.path_params["name"], fault_page, per_page)


def path_id(request: Request, what: str) -> int:
    text = request.path_params["id"]
    if not text.isdigit():
        raise BadRequest(f"{what} id must be a whole number, not {text!r}")
    return int(text)


def replay_of(request: Request, match_id: int) -> Replay:
    """The replay of a stored match; ReplayUnavailable when it cannot, or may not yet, be shown."""
    check_table_played(request, match_id)

    def load() -> tuple[dict[str, Any], list[str]] | None:
        summary = dq.match_summary(store(request), match_id)
        try:
            record = store(request).match_record(match_id)
        except RecordPruned as error:  # its result still counts: the page shows it, without a replay
            raise ReplayUnavailable(str(error)) from None
        if summary is None or record is None:
            return None
        return record, [seat.entrant for seat in summary.seats]

    replay = request.app.state.replays.get(match_id, load)
    if replay is None:
        raise BadRequest(f"no match {match_id} is stored", 404)
    return replay  # type: ignore[no-any-return]


def check_table_played(request: Request, match_id: int) -> None:
    """Withhold a replay while a rotation of its table is still to play: the rotations share one
    chance seed (duplicate play), so a finished rotation names the others' cards and dice
    (arena/store/release.py)."""
    withheld = replay_withheld(store(request), match_id)
    if withheld is not None:
        raise ReplayUnavailable(withheld.reason())


def _json(data: Callable[[Request], dict[str, Any]]) -> Callable[[Request], JSONResponse]:
    def endpoint(request: Request) -> JSONResponse:
        return JSONResponse(data(request))

    endpoint.__name__ = data.__name__.replace("_data", "_api")
    return endpoint


def not_found(request: Request) -> JSONResponse:
    raise BadRequest(f"no API endpoint {request.url.path}; see /api for the list", 404)


def index(request: Request) -> JSONResponse:
    """The endpoints, so the API explains itself."""
    return JSONResponse({"endpoints": ENDPOINTS})


ENDPOINTS = {
    "/api/games": "registered games and the rulesets with stored matches",
    "/api/leaderboard?game=&ruleset=&all_versions=&page=": "ratings of one ruleset, best first: each bot's "
                                                           "latest rated version (every version with "
                                                           "all_versions=1), 100 a page",
    "/api/ladder?page=&per_page=": "every ladder: its state, a page of its field (best rated first; page, pages, "
                                   "total), suspended versions, the queue, the matches playing now",
    "/api/rating-history?game=&ruleset=&bot=": "the rating fitted to the matches so far, as they came in "
                                               "(top bots, or each bot= given)",
    "/api/head-to-head?ruleset=&a=&b=": "two bots' record where they met, and LOS",
    "/api/tournaments?page=&per_page=": "tournaments, newest first",
    "/api/tournaments/{id}?page=&per_page=": "one tournament: config, progress, a page of its standings "
                                             "(standings_page: which of how many), the matches being played",
    "/api/tournaments/{id}/live": "the matches a tournament is playing now",
    "/api/tournaments/{id}/live/{index}": "a match being played, public view only: its step log and latest position "
                                          "(as far as the sibling rule allows), or its result once stored",
    "/api/tests?page=&per_page=": "SPRT tests (is bot A better than bot B?), newest first",
    "/api/tests/{id}": "one SPRT test: config, pentanomial counts, LLR and bounds, Elo estimate, verdict, "
                       "LLR after every pair",
    "/api/matches?game=&bot=&tournament=&termination=&page=&per_page=": "matches, newest first",
    "/api/matches/{id}?view=public|<seat>&position=": "one match with its result and its step log "
                                                      "as that view may read it",
    "/api/matches/{id}/frames/{position}?view=public|<seat>": "the position after that many steps",
    "/api/bots": "every bot that played",
    "/api/bots/{name}?page=": "one bot (NAME: its latest version that played; NAME@N): "
                              "its submitted versions with their ratings, ratings, recent matches, faults",
}


def routes() -> list[Route]:
    return [
        Route("/api", index),
        Route("/api/games", _json(games_data)),
        Route("/api/leaderboard", _json(leaderboard_data)),
        Route("/api/ladder", _json(ladder_data)),
        Route("/api/rating-history", _json(history_data)),
        Route("/api/head-to-head", _json(head_to_head_data)),
        Route("/api/tournaments", _json(tournaments_data)),
        Route("/api/tournaments/{id}", _json(tournament_data)),
        Route("/api/tournaments/{id}/live", _json(live_list_data)),
        Route("/api/tournaments/{id}/live/{index}", _json(live_match_data)),
        Route("/api/tests", _json(tests_data)),
        Route("/api/tests/{id}", _json(test_data)),
        Route("/api/matches", _json(matches_data)),
        Route("/api/matches/{id}", _json(match_data)),
        Route("/api/matches/{id}/frames/{position}", _json(frame_data)),
        Route("/api/bots", _json(bots_data)),
        Route("/api/bots/{name}", _json(bot_data)),
        Route("/api/{rest:path}", not_found),
    ]
