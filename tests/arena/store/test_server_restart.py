"""A PostgreSQL server restarted under a running store: the next call works (the pooled connections
the restart killed are replaced, not handed out), as a ladder, a gateway or a dashboard needs after
an outage (tests/arena/ladder/test_chaos_database.py causes one under a whole ladder)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.store import Store
from tests.arena.ladder.test_chaos_database import pg_ctl
from tests.arena.postgres_server import PostgresServer, running_postgres


@pytest.fixture
def postgres() -> Iterator[PostgresServer]:
    """A private server: this test restarts it (the session's shared one stays up)."""
    with running_postgres() as server:
        yield server


def test_the_first_call_after_a_restart_works(postgres: PostgresServer) -> None:
    store = Store(postgres.fresh_database())
    store.register_bot("before")
    assert [b.name for b in store.bots()] == ["before"]  # a pooled connection is open now
    pg_ctl(postgres, "stop", "-m", "fast")
    pg_ctl(postgres, "start")
    assert [b.name for b in store.bots()] == ["before"]
    store.register_bot("after")
    assert [b.name for b in store.bots()] == ["after", "before"]
