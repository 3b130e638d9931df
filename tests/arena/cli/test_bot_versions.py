"""Bot versions end to end: submit the Node.js example as a folder, play, submit v2, play — two
versions with their own ratings, `NAME@1` still playable, and a tournament keeps the version it
was created with. Real `arena serve`, real launched Node processes, the real CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.cli import main
from arena.match.executor import LocalExecutor
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from tests.arena.cli.test_serve import env, served  # noqa: F401 - fixtures
from tests.arena.gateway_fixtures import (  # noqa: F401
    ROOT,
    SDK_BOT,
    bots,
    gateway,
    store,
    toy_registered,
    wait_connected,
)

NODE_EXAMPLE = ROOT / "bots" / "examples" / "node"
GAME = "gang_of_dice"  # two players and short: the cheapest game to play through the gateway


@pytest.fixture
def cli(env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        capsys: pytest.CaptureFixture[str]):  # noqa: ANN201
    """`arena ARGS` in this process; fails the test on a non-zero exit, returns stdout."""
    for name in ("ARENA_DB", "ARENA_HOST_KEY"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.setenv("ARENA_SUBMISSIONS", str(tmp_path / "submissions"))

    def run(*args: str, status: int = 0) -> str:
        code = main(list(args))
        captured = capsys.readouterr()
        assert code == status, captured.out + captured.err
        return captured.out if status == 0 else captured.err

    return run


def second_version(tmp_path: Path) -> Path:
    """The Node example with one more file: other files, so another tree hash."""
    folder = tmp_path / "node-v2"
    shutil.copytree(NODE_EXAMPLE, folder, symlinks=True)
    (folder / "CHANGES.md").write_text("v2: the same random play, resubmitted\n")
    return folder


def board(cli, *extra: str) -> dict[str, dict]:  # noqa: ANN001
    rows = json.loads(cli("leaderboard", "--game", GAME, "--json", *extra))
    return {row["bot"]: row for ruleset_rows in rows.values() for row in ruleset_rows}


def test_two_submitted_versions_play_and_are_rated_apart(cli, served: str, env: dict[str, str],  # noqa: ANN001, F811
                                                         tmp_path: Path) -> None:
    assert (NODE_EXAMPLE / "node_modules" / "@grpc" / "grpc-js").is_dir(), "run scripts/system-deps.sh (npm ci)"
    out = cli("bot", "submit", "nodebot", str(NODE_EXAMPLE), "--command", "node bot.js")
    assert "registered bot 'nodebot'" in out and "stored nodebot@1" in out
    run = ("tournament", "run", "--game", GAME, "--rounds", "2", "--local", "--quiet", "--gateway", served)
    cli(*run, "--bots", "nodebot,random")
    assert set(board(cli)) == {"nodebot@1", "random"}

    store = Store(env["ARENA_DB"])
    pinned = start_tournament(store, TournamentConfig(GAME, 2, ("nodebot", "random#pinned"), gateway=served))
    assert "stored nodebot@2" in cli("bot", "submit", "nodebot", str(second_version(tmp_path)),
                                     "--command", "node bot.js")
    cli(*run, "--bots", "nodebot,nodebot@1,random")  # v2 and v1 at one table: two processes

    latest, every = board(cli), board(cli, "--all-versions")
    assert set(latest) == {"nodebot@2", "random"}
    assert set(every) == {"nodebot@1", "nodebot@2", "random"}
    # 4 matches in the first tournament, 2 tables x 2 seatings x 2 rounds in the second
    assert every["nodebot@1"]["games"] == 4 + 8 and every["nodebot@2"]["games"] == 8, "each version its own rating"

    cli("tournament", "resume", str(pinned), "--local", "--quiet")  # created before v2: still plays v1
    assert {s.entrant for m in store.matches(tournament_id=pinned) for s in m.seats} == {"nodebot@1", "random#pinned"}
    versions = store.versions("nodebot")
    seats = {s.entrant: s for m in store.matches(tournament_id=pinned + 1) for s in m.seats}
    assert seats["nodebot@2"].kind == "submitted" and seats["nodebot@2"].version == f"sha256:{versions[1].sha256}"
    assert seats["nodebot@1"].version == f"sha256:{versions[0].sha256}" != seats["nodebot@2"].version
    assert all(s.termination == "normal" for m in store.matches(limit=100) for s in m.seats)

    listing = cli("bot", "versions", "nodebot")
    assert "nodebot@1" in listing and versions[0].sha256[:12] in listing and "nodebot@2" in listing
    assert f"{GAME}@" in listing.splitlines()[2], "v1's rating is listed beside it"


def test_a_connected_bot_declares_its_version_and_every_seat_records_it(
    gateway, store: Store, bots, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
) -> None:
    token = store.register_bot("declared")
    process = bots.python(SDK_BOT, "--address", gateway.address, "--token", token, "--version", "2.1\x07" + "x" * 100)
    wait_connected(gateway, "declared", process=process)
    config = TournamentConfig(GAME, 2, ("declared", "random"), gateway=gateway.address)
    play_tournament(store, start_tournament(store, config), LocalExecutor())
    seats = [s for m in store.matches() for s in m.seats if s.entrant == "declared"]
    assert len(seats) == 2 and {(s.kind, s.version) for s in seats} == {("connected", "2.1" + "x" * 61)}
    assert store.versions("declared") == [], "a declared version is a label, not a rated version"


def test_a_bot_that_declares_nothing_is_recorded_as_undeclared(gateway, store: Store, bots) -> None:  # noqa: ANN001
    token = store.register_bot("quiet")
    wait_connected(gateway, "quiet", process=bots.python(SDK_BOT, "--address", gateway.address, "--token", token))
    config = TournamentConfig(GAME, 2, ("quiet", "random"), gateway=gateway.address)
    play_tournament(store, start_tournament(store, config), LocalExecutor())
    assert {s.version for m in store.matches() for s in m.seats if s.entrant == "quiet"} == {"undeclared"}


@pytest.mark.parametrize(("args", "message"), [
    (["play", GAME, "--bots", "tiny@7,random"], "bot 'tiny' has no version 7; its versions: tiny@1"),
    (["play", GAME, "--bots", "tiny@x,random"], "bad version in 'tiny@x': write NAME@N"),
    (["tournament", "run", "--game", GAME, "--bots", "tiny@2,random", "--local"], "bot 'tiny' has no version 2"),
    (["tournament", "run", "--game", GAME, "--bots", "ghost@1,random", "--local"], "unknown bot 'ghost@1'"),
    (["bot", "submit", "random", "{folder}", "--command", "x"], "'random' is the name of a built-in bot"),
    (["bot", "submit", "a@b", "{folder}", "--command", "x"], "bad bot name 'a@b'"),
    (["bot", "submit", "tiny", "{folder}", "--command", " "], "--command is empty"),
    (["bot", "submit", "tiny", "{folder}/nope.zip", "--command", "x"], "nope.zip does not exist"),
    (["bot", "versions", "ghost"], "no bot named 'ghost' is registered; registered bots: tiny"),
    (["play", GAME, "--bots", "ismcts:foo,random"], "bad bot parameter 'foo' in 'ismcts:foo'"),
    (["tournament", "run", "--game", GAME, "--bots", "ismcts:foo,random", "--local"], "bad bot parameter 'foo'"),
    (["tournament", "run", "--game", GAME, "--bots", "tiny,tiny@1", "--local"], "entrant 'tiny@1' is listed twice"),
])
def test_bad_versions_and_submissions_are_one_line_errors(cli, tmp_path: Path, args: list[str],  # noqa: ANN001
                                                          message: str) -> None:
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "bot.sh").write_text("exit 0\n")
    cli("bot", "submit", "tiny", str(folder), "--command", "sh bot.sh")
    err = cli(*[a.replace("{folder}", str(folder)) for a in args], status=2)
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert [v.entrant for v in Store().versions("tiny")] == ["tiny@1"], "a refused submission stores nothing"


def test_a_gauntlet_of_a_bots_latest_version_names_it_either_way(cli, tmp_path: Path) -> None:  # noqa: ANN001
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "bot.sh").write_text("exit 0\n")
    cli("bot", "submit", "tiny", str(folder), "--command", "sh bot.sh")
    store = Store()
    for challenger, field in (("tiny", "tiny@1"), ("tiny@1", "tiny")):
        config = TournamentConfig(GAME, 2, (field, "random"), kind="gauntlet", challenger=challenger)
        info = store.tournament(start_tournament(store, config))
        assert info is not None
        assert (info.config["challenger"], info.config["entrants"]) == ("tiny@1", ["tiny@1", "random"])


def test_a_submission_with_the_same_files_is_a_new_version_that_shares_them(cli, tmp_path: Path) -> None:  # noqa: ANN001
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "bot.sh").write_text("exit 0\n")
    cli("bot", "submit", "tiny", str(folder), "--command", "sh bot.sh")
    assert "stored tiny@2" in cli("bot", "submit", "tiny", str(folder), "--command", "sh bot.sh --fast")
    first, second = Store().versions("tiny")
    assert first.files == second.files and first.sha256 == second.sha256 and second.command == "sh bot.sh --fast"
    assert json.loads(cli("bot", "versions", "tiny", "--json"))[1]["entrant"] == "tiny@2"
    assert "plays tiny@2  launched by: sh bot.sh --fast" in cli("bot", "list")
