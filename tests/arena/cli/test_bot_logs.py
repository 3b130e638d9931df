"""`arena bot logs NAME --match ID`: each seat's log with a header line; one line when there is none;
a one-line error for a match that is not stored."""

from __future__ import annotations

import pytest

from arena.cli import main
from arena.store import Store
from tests.arena.store.test_bot_logs import HAND, logged, match_id_of
from tests.arena.store.test_store import new_tournament, result

TEXT = HAND + "nul \ufffd byte"  # seat 0's log as stored (its NUL replaced)


@pytest.fixture
def stored(tmp_path) -> tuple[str, int, int]:  # noqa: ANN001
    """A database with a logged match (logger on seats 0 and 2) and one without logs."""
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    tid = new_tournament(store)
    store.record_matches([logged(tid, 0), result(tid, 1, ("logger@2", "random"))])
    return store.url, match_id_of(store, tid, 0), match_id_of(store, tid, 1)


def logs(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["bot", "logs", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_prints_each_seats_header_then_its_text(stored: tuple[str, int, int], capsys) -> None:  # noqa: ANN001
    url, logged_id, _ = stored
    code, out, _ = logs(capsys, "logger", "--match", str(logged_id), "--db", url)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (f"== match {logged_id}, seat 0, logger@2, termination crash: launched bot 'logger@2' exited "
                        f"with status 3 (the last {len(TEXT.encode())} bytes it printed while the match was open)")
    assert lines[1:3] == [HAND.rstrip("\n"), "nul \ufffd byte"]
    assert lines[3].startswith(f"== match {logged_id}, seat 2, unversioned, termination normal (the last 0 bytes")
    assert lines[4:] == ["(no output)"]


@pytest.mark.parametrize(("bot", "why"), [
    ("nobody", "it did not play in it (its seats: logger@2, random)"),
    ("random", "it is a built-in bot, played inside the arena: only launched bots leave a log"),
    ("logger", "the arena did not launch it for this match (a bot that dials in keeps its own output), "
               "or the match was stored before bot logs were kept"),
])
def test_no_log_is_one_line_saying_why(stored: tuple[str, int, int], capsys, bot: str, why: str) -> None:  # noqa: ANN001
    url, _, plain_id = stored
    code, out, _ = logs(capsys, bot, "--match", str(plain_id), "--db", url)
    assert (code, out) == (0, f"no log kept for bot {bot} in match {plain_id}: {why}\n")


def test_a_match_that_is_not_stored_is_a_one_line_error(stored: tuple[str, int, int], capsys) -> None:  # noqa: ANN001
    url, _, _ = stored
    code, out, err = logs(capsys, "logger", "--match", "4242", "--db", url)
    assert (code, out) == (2, "")
    assert err == (f"arena: error: no stored match 4242 in {url}; a match's id is the one the dashboard shows "
                   "at /matches/ID\n")
    code, _, err = logs(capsys, "bad name!", "--match", "1", "--db", url)
    assert code == 2 and err.startswith("arena: error: bad bot name 'bad name!'") and err.count("\n") == 1
