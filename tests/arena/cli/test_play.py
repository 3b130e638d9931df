"""`arena play` through the real console entry point: results, JSON, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine import registry


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_play_json_reports_a_finished_match(game_id: str) -> None:
    info = registry.info(game_id)
    result = arena("play", game_id, "--players", str(info.max_players), "--seed", "7", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert len(data["seats"]) == info.max_players
    assert data["decisions"] > 0
    assert data["winners"] == [s["seat"] for s in data["seats"] if s["rank"] == 1]
    again = json.loads(arena("play", game_id, "--players", str(info.max_players), "--seed", "7", "--json").stdout)
    assert again == data, "the same seed plays the same match"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess"], "unknown game 'chess'; valid games: "),
        (["play", "{game}", "--players", "7"], "is played by"),
        (["play", "{game}", "--bots", "random,genius"], "unknown bot 'genius'; built-in bots: "),
        (["play", "{game}", "--option", "nonsense=1"], "has no option 'nonsense'; valid options:"),
        (["play", "{game}", "--option", "nonsense"], "must be NAME=VALUE"),
        (["play", "{game}", "--bots", "random,ismcts:sims=0"],
         "bot 'ismcts:sims=0': ismcts parameter sims=0 must be a whole number of simulations >= 1"),
        (["play", "{game}", "--bots", "random,heuristic:level=2"], "bot 'heuristic:level=2': "),
    ],
)
def test_bad_arguments_give_one_line_errors(args: list[str], message: str) -> None:
    game_id = (registry.game_ids() or ["chess"])[0]
    if "{game}" in args and not registry.game_ids():
        pytest.skip("no game registered yet")
    result = arena(*[a.replace("{game}", game_id) for a in args])
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_an_unknown_bot_does_not_create_a_database_to_look_itself_up(tmp_path: object) -> None:
    missing = tmp_path / "none.db"  # type: ignore[operator]
    game_id = registry.game_ids()[0]
    result = arena("play", game_id, "--bots", "random,genius", "--db", f"sqlite:///{missing}")
    assert result.returncode == 2
    assert ("unknown bot 'genius'; built-in bots: heuristic, ismcts, random; "
            f"registered bots: none (no database at {missing}") in result.stderr
    assert not missing.exists()
