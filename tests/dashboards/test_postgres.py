"""The dashboard's queries on PostgreSQL: the same real tournaments, the same answers as SQLite."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from dashboards.app import create_app
from tests.arena.postgres_server import PostgresServer, postgres_server  # noqa: F401
from tests.dashboards.conftest import FAULT_REASON, Filled, fill

pytestmark = pytest.mark.postgres


def test_every_endpoint_answers_the_same_on_postgres(postgres_server: PostgresServer, filled: Filled) -> None:  # noqa: F811
    pg = fill(postgres_server.fresh_database())
    with TestClient(create_app(pg.store)) as on_pg, TestClient(create_app(filled.store)) as on_sqlite:
        for url in ("/api/games", "/api/leaderboard?game=lost_cities_rivals", "/api/leaderboard?game=riviera",
                    "/api/rating-history?game=lost_cities_rivals",
                    "/api/head-to-head?ruleset=lost_cities_rivals@1&a=heuristic&b=random",
                    "/api/matches?termination=any_fault", "/api/matches?bot=random%232&per_page=5&page=2",
                    "/api/bots", "/api/bots/slowpoke", f"/api/tournaments/{pg.lcr}", "/api/matches/3",
                    "/api/matches/3/frames/40?view=1"):
            mine, theirs = on_pg.get(url), on_sqlite.get(url)
            assert mine.status_code == theirs.status_code == 200, (url, mine.text)
            assert _comparable(mine.json()) == _comparable(theirs.json()), url
        assert on_pg.get("/api/bots/slowpoke").json()["faults"]["entries"][0]["reason"] == FAULT_REASON
        assert on_pg.get("/api/matches?page=9").status_code == 404


def _comparable(data: object) -> object:
    """The data without what differs between two databases filled alike: times and durations."""
    if isinstance(data, dict):
        return {k: _comparable(v) for k, v in data.items()
                if k not in ("last_played", "finished_at", "created_at", "first_seen", "duration_ms", "elapsed_ms")}
    if isinstance(data, list):
        return [_comparable(v) for v in data]
    return data
