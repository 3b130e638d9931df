"""The HTML pages: each renders the data of the matching API function with a Jinja2 template."""

from __future__ import annotations

import html
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from arena.standings import interval_end
from dashboards import api, views
from dashboards.params import BadRequest
from engine import registry

BOT_CHOICES = 200  # the matches page's bot filter is a list of names up to this many bots
DICT_ATTRIBUTES = frozenset(dir(dict))


class _PageEnvironment(jinja2.Environment):
    """Jinja's environment, reading a dict's key at once for `row.elo`: Jinja tries the attribute
    first, and on a dict each such read raised and caught an AttributeError (~3,000 a leaderboard
    page of 100 rows). The same value as Jinja's: a dict's own attributes (`.items`) still win."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


TEMPLATES = Jinja2Templates(env=_PageEnvironment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                                                 autoescape=jinja2.select_autoescape()))


def _when(text: str | None) -> str:
    """An ISO time as `2026-11-30 11:22` (UTC), or a dash."""
    if not text:
        return "—"
    return datetime.fromisoformat(text).strftime("%Y-%m-%d %H:%M")


def _game_name(game_id: str) -> str:
    return registry.info(game_id).name if game_id in registry.GAMES else game_id


def _board(game_id: str) -> dict[str, str]:
    """A game's board files under static/ (its description's board_script, board_style; "" for none):
    a game without a script, or no longer registered, shows its observation's fields only."""
    if game_id not in registry.GAMES:
        return {"script": "", "style": ""}
    description = registry.describe(game_id)
    return {"script": description.board_script, "style": description.board_style}


def _with(request: Request, **changes: Any) -> str:
    """This page's query string with some parameters changed (None removes one)."""
    query = {k: v for k, v in request.query_params.items() if k not in changes}
    query.update({k: v for k, v in changes.items() if v is not None})
    return "?" + urlencode(query) if query else request.url.path


def _short_version(text: str | None) -> str:
    """A version as a table shows it: a files' hash cut to 12 digits (`sha256:5d1f0c2e9a7b`)."""
    if not text:
        return "—"
    return text[:len("sha256:") + 12] if text.startswith("sha256:") else text


def _interval_bar(row: dict[str, Any], lo: float, hi: float) -> dict[str, str]:
    """Where a leaderboard row's 95 % interval bar starts, how wide it is and where its rating's dot
    sits, in % of the table's Elo scale `lo`..`hi` (an unknown end at the scale's edge). Here and
    not in the template: Jinja's min and max filters cost ~10 ms a page of 100 rows."""
    span = hi - lo
    left = 0.0 if row["low95"] is None else max(0.0, (row["low95"] - lo) / span * 100)
    right = 100.0 if row["high95"] is None else min(100.0, (row["high95"] - lo) / span * 100)
    return {"left": f"{left:.1f}", "width": f"{right - left:.1f}", "dot": f"{(row['elo'] - lo) / span * 100:.1f}"}


TEMPLATES.env.filters.update(
    when=_when, game_name=_game_name, q=lambda text: quote(str(text), safe=""),
    pct=lambda value: "—" if value is None else f"{100 * value:.0f}%",
    elo=lambda value: "—" if value is None else f"{value:.0f}",
    interval=lambda row: f"{interval_end(row['low95'])} – {interval_end(row['high95'])}",
    short_version=lambda text: _short_version(text),
)
TEMPLATES.env.globals.update(with_query=_with, board_of=_board, interval_bar=_interval_bar)


def render(request: Request, template: str, data: dict[str, Any], nav: str, title: str, status: int = 200) -> Response:
    context = {"data": data, "nav": nav, "title": title, "games": registry.game_ids()}
    return TEMPLATES.TemplateResponse(request, template, context, status_code=status)


def leaderboard_page(request: Request) -> Response:
    data = api.leaderboard_data(request)
    shown = [row["bot"] for row in data["rows"][:views.TOP_BOTS]]  # the chart follows the table's versions
    history = views.rating_history(api.store(request), data["ruleset"], shown, rated=True) if shown else None
    context = {**data, "history": history, "all_games": views.games(api.store(request)),
               "scale": _scale(data["elo_range"])}
    return render(request, "leaderboard.html", context, "leaderboard", f"{_game_name(data['game'])} leaderboard")


def _scale(elo_range: list[float] | None) -> tuple[float, float]:
    """The Elo range the interval bars are drawn on: every finite interval of the table fits, plus
    a margin (the same on every page of it)."""
    if not elo_range:
        return 0.0, 1.0
    lo, hi = elo_range
    margin = max(10.0, 0.05 * (hi - lo))
    return lo - margin, hi + margin


