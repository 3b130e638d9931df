"""The upload form's "try only": the archive played in a few unrated matches through the gateway's
TryVersion (a real sandboxed bot), the results, faults and its output shown to its author, nothing stored."""

from __future__ import annotations

from tests.arena.gateway_fixtures import FAULT_BOT
from tests.dashboards.author_fixtures import PYTHON_EXAMPLE, AuthorArena, author_arena, pack  # noqa: F401
from tests.dashboards.test_author_pages import upload

GAME = "gang_of_dice"


def test_try_only_shows_the_results_and_stores_nothing(author_arena: AuthorArena) -> None:  # noqa: F811
    client = author_arena.client()
    csrf = author_arena.sign_in(client, "alice")
    assert 'id="try_only"' in client.get("/my/new").text
    page = upload(client, csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 random_bot.py", bot="pybot",
                  try_only="1", game=GAME, matches="2")
    assert page.status_code == 200, page.text[:800]
    assert "Try of pybot" in page.text and f"2 unrated match(es) of {GAME}" in page.text
    assert page.text.count("data-try-match=") == 2 and "0: pybot@0, 1: random" in page.text
    assert "connected to" in page.text, "its own output"
    store = author_arena.store
    assert store.bot("pybot") is None and store.count_matches() == 0, "nothing registered, stored or rated"


def test_try_only_shows_a_crash_and_the_bots_output(author_arena: AuthorArena) -> None:  # noqa: F811
    client = author_arena.client()
    csrf = author_arena.sign_in(client, "alice")
    assert upload(client, csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 random_bot.py",
                  bot="crasher").status_code == 303
    page = upload(client, csrf, "/my/bots/crasher/upload", pack(FAULT_BOT.parent),
                  f"python3 {FAULT_BOT.name} --mode crash", try_only="1", game=GAME, matches="1")
    assert page.status_code == 200 and "pill-fault" in page.text, page.text[:800]
    assert "launched bot &#39;crasher@0&#39; exited with status 3" in page.text
    assert "fault bot: crashing on purpose" in page.text
    assert [v.number for v in author_arena.store.versions("crasher")] == [1], "the try stored no version"


def test_another_author_cannot_try_on_alices_bot(author_arena: AuthorArena) -> None:  # noqa: F811
    alice = author_arena.client()
    csrf = author_arena.sign_in(alice, "alice")
    assert upload(alice, csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 random_bot.py", bot="alpha").status_code == 303
    mallory = author_arena.client()
    csrf = author_arena.sign_in(mallory, "mallory")
    page = upload(mallory, csrf, "/my/new", pack(PYTHON_EXAMPLE), "python3 random_bot.py", bot="alpha",
                  try_only="1", game=GAME, matches="1")
    assert page.status_code == 404 and "connected to" not in page.text
    page = upload(mallory, csrf, "/my/bots/alpha/upload", pack(PYTHON_EXAMPLE), "python3 random_bot.py",
                  try_only="1", game=GAME, matches="1")
    assert page.status_code == 404
    assert author_arena.store.count_matches() == 0
