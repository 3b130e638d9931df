"""`arena author ...` and `arena bot assign`: keys printed once and kept only as hashes, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from arena.cli import main
from arena.store import Store, hash_token


@pytest.fixture
def arena(tmp_path: Path, capsys: pytest.CaptureFixture[str]):  # noqa: ANN201
    url = f"sqlite:///{tmp_path / 'arena.db'}"

    def run(*args: str, status: int = 0) -> str:
        code = main([*args, "--db", url])
        captured = capsys.readouterr()
        assert code == status, captured.out + captured.err
        return captured.out if status == 0 else captured.err

    run.store = lambda: Store(url)  # type: ignore[attr-defined]
    return run


def key_in(out: str) -> str:
    (key,) = [line for line in out.splitlines() if line.startswith("arena_author_")]
    return key


def test_an_author_is_added_with_a_key_shown_once_and_kept_as_a_hash(arena) -> None:  # noqa: ANN001
    key = key_in(arena("author", "add", "alice"))
    store = arena.store()
    with store.engine.connect() as connection:
        rows = list(connection.execute(text("SELECT name, key_hash FROM author")))
    assert rows == [("alice", hash_token(key))], "only the key's hash is stored"
    assert store.author_for_key(key).name == "alice"
    assert "alice" in arena("author", "list") and "0 bot(s)" in arena("author", "list")
    new = key_in(arena("author", "rotate", "alice"))
    assert store.author_for_key(key) is None and store.author_for_key(new).name == "alice"
    assert "disabled author 'alice'" in arena("author", "disable", "alice")
    assert store.author("alice").disabled and "(disabled)" in arena("author", "list")
    assert arena("author", "disable", "alice", status=2) == "arena: error: author 'alice' is already disabled\n"
    arena("author", "enable", "alice")
    assert not store.author("alice").disabled


def test_bots_are_the_operators_until_assigned_and_again_when_their_author_goes(arena) -> None:  # noqa: ANN001
    arena("author", "add", "alice")
    arena("bot", "register", "alpha")
    store = arena.store()
    assert store.bot_author("alpha") is None
    assert arena("bot", "assign", "alpha", "alice") == "bot 'alpha' is now author 'alice''s\n"
    assert store.bot_author("alpha") == "alice" and [b.name for b in store.author_bots("alice")] == ["alpha"]
    assert "1 bot(s)" in arena("author", "list")
    assert "their 1 bot(s) are now the operator's" in arena("author", "remove", "alice")
    assert store.bot_author("alpha") is None and store.authors() == []


@pytest.mark.parametrize("args, says", [
    (("author", "add", "9lives"), "bad author name '9lives'"),
    (("author", "rotate", "nobody"), "no author is named 'nobody'"),
    (("bot", "assign", "ghost", "-"), "no registered bot is named 'ghost'"),
    (("bot", "assign", "alpha", "nobody"), "no author is named 'nobody'"),
])
def test_bad_input_is_one_line(arena, args: tuple[str, ...], says: str) -> None:  # noqa: ANN001
    arena("bot", "register", "alpha")
    err = arena(*args, status=2)
    assert err.startswith("arena: error: ") and says in err and err.count("\n") == 1
    arena("author", "add", "alice")
    assert arena("author", "add", "alice", status=2).startswith("arena: error: an author named 'alice' already exists")
