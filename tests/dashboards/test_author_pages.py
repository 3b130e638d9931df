"""The author pages over plain HTTP, against a real gateway's authors' service: signing in and
out, uploading through the service, and the attacks, each refused and changing nothing — a
cross-site POST without the session's token, another author's pages, a cookie from before
sign-out, `<script>` in a command and a log, guessing keys."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.link.tls import is_loopback
from arena.store import Store
from arena.store.live import LiveMatch
from arena.tournament.schedule import TournamentConfig
from dashboards.app import create_app
from dashboards.author_client import AuthorsClient
from dashboards.author_sessions import COOKIE, IDLE_S, LIFETIME_S, Sessions
from dashboards.authors import AuthorPages, signin_allowed
from dashboards.screenshot import free_port
from tests.dashboards.author_fixtures import *  # noqa: F403 - the fixtures
from tests.dashboards.author_fixtures import CSRF, PYTHON_EXAMPLE, AuthorArena, dump, pack, store_match_with_logs

SCRIPT = "<script>document.title='pwned'</script>"


def upload(client, csrf: str, url: str, archive: bytes, command: str, name: str = "bot.tar.gz", **fields):  # noqa: ANN001, ANN201
    return client.post(url, data={"csrf": csrf, "command": command, **fields},
                       files={"archive": (name, archive, "application/gzip")})


def test_sign_in_upload_read_rotate_and_sign_out(author_arena: AuthorArena) -> None:
    client = author_arena.client()
    assert client.get("/my").headers["location"] == "/signin"
    form = client.get("/signin")
    assert form.status_code == 200 and 'type="password"' in form.text
    assert "arena_author" not in form.text.split("placeholder")[0]
    refused = client.post("/signin", data={"key": "arena_author_wrong", "csrf": CSRF.search(form.text).group(1)})
    assert refused.status_code == 401 and "unknown author key" in refused.text

    csrf = author_arena.sign_in(client, "alice")
    cookie = client.cookies.jar
    [session] = [c for c in cookie if c.name == "arena_session"]
    assert author_arena.keys["alice"] not in session.value and not session.secure
    stored = upload(client, csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 random_bot.py", bot="pybot")
    assert stored.status_code == 303 and stored.headers["location"] == "/my/bots/pybot", stored.text[:300]
    page = client.get("/my/bots/pybot")
    assert "stored pybot@1" in page.text and page.headers["cache-control"] == "no-store"
    token = page.text.split('id="token">')[1].split("<")[0]
    assert token and token not in client.get("/my/bots/pybot").text, "a token is shown once"
    assert author_arena.store.bot_by_token(token).name == "pybot"
    assert [v.entrant for v in author_arena.store.versions("pybot")] == ["pybot@1"]

    match = store_match_with_logs(author_arena.store, [("pybot", "pybot@1", "turn 1: rolled\n"),
                                                       ("x", "random", "")], "crash", "exit status 1")
    page = client.get("/my/bots/pybot")
    assert f'href="/my/bots/pybot/logs/{match}"' in page.text and "exit status 1" in page.text
    log = client.get(f"/my/bots/pybot/logs/{match}")
    assert log.status_code == 200 and "turn 1: rolled" in log.text and "exit status 1" in log.text
    recent = client.get("/my/bots/pybot/recent").json()
    assert recent["matches"][0]["seats"][0]["log"] == f"/my/bots/pybot/logs/{match}"

    rotated = client.post("/my/bots/pybot/token", data={"csrf": csrf})
    assert rotated.status_code == 303
    new_token = client.get("/my/bots/pybot").text.split('id="token">')[1].split("<")[0]
    assert new_token != token and author_arena.store.bot_by_token(token) is None
    assert client.post("/my/bots/pybot/state", data={"csrf": csrf, "disabled": "1"}).status_code == 303
    assert author_arena.store.bot("pybot").disabled and 'data-state="disabled"' in client.get("/my/bots/pybot").text
    assert client.post("/my/bots/pybot/state", data={"csrf": csrf, "disabled": "0"}).status_code == 303
    assert not author_arena.store.bot("pybot").disabled

    assert client.post("/signout", data={"csrf": csrf}).headers["location"] == "/signin"
    assert client.get("/my").headers["location"] == "/signin"


def test_the_session_cookie_is_httponly_samesite_expiring_and_secure_over_https(author_arena: AuthorArena) -> None:
    for https in (False, True):
        client = author_arena.client(https=https)
        form = client.get("/signin")
        answer = client.post("/signin",
                             data={"key": author_arena.keys["alice"], "csrf": CSRF.search(form.text).group(1)})
        header = next(v for k, v in answer.headers.multi_items()
                      if k == "set-cookie" and v.startswith("arena_session="))
        attributes = {part.strip().split("=")[0].lower() for part in header.split(";")}
        assert {"httponly", "max-age", "path"} <= attributes and "samesite=lax" in header.lower()
        assert ("secure" in attributes) == https, header


def test_a_post_without_the_sessions_token_is_refused_and_changes_nothing(author_arena: AuthorArena) -> None:
    client = author_arena.client()
    csrf = author_arena.sign_in(client, "alice")
    assert upload(client, csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 random_bot.py",
                  bot="pybot").status_code == 303
    before, tokens = dump(author_arena.store), author_arena.store.bot("pybot")
    for token in ({}, {"csrf": ""}, {"csrf": "forged"}, {"csrf": csrf[:-1]}):
        for url, data in [("/my/bots/pybot/token", {}), ("/my/bots/pybot/state", {"disabled": "1"}),
                          ("/my/register", {"bot": "other"}), ("/signout", {})]:
            refused = client.post(url, data={**data, **token}, headers={"origin": "https://evil.example"})
            assert refused.status_code == 403 and "did not come from your session" in refused.text, url
        refused = upload(client, token.get("csrf", ""), "/my/bots/pybot/upload", pack(PYTHON_EXAMPLE), "python3 x.py")
        assert refused.status_code == 403
    assert dump(author_arena.store) == before and author_arena.store.bot("pybot") == tokens
    assert client.get("/my").status_code == 200, "the session outlived the forged sign-out"
    forged = client.post("/signin", data={"key": author_arena.keys["mallory"], "csrf": "forged"})
    assert forged.status_code == 403, "a sign-in from another site (login CSRF) is refused"


def test_another_authors_bot_is_no_such_page_everywhere(author_arena: AuthorArena) -> None:
    mallory, alice = author_arena.client(), author_arena.client()
    m_csrf = author_arena.sign_in(mallory, "mallory")
    assert upload(mallory, m_csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 random_bot.py",
                  bot="mbot").status_code == 303
    author_arena.store.register_bot("house")  # the operator's
    match = store_match_with_logs(author_arena.store, [("mbot", "mbot@1", "MALLORY-SECRET\n"), ("x", "random", "")])
    csrf = author_arena.sign_in(alice, "alice")
    before = dump(author_arena.store)

    def answers(name: str) -> list[tuple[int, str]]:
        gets = [f"/my/bots/{name}", f"/my/bots/{name}/upload", f"/my/bots/{name}/logs/{match}",
                f"/my/bots/{name}/recent"]
        posts = [(f"/my/bots/{name}/token", {}), (f"/my/bots/{name}/state", {"disabled": "1"})]
        out = [(r.status_code, r.text.replace(name, "NAME")) for r in map(alice.get, gets)]
        out += [(r.status_code, r.text.replace(name, "NAME"))
                for r in (alice.post(u, data={**d, "csrf": csrf}) for u, d in posts)]
        sent = upload(alice, csrf, f"/my/bots/{name}/upload", pack(PYTHON_EXAMPLE), "python3 random_bot.py")
        return [*out, (sent.status_code, sent.text.replace(name, "NAME"))]

    unknown = answers("nosuchbot")
    assert [status for status, _ in unknown] == [404] * 7, unknown
    for name in ("mbot", "house"):
        seen = answers(name)
        assert seen == unknown, f"{name}: the answers differ from an unknown bot's"
        assert all("MALLORY-SECRET" not in text and "not yours" not in text for _, text in seen)
    assert dump(author_arena.store) == before
    assert "mbot" not in alice.get("/my").text


def test_a_cookie_from_before_sign_out_is_worth_nothing(author_arena: AuthorArena) -> None:
    client = author_arena.client()
    csrf = author_arena.sign_in(client, "alice")
    assert upload(client, csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 random_bot.py",
                  bot="pybot").status_code == 303
    old = client.cookies.get("arena_session")
    assert client.post("/signout", data={"csrf": csrf}).status_code == 303
    replay = author_arena.client()
    replay.cookies.set("arena_session", old)
    before = dump(author_arena.store)
    assert replay.get("/my").headers["location"] == "/signin"
    assert replay.get("/my/bots/pybot/recent").status_code == 401
    for url, data in [("/my/bots/pybot/token", {}), ("/my/bots/pybot/state", {"disabled": "1"})]:
        refused = replay.post(url, data={**data, "csrf": csrf})
        assert refused.status_code == 401 and "nothing was done" in refused.text
    assert dump(author_arena.store) == before


def test_script_in_a_command_a_log_and_a_name_is_shown_as_text(author_arena: AuthorArena) -> None:
    client = author_arena.client()
    csrf = author_arena.sign_in(client, "alice")
    command = f"python3 random_bot.py {SCRIPT}"
    assert upload(client, csrf, "/my/new", pack(PYTHON_EXAMPLE), command, bot="pybot").status_code == 303
    match = store_match_with_logs(author_arena.store, [("pybot", "pybot@1", f"{SCRIPT}\n"), ("x", "random", "")],
                                  "crash", f"crashed: {SCRIPT}")
    refused = upload(client, csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 x.py", bot=SCRIPT)
    assert refused.status_code == 400 and "bad bot name" in refused.text
    assert "<script>document" not in client.get("/my").text
    pages = [client.get("/my/bots/pybot"), client.get(f"/my/bots/pybot/logs/{match}"), refused]
    for page in pages:
        assert "<script>document" not in page.text and "&lt;script&gt;document" in page.text, page.url
    assert client.get("/my/bots/pybot/recent").json()["matches"][0]["seats"][0]["reason"] == f"crashed: {SCRIPT}"


def test_guessed_keys_are_limited_per_address_and_author_and_never_reach_the_gateway(
        author_arena: AuthorArena) -> None:
    """A stranger's guesses at alice lock alice out at that address, not another author behind it."""
    guesser = author_arena.client()
    token = CSRF.search(guesser.get("/signin").text).group(1)
    for n in range(10):
        assert guesser.post("/signin", data={"key": f"arena_author_alice:guess{n}", "csrf": token}).status_code == 401
    late = guesser.post("/signin", data={"key": author_arena.keys["alice"], "csrf": token})
    assert late.status_code == 429
    assert "too many failed sign-ins (10 failed keys for author &#39;alice&#39;" in late.text
    other = [name for name in author_arena.keys if name != "alice"][0]
    assert guesser.post("/signin", data={"key": author_arena.keys[other], "csrf": token}).status_code == 303, \
        "another author behind the same address signs in"
    guesser = author_arena.client()  # the same address, no session
    token = CSRF.search(guesser.get("/signin").text).group(1)
    for n in range(10):  # keys that name no author count apart too
        assert guesser.post("/signin", data={"key": f"arena_author_guess{n}", "csrf": token}).status_code == 401
    assert guesser.post("/signin", data={"key": "arena_author_guess", "csrf": token}).status_code == 429
    # had the wrong keys reached the gateway, it would now refuse its peer (the dashboard) for a minute
    assert author_arena.app.state.authors.client.list_bots(author_arena.keys["alice"]) == []


