"""The dashboard as a Starlette application: HTML pages and the JSON API behind them.

`create_app(store)` serves one database: it never runs or writes matches; the one thing it writes,
with author pages on, is the signed-in authors' sessions (dashboards/author_sessions.py). Pages and
API endpoints share the functions of dashboards/views.py, so `/api/leaderboard?game=riga` is the
data that `/leaderboard?game=riga` renders. A bad parameter is a 4xx with a one-line message:
JSON `{"error": ..., "status": ...}` under /api, an error page elsewhere.
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from arena.store import Store
from dashboards import api, authors, pages
from dashboards.author_client import ServiceError
from dashboards.params import BadRequest
from dashboards.replay import ReplayCache

HERE = Path(__file__).parent


def create_app(store: Store, author_pages: authors.AuthorPages | None = None) -> Starlette:
    """The dashboard for one database; with `author_pages`, authors may sign in (dashboards/authors.py)."""
    app = Starlette(
        routes=[
            *api.routes(),
            *pages.routes(),
            *authors.routes(),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ],
        exception_handlers={BadRequest: _bad_request, HTTPException: _http_error,
                            authors.SignIn: authors.sign_in_first, ServiceError: authors.service_error},
    )
    app.state.store = store
    if author_pages is not None:
        author_pages.bind(store)  # the signed-in sessions live in this database, shared by every dashboard
    app.state.authors = author_pages
    app.state.replays = ReplayCache()
    return app


def _bad_request(request: Request, error: Exception) -> Response:
    assert isinstance(error, BadRequest)
    return _error(request, error.status, error.message)


def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    message = "no such page" if error.status_code == 404 else str(error.detail)
    return _error(request, error.status_code, f"{message}: {request.url.path}")


def _error(request: Request, status: int, message: str) -> Response:
    if request.url.path.startswith("/api/") or request.url.path == "/api":
        return JSONResponse({"error": message, "status": status}, status_code=status)
    return pages.error_page(request, status, message)
