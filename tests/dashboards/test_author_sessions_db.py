"""Signed-in sessions in the database (dashboards/author_sessions.py over arena/store/author_sessions.py):
a restart signs nobody out, two dashboards on one database share a session, the table holds neither
a session id nor a key nor a bot token in clear, and a secret that no longer opens a row ends that
session cleanly. Real apps over a real gateway's authors' service (tests/dashboards/author_fixtures.py)."""

from __future__ import annotations

import hashlib
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from arena.store import Store
from dashboards import author_sessions
from dashboards.app import create_app
from dashboards.author_sessions import COOKIE, SEEN_EVERY_S, Sessions, session_secret
from dashboards.authors import AuthorPages
from tests.arena.postgres_server import postgres_server, store_on_both  # noqa: F401 - fixtures
from tests.dashboards.author_fixtures import *  # noqa: F403 - the fixtures
from tests.dashboards.author_fixtures import AuthorArena

TOKEN = re.compile(r"arena_(?!author)[A-Za-z0-9_-]{32}")  # a bot token (an author key says so)


def another_dashboard(arena: AuthorArena, sessions: Sessions | None = None) -> Any:
    """A second dashboard process on the same database (a restart, or a sibling behind a proxy)."""
    pages = AuthorPages(arena.app.state.authors.client, sessions=sessions)
    return create_app(Store(arena.store.url, reader=True), pages)


def carrying(app: Any, cookie: str) -> TestClient:
    client = TestClient(app, follow_redirects=False)
    client.cookies.set(COOKIE, cookie)
    return client


def rows(store: Store) -> list[dict[str, Any]]:
    with store.engine.connect() as connection:
        return [dict(row._mapping) for row in connection.execute(text("SELECT * FROM author_session"))]


def test_a_session_survives_a_restart_and_is_shared_by_two_dashboards(author_arena: AuthorArena) -> None:
    first = author_arena.client()
    csrf = author_arena.sign_in(first, "alice")
    cookie = first.cookies[COOKIE]

    restarted = carrying(another_dashboard(author_arena), cookie)
    mine = restarted.get("/my")
    assert mine.status_code == 200 and "alice" in mine.text, "a restart signs nobody out"

    sibling = carrying(another_dashboard(author_arena), cookie)
    registered = sibling.post("/my/register", data={"csrf": csrf, "bot": "dialer"})
    assert registered.status_code == 303, registered.text[:400]
    page = first.get("/my/bots/dialer")  # the first dashboard shows what the sibling left to say, once
    assert page.status_code == 200 and "registered dialer" in page.text
    assert "registered dialer" not in restarted.get("/my/bots/dialer").text, "a notice is shown once, anywhere"
    assert restarted.get("/my/bots/dialer/recent").status_code == 200, "the bots listed by one serve the others"

    assert sibling.post("/signout", data={"csrf": csrf}).status_code == 303
    assert rows(author_arena.store) == []
    assert first.get("/my").headers["location"] == "/signin", "signed out on one: signed out on all"


def test_the_table_holds_no_session_id_no_key_and_no_token_in_clear(author_arena: AuthorArena) -> None:
    client = author_arena.client()
    csrf = author_arena.sign_in(client, "alice")
    client.post("/my/register", data={"csrf": csrf, "bot": "dialer"})  # its token waits in the notice
    cookie, key = client.cookies[COOKIE], author_arena.keys["alice"]
    [row] = rows(author_arena.store)
    assert row["id_hash"] == hashlib.sha256(cookie.encode()).hexdigest() and row["author"] == "alice"
    assert row["notice"] is not None
    token = TOKEN.search(client.get("/my/bots/dialer").text).group(0)  # the notice, opened by the page
    every_byte = b"|".join(value if isinstance(value, bytes) else str(value).encode() for value in row.values())
    for secret in (cookie, key, token, "registered dialer"):
        assert secret.encode() not in every_byte, secret[:12]


def test_a_secret_that_no_longer_opens_the_row_ends_the_session_cleanly(author_arena: AuthorArena) -> None:
    client = author_arena.client()
    author_arena.sign_in(client, "alice")
    cookie = client.cookies[COOKIE]
    rotated = carrying(another_dashboard(author_arena, Sessions(author_arena.store, secret="another secret")), cookie)
    answer = rotated.get("/my")
    assert answer.status_code == 303 and answer.headers["location"] == "/signin"
    assert rows(author_arena.store) == [], "the row it cannot open is deleted"
    assert client.get("/my").headers["location"] == "/signin"
    assert author_arena.sign_in(rotated, "alice"), "the author signs in again"


class Asking:  # a request carrying a session's cookie
    def __init__(self, sid: str) -> None:
        self.cookies = {COOKIE: sid}


def test_last_seen_is_written_at_most_once_a_minute_and_the_oldest_go_past_the_cap(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    sessions = Sessions(store, secret="s", clock=lambda: clock[0])
    session = sessions.start("alice", "arena_author_x")
    clock[0] += SEEN_EVERY_S - 1
    assert sessions.get(Asking(session.id)) is not None
    assert rows(store)[0]["seen"] == 1000.0, "within a minute of the last write: no write"
    clock[0] += 1
    assert sessions.get(Asking(session.id)) is not None
    assert rows(store)[0]["seen"] == 1000.0 + SEEN_EVERY_S
    clock[0] += SEEN_EVERY_S
    assert sessions.get(Asking(session.id), touch=False) is not None
    assert rows(store)[0]["seen"] == 1000.0 + SEEN_EVERY_S, "the bot page's polling is not activity"

    monkeypatch.setattr(author_sessions, "MAX_SESSIONS", 3)
    later = []
    for author in ("bob", "carol", "dave"):
        clock[0] += SEEN_EVERY_S
        later.append(sessions.start(author, f"arena_author_{author}"))
    assert len(sessions) == 3 and sessions.get(Asking(session.id)) is None, "the least recently seen went"
    assert all(sessions.get(Asking(s.id), touch=False) is not None for s in later)


def test_the_secret_file_is_made_once_for_its_owner_only_and_the_environment_wins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("ARENA_SESSION_SECRET", raising=False)
    made = session_secret()
    path = tmp_path / "arena" / "session.key"
    assert len(made) >= 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert session_secret() == made
    monkeypatch.setenv("ARENA_SESSION_SECRET", "from the environment")
    assert session_secret() == "from the environment"