def test_an_upload_the_service_refuses_shows_its_one_line_error_and_stores_nothing(author_arena: AuthorArena) -> None:
    client = author_arena.client()
    csrf = author_arena.sign_in(client, "alice")
    before = dump(author_arena.store)
    for archive, name, says in [(b"not a tar", "bot.tar.gz", "not a readable archive"),
                                (b"", "bot.tar.gz", "bot.tar.gz&#39; is empty"),
                                (pack(PYTHON_EXAMPLE), "bot.rar", "is not a .tar.gz, .tgz or .zip archive")]:
        refused = upload(client, csrf, "/my/new", archive, "python3 random_bot.py", name=name, bot="pybot")
        assert refused.status_code == 400 and says in refused.text and 'id="form-error"' in refused.text
        assert 'value="python3 random_bot.py"' in refused.text, "the form keeps what was typed"
    assert dump(author_arena.store) == before


@pytest.mark.parametrize("host, tls, proxy, insecure, allowed", [
    ("127.0.0.1", False, False, False, True), ("0.0.0.0", False, False, False, False),
    ("0.0.0.0", True, False, False, True), ("0.0.0.0", False, True, False, True), ("0.0.0.0", False, False, True, True),
])
def test_sign_in_is_off_where_a_key_would_cross_a_network_in_the_clear(host: str, tls: bool, proxy: bool,
                                                                       insecure: bool, allowed: bool) -> None:
    assert is_loopback("127.0.0.1")
    assert signin_allowed(host, tls, proxy, insecure) == allowed


