"""`arena-bot try` end to end: the kit's command from a fresh venv, a real gateway's authors' service,
and the try's real sandboxed bot against the anchors (arena/trial.py); nothing stored or rated."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.gateway.authoring import AuthorConfig, Trial, TrialMatch
from arena.gateway.server import GatewayThread
from arena.store import Store
from arena.trial import play_trial
from tests.arena.gateway_fixtures import FAULT_BOT, HOST_KEY
from tests.bots.test_author_cli import PYTHON_EXAMPLE, Remote
from tests.bots.test_sdk_kit import clean_env, kit_python  # noqa: F401 - the fresh venv's fixture

GAME = "gang_of_dice"


class HeldTrials:
    """play_trial, its first call held at its start until `release` is set (to see a second try refused
    meanwhile)."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        self.calls = 0

    def __call__(self, store: Store, trial: Trial) -> list[TrialMatch]:
        self.calls += 1
        if self.calls == 1:
            self.entered.set()
            assert self.release.wait(120), "the test never released the try"
        return play_trial(store, trial)


@pytest.fixture
def held() -> HeldTrials:
    return HeldTrials()


@pytest.fixture
def remote(kit_python: Path, tmp_path: Path, held: HeldTrials) -> Iterator[Remote]:  # noqa: F811
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    keys = {}
    for name in ("alice", "mallory"):
        keys[name] = tmp_path / f"{name}.key"
        keys[name].write_text(store.add_author(name) + "\n")
        keys[name].chmod(0o600)
    held.release.set()  # a test that holds the tries clears it
    config = AuthorConfig(submissions_root=tmp_path / "submissions", trial=held)
    with GatewayThread(store, host_key=HOST_KEY, author_config=config) as thread:
        yield Remote(store, store.url, thread.address, kit_python.parent / "arena-bot", keys)


def nothing_stored(remote: Remote, root: Path) -> None:
    assert remote.store.count_matches() == 0 and not remote.store.leaderboard(f"{GAME}@1"), "nothing played counts"
    assert not [p for p in root.iterdir() if not p.name.startswith(".")] if root.exists() else True, "no stored files"
    assert not [p for p in root.iterdir() if p.name.startswith(".try-")] if root.exists() else True, "tries cleaned up"


def test_a_good_bots_try_returns_its_results_and_stores_nothing(remote: Remote, tmp_path: Path) -> None:
    out = remote.run("try", "pybot", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py", "--game", GAME,
                     "--matches", "2")
    assert f"pybot: 2 unrated match(es) of {GAME} against the ladder's anchors (nothing stored)" in out, out
    assert "match 1 (0: pybot@0, 1: random; it sat at seat 0): rank " in out, out
    assert "match 2 (0: random, 1: pybot@0; it sat at seat 1): rank " in out, out
    assert out.count(", normal") == 2 and "fault:" not in out, out
    assert "connected to" in out, "its own log: the kit's line when it dialled in"
    assert remote.store.bot("pybot") is None, "a try registers nothing"
    nothing_stored(remote, tmp_path / "submissions")


def test_a_crashing_bots_try_returns_the_crash_and_its_log(remote: Remote, tmp_path: Path) -> None:
    remote.run("register", "crasher")
    key = str(remote.keys["alice"])
    done = subprocess.run([str(remote.arena_bot), "--server", remote.address, "--key-file", key, "try", "crasher",
                           str(FAULT_BOT.parent), "--command", f"python3 {FAULT_BOT.name} --mode crash", "--game", GAME,
                           "--matches", "1"], capture_output=True, text=True, env=clean_env(), timeout=300)
    out = done.stdout
    assert done.returncode == 1 and not done.stderr, "a fault of its own: exit status 1, the results on stdout"
    assert "fault: crash: launched bot 'crasher@0' exited with status 3" in out, out
    assert "fault bot: crashing on purpose" in out, "the bot's own output, from its log"
    assert not remote.store.versions("crasher"), "no version stored"
    nothing_stored(remote, tmp_path / "submissions")


def test_another_author_cannot_try_on_alices_bot_name(remote: Remote, tmp_path: Path) -> None:
    remote.run("register", "alpha")
    err = remote.run("try", "alpha", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py", "--game", GAME,
                     who="mallory", status=2)
    assert err.startswith("arena-bot: error: bot 'alpha' is not yours") and "PERMISSION_DENIED" in err, err
    assert err.count("\n") == 1
    nothing_stored(remote, tmp_path / "submissions")


@pytest.mark.parametrize("args, wanted", [
    (["--matches", "9"], "a try plays 1 to 4 matches, not 9"),
    (["--game", "chess"], "unknown game 'chess'; valid games: "),
])
def test_a_try_past_the_cap_or_of_an_unknown_game_is_one_line(remote: Remote, args: list[str], wanted: str) -> None:
    err = remote.run("try", "pybot", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py", "--game", GAME,
                     *args, status=2)
    assert wanted in err and "INVALID_ARGUMENT" in err and err.count("\n") == 1, err


def test_one_try_at_a_time_per_author(remote: Remote, held: HeldTrials) -> None:
    held.release.clear()
    command = [str(remote.arena_bot), "--server", remote.address, "--key-file", str(remote.keys["alice"]), "try",
               "pybot", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py", "--game", GAME, "--matches", "1"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
    try:
        assert held.entered.wait(120), "the first try never started"
        err = remote.run("try", "other", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py", "--game", GAME,
                         status=2)
        assert "one try at a time per author" in err and "RESOURCE_EXHAUSTED" in err, err
        remote.run("try", "mine", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py", "--game", GAME,
                   "--matches", "1", who="mallory")  # another author's try is not held up by alice's
    finally:
        held.release.set()
        out, err = first.communicate(timeout=300)
    assert first.returncode == 0 and "rank" in out, out + err
