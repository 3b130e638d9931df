"""`arena tournament` and `arena leaderboard` through the real entry point."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.store import Store
from engine import registry


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=300)


def quick_game() -> str:
    games = registry.game_ids()
    if not games:
        pytest.skip("no game registered yet")
    return "gang_of_dice" if "gang_of_dice" in games else games[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "chess", "--bots", "random#1,random#2"], "unknown game 'chess'; valid games: "),
        (["--game", "{game}", "--bots", "random,genius"], "unknown bot 'genius' in 'genius'; built-in bots: "),
        (["--game", "{game}", "--bots", "random#1,random#2", "--players-per-match", "3"],
         "3 players per match needs at least 3 bots, but 2 were given"),
        (["--game", "{game}", "--bots", "random#1,random#2", "--players-per-match", "40"], "is played by"),
        (["--game", "{game}", "--bots", "random,random"], "entrant 'random' is listed twice"),
        (["--game", "{game}", "--bots", "random#1,random#2", "--db", "mysql+nodriver://x/y"], "cannot open database"),
        (["--game", "{game}", "--bots", "random#1,random#2", "--ray-address", "not an address"], "bad --ray-address"),
        (["--game", "{game}", "--bots", "random#1,random#2", "--ray-address", "127.0.0.1:1"], "no Ray head answers"),
        (["--game", "{game}", "--bots", "random#1,random#2", "--rounds", "0"], "rounds must be at least 1"),
    ],
)
def test_bad_configs_fail_with_one_line_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    game = quick_game()
    db = ["--db", f"sqlite:///{tmp_path / 'arena.db'}"] if "--db" not in args else []
    status = main(["tournament", "run", *[a.replace("{game}", game) for a in args], *db])  # in-process: quick
    stderr = capsys.readouterr().err
    assert status == 2, stderr
    assert message in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    if db and (tmp_path / "arena.db").exists():
        assert Store(db[1]).tournaments() == [], "nothing was stored"


def test_run_list_show_and_leaderboard(tmp_path: Path) -> None:
    game = quick_game()
    db = ["--db", f"sqlite:///{tmp_path / 'arena.db'}"]
    run = arena("tournament", "run", "--game", game, "--bots", "random#1,random#2,random#3", "--rounds", "2",
                "--seed", "4", "--local", *db)
    assert run.returncode == 0, run.stderr
    assert "tournament 1 " in run.stdout and "finished: 12 matches, 0 aborted" in run.stdout
    assert "12/12 matches (100%)" in run.stderr and "matches/s" in run.stderr and "ETA" in run.stderr
    assert "Elo" in run.stdout and "random#3" in run.stdout
    listing = arena("tournament", "list", *db)
    assert listing.returncode == 0 and "finished" in listing.stdout and "12/12" in listing.stdout
    shown = json.loads(arena("tournament", "show", "1", "--json", *db).stdout)
    assert shown["status"] == "finished" and shown["done_matches"] == 12
    assert sorted(s["bot"] for s in shown["standings"]) == ["random#1", "random#2", "random#3"]
    assert "standings in this tournament" in arena("tournament", "show", "1", *db).stdout
    board = json.loads(arena("leaderboard", "--game", game, "--json", *db).stdout)
    [(ruleset, rows)] = board.items()
    assert ruleset.startswith(f"{game}@")
    assert [r["place"] for r in rows] == [1, 2, 3] and sum(r["games"] for r in rows) == 24
    assert rows[0]["elo"] >= rows[1]["elo"] >= rows[2]["elo"]
    text = arena("leaderboard", "--game", game, *db).stdout
    assert "95% interval" in text and "win%" in text and "strikes" in text and "forfeits" in text
    assert "strikes: faulty decisions" in text and "forfeits: matches" in text, "the table says what they count"
    assert all(r["strikes"] == 0 and r["forfeits"] == 0 for r in rows)
    for row in rows:
        [line] = [line for line in text.splitlines() if f" {row['bot']} " in line]
        low, high = map(float, re.search(r"(\d+) – (\d+)", line).groups())  # type: ignore[union-attr]
        assert (low, high) == (pytest.approx(row["low95"], abs=1), pytest.approx(row["high95"], abs=1))
    missing = arena("tournament", "show", "9", *db)
    assert missing.returncode == 2 and "no tournament 9" in missing.stderr


def test_demo_rates_every_built_in_bot_that_plays_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli.demo import demo_entrants
    from bots import bot_names

    game = quick_game()
    entrants = demo_entrants(game, registry.info(game).min_players)
    assert {e.split(":")[0].split("#")[0] for e in entrants} <= set(bot_names())
    assert len(entrants) >= 4 and len(set(entrants)) == len(entrants)
    status = main(["demo", "--games", game, "--rounds", "1", "--local", "--quiet",
                   "--db", f"sqlite:///{tmp_path / 'demo.db'}"])
    out = capsys.readouterr().out
    assert status == 0
    assert f"{game}@" in out and "Elo" in out
    assert all(entrant in out for entrant in entrants), out


def test_the_table_after_a_run_counts_the_matches_its_summary_counts(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Another writer's matches of the same ruleset (an earlier or a concurrent tournament) are not
    in the table printed after a run: its header and its games add up to the run's summary."""
    game = quick_game()
    db = ["--db", f"sqlite:///{tmp_path / 'arena.db'}"]
    run = ["tournament", "run", "--game", game, "--players-per-match", "2", "--local", "--quiet", *db]
    assert main([*run, "--bots", "random#1,random#2,random#3", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main([*run, "--bots", "random#1,random#2,random#4", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "tournament 2 " in out and "finished: 6 matches, 0 aborted" in out
    assert ": 3 bots, 6 rated matches" in out, out
    games = {bot: int(line.split()[6]) for line in out.splitlines()
             for bot in ("random#1", "random#2", "random#3", "random#4") if f" {bot} " in line}
    assert games == {"random#1": 4, "random#2": 4, "random#4": 4}, out
    assert "arena leaderboard --ruleset" in out, "it says where the ruleset's table of every match is"


def test_a_tournament_of_a_submitted_bot_starts_its_own_gateway_when_none_runs(tmp_path: Path) -> None:
    """Without `arena serve`, registered entrants still play (sandboxed) through a gateway the
    tournament starts in its own process, and the command ends without a teardown traceback."""
    import socket

    with socket.socket() as probe:  # a free port where no gateway runs
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    example = Path(__file__).resolve().parents[3] / "bots" / "examples" / "python"
    submitted = arena("bot", "submit", "pybot", str(example), "--command", "python3 random_bot.py",
                      "--db", db, "--submissions", str(tmp_path / "submissions"))
    assert submitted.returncode == 0, submitted.stderr
    run = arena("tournament", "run", "--game", "riviera", "--players-per-match", "3", "--local",
                "--bots", "pybot,random#1,random#2", "--rounds", "1", "--seed", "5", "--quiet",
                "--gateway", f"127.0.0.1:{port}", "--db", db)
    assert run.returncode == 0, run.stderr
    assert f"no gateway was running at 127.0.0.1:{port}; started one in this process" in run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert "3 matches, 0 aborted" in run.stdout
    assert Store(db).leaderboard("riviera@1")
