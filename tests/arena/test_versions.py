"""Bot versions end to end: submit the Node.js example as a folder, play, submit v2, play — two
versions with their own ratings, `NAME@1` still playable, and a tournament keeps the version it
was created with. Real `arena serve`, real launched Node processes, the real CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.cli import main
from arena.driver import start_tournament
from arena.store import Store
from arena.tournament import TournamentConfig
from tests.arena.gateway_fixtures import ROOT
from tests.arena.test_gateway_cli import env, served  # noqa: F401 - fixtures

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
    assert "stored nodebot@2" in cli("bot", "submit", "nodebot", str(second_version(tmp_path)), "--command", "node bot.js")
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