def test_the_bot_page_shows_suspended_provisional_and_disabled_and_the_matches_playing_now(
        author_arena: AuthorArena) -> None:
    client = author_arena.client()
    csrf = author_arena.sign_in(client, "alice")
    for _ in range(2):
        assert upload(client, csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 random_bot.py",
                      bot="pybot").status_code == 303
    page = client.get("/my/bots/pybot").text
    assert 'data-state="validating"' in page and "waiting for its validation match" in page, "not seated yet"
    author_arena.store.mark_validated("pybot", 2)
    page = client.get("/my/bots/pybot").text
    assert 'data-state="provisional"' in page and "not rated yet" in page
    author_arena.store.suspend_version("pybot", 2, "its last 3 matches all ended in its own crash")
    page = client.get("/my/bots/pybot").text
    assert 'data-state="suspended"' in page and "suspended: its last 3 matches all ended in its own crash" in page
    assert 'data-state="suspended"' in client.get("/my").text
    author_arena.store.set_disabled("pybot", True)
    page = client.get("/my/bots/pybot").text
    assert 'data-state="disabled"' in page and 'id="enable"' in page

    config = TournamentConfig("gang_of_dice", 2, ("random", "pybot"))
    running = author_arena.store.create_tournament("gang_of_dice", "gang_of_dice@1", "round_robin", config.to_json(), 4)
    author_arena.store.put_live([LiveMatch(running, 3, 1, 0, 0, ["random", "pybot@2"], [])])
    recent = client.get("/my/bots/pybot/recent").json()
    assert recent["live"] == [{"url": f"/tournaments/{running}/live/3", "tournament": running, "index": 3,
                               "seats": ["random", "pybot@2"]}]
    assert f'href="/tournaments/{running}/live/3"' in client.get("/my/bots/pybot").text


