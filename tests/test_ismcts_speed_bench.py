"""bench/ismcts_speed.py: the positions it searches, its rows, and a bad --tree in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine import registry
from engine.core import NodeKind
from tests.bench_scripts import load_bench_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "ismcts_speed.py"


def load_bench():
    return load_bench_script("ismcts_speed")


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_positions_are_real_choices_of_one_seat_and_the_same_every_time():
    bench = load_bench()
    game = registry.make("riviera", 3)
    found = bench.positions(game, 5)
    assert len(found) == 5
    for state in found:
        assert state.kind is NodeKind.DECISION and len(state.acting_players()) == 1
        assert len(state.legal_actions(state.acting_players()[0])) > 1
    assert bench.positions(game, 5) == found  # seeded: another engine searches the same positions


def test_the_script_prints_a_rate_per_game():
    done = run_bench("--games", "lost_cities_rivals,riviera", "--sims", "8", "--positions", "2",
                     "--repeat", "1")
    assert done.returncode == 0, done.stderr
    _, header, _, *rows = done.stdout.splitlines()
    assert "simulations/s now" in header
    cells = [row.strip("| ").split(" | ") for row in rows]
    assert [c[0] for c in cells] == ["lost_cities_rivals", "riviera"]
    assert all(float(c[2].replace(",", "")) > 0 for c in cells)


def test_a_tree_that_is_not_a_set_up_checkout_is_a_one_line_error(tmp_path):
    done = run_bench("--games", "riga", "--tree", str(tmp_path))
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.strip().count("\n") == 0 and "is not a checkout" in done.stderr


def test_an_unknown_game_is_a_one_line_error_naming_the_games():
    done = run_bench("--games", "chess")
    assert done.returncode != 0 and done.stderr.strip().count("\n") == 0
    assert "unknown game 'chess'" in done.stderr and "riga" in done.stderr
