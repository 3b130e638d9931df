"""The README's main job shows the ladder: in `arena demo`, ismcts is rated above the heuristic.

Slow: for each game it plays the demo's tournament as a newcomer does (`arena demo --games GAME`:
the demo's entrants, budgets, rounds and seed, on a local Ray) and reads the leaderboard it leaves
in the database.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.cli.demo import demo_spec
from arena.store import Store
from engine import registry


@pytest.mark.slow
@pytest.mark.parametrize("game_id", registry.game_ids())
def test_the_demo_rates_ismcts_above_the_heuristic(game_id: str, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'demo.db'}"
    assert main(["demo", "--games", game_id, "--db", url, "--quiet"]) == 0
    store = Store(url)
    [info] = store.tournaments()
    elo = {row.entrant: row.elo for row in store.leaderboard(info.ruleset)}
    assert elo[demo_spec(game_id, "ismcts")] > elo["heuristic"], elo