def head_to_head_page(request: Request) -> Response:
    query = request.query_params
    game_id, ruleset = views.pick_ruleset(api.store(request), api.params.game(query.get("game")), query.get("ruleset"))
    # the bots to choose from: every rated version (compare v1 with v2), the leaderboard's order, in a
    # list while they fit one; beyond, a name to type with the top of the leaderboard as suggestions
    rated = api.store(request).leaderboard(ruleset, limit=BOT_CHOICES + 1) if ruleset else []
    board = {"ruleset": ruleset, "rows": [{"bot": row.entrant} for row in rated[:BOT_CHOICES]],
             "more": len(rated) > BOT_CHOICES}
    data = api.head_to_head_data(request) if query.get("a") and query.get("b") else None
    context = {"board": board, "pair": data, "a": query.get("a"), "b": query.get("b"),
               "rulesets": views.dq.rulesets(api.store(request))}
    return render(request, "head_to_head.html", context, "h2h", "Head to head")


def tournaments_page(request: Request) -> Response:
    return render(request, "tournaments.html", api.tournaments_data(request), "tournaments", "Tournaments")


def tournament_page(request: Request) -> Response:
    data = api.tournament_data(request)
    return render(request, "tournament.html", data, "tournaments", f"Tournament {data['id']}")


def ladder_page(request: Request) -> Response:
    return render(request, "ladder.html", api.ladder_data(request), "ladder", "Ladder")


def live_page(request: Request) -> Response:
    """A running match followed live; the page fetches its positions (static/app.js LiveViewer)."""
    info = api.tournament_info(request)
    text = request.path_params["index"]
    if not text.isdigit() or (int(text) >= info.total_matches and info.kind != "ladder"):  # a ladder appends
        raise BadRequest(f"tournament {info.id} has matches 0 to {info.total_matches - 1}, not {text!r}", 404)
    data = {"tournament": info.id, "tournament_name": info.name, "index": int(text), "game": info.game_id}
    return render(request, "live.html", data, "tournaments", f"Live: match {text} of tournament {info.id}")


def tests_page(request: Request) -> Response:
    return render(request, "tests.html", api.tests_data(request), "tests", "SPRT tests")


def test_page(request: Request) -> Response:
    data = api.test_data(request)
    return render(request, "test.html", data, "tests", data["name"] or f"SPRT test {data['id']}")


def matches_page(request: Request) -> Response:
    data = api.matches_data(request)
    # a choice of every bot while they fit a list, a name to type beyond (a field of thousands)
    names = views.dq.entrant_names(api.store(request), limit=BOT_CHOICES + 1)
    context = {**data, "bots": names if len(names) <= BOT_CHOICES else None, "terminations": api.params.TERMINATIONS}
    return render(request, "matches.html", context, "matches", "Matches")


def match_page(request: Request) -> Response:
    data = api.match_data(request)
    return render(request, "match.html", data, "matches", f"Match {data['key']}")


def bots_page(request: Request) -> Response:
    return render(request, "bots.html", api.bots_data(request), "bots", "Bots")


def bot_page(request: Request) -> Response:
    data = api.bot_data(request)
    # One chart, one line per ruleset: Elo is on the same scale in every game.
    series = [{**views.rating_history(api.store(request), r["ruleset"], [data["bot"]])["series"][0],
               "bot": r["ruleset"]} for r in data["ratings"]]
    return render(request, "bot.html", {**data, "history": {"series": series}}, "bots", data["bot"])


def error_page(request: Request, status: int, message: str) -> Response:
    try:
        return render(request, "error.html", {"status": status, "message": message}, "", f"Error {status}", status)
    except Exception:  # noqa: BLE001 - the error page itself must never fail
        return HTMLResponse(f"<h1>{status}</h1><p>{html.escape(message)}</p>", status_code=status)


def not_found(request: Request) -> Response:
    raise BadRequest(f"no such page: {request.url.path}", 404)


def routes() -> list[Route]:
    return [
        Route("/", leaderboard_page),
        Route("/leaderboard", leaderboard_page),
        Route("/head-to-head", head_to_head_page),
        Route("/ladder", ladder_page),
        Route("/tournaments", tournaments_page),
        Route("/tournaments/{id}", tournament_page),
        Route("/tournaments/{id}/live/{index}", live_page),
        Route("/tests", tests_page),
        Route("/tests/{id}", test_page),
        Route("/matches", matches_page),
        Route("/matches/{id}", match_page),
        Route("/bots", bots_page),
        Route("/bots/{name}", bot_page),
    ]