def test_a_session_ends_an_hour_after_its_last_request_and_eight_after_sign_in(tmp_path: Path) -> None:
    clock = [1000.0]
    sessions = Sessions(Store(f"sqlite:///{tmp_path / 'arena.db'}"), secret="s", clock=lambda: clock[0])

    class Asking:  # a request carrying the session's cookie
        def __init__(self, sid: str) -> None:
            self.cookies = {COOKIE: sid}

    session = sessions.start("alice", "arena_author_x")
    for _ in range(7):  # active: each request moves the idle end on
        clock[0] += IDLE_S - 1
        assert sessions.get(Asking(session.id)).id == session.id
    clock[0] = session.started + LIFETIME_S
    assert sessions.get(Asking(session.id)) is None, "8 hours after sign-in, however active"
    other = sessions.start("bob", "arena_author_y")
    clock[0] += IDLE_S
    assert sessions.get(Asking(other.id)) is None, "an hour idle"
    assert sessions.get(Asking("forged")) is None


def test_a_body_too_large_or_of_unknown_size_is_refused_before_it_is_read(author_arena: AuthorArena) -> None:
    small = AuthorArena(author_arena.store, author_arena.gateway, author_arena.keys,
                        create_app(author_arena.store, AuthorPages(author_arena.app.state.authors.client,
                                                                   max_upload_bytes=100 * 1024)), author_arena.root)
    client = small.client()
    csrf = small.sign_in(client, "alice")
    before = dump(author_arena.store)
    big = upload(client, csrf, "/my/new", os.urandom(300 * 1024), "python3 x.py", bot="pybot")
    assert big.status_code == 413 and "larger than 0.0976562 MiB" in big.text, big.text[-600:]
    padded = client.post("/signin", data={"key": "x" * 100_000, "csrf": "x"})
    assert padded.status_code == 413
    chunked = client.post("/my/register", content=iter([b"csrf=", csrf.encode(), b"&bot=other"]),
                          headers={"content-type": "application/x-www-form-urlencoded"})
    assert chunked.status_code == 411
    assert dump(author_arena.store) == before


def test_without_author_pages_sign_in_says_it_is_off(author_arena: AuthorArena) -> None:
    client = TestClient(create_app(author_arena.store), follow_redirects=False)
    for url in ("/signin", "/my", "/my/bots/pybot"):
        answer = client.get(url)
        assert answer.status_code == 404 and "author sign-in is off on this dashboard" in answer.text, url
    answer = client.post("/signin", data={"key": author_arena.keys["alice"]})
    assert answer.status_code == 404 and "arena_session" not in answer.headers.get("set-cookie", "")


def test_a_key_the_operator_rotated_ends_the_session_and_a_gateway_away_is_one_line(author_arena: AuthorArena) -> None:
    client = author_arena.client()
    author_arena.sign_in(client, "alice")
    author_arena.store.rotate_author_key("alice")
    assert client.get("/my").headers["location"] == "/signin"
    assert client.get("/my/bots/pybot/recent").status_code == 401, "the session ended with the key"

    away = AuthorArena(author_arena.store, author_arena.gateway, author_arena.keys,
                       create_app(author_arena.store, AuthorPages(AuthorsClient(f"127.0.0.1:{free_port()}"))),
                       author_arena.root)
    client = away.client()
    form = client.get("/signin")
    answer = client.post("/signin", data={"key": author_arena.keys["mallory"], "csrf": CSRF.search(form.text).group(1)})
    assert answer.status_code == 503 and "cannot be reached now" in answer.text
    assert "arena_session" not in answer.headers.get("set-cookie", "")
