"""bench/engine_floor.py: the recording it replays is the real engine's playout, node by node, and the
script prints a row per game with the loop's rate beside the engine's."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from engine import registry
from engine.core import NodeKind
from tests.bench_scripts import BENCH, load_bench_script

ROOT = Path(__file__).resolve().parent.parent


def test_a_recording_walks_the_nodes_the_engine_played_with_the_same_seed():
    engine_speed, floor = load_bench_script("engine_speed"), load_bench_script("engine_floor")
    for game_id in registry.game_ids():
        game = registry.make(game_id, 3)
        node = floor.record(game, random.Random(7))
        state, rng = game.initial_state(), random.Random(7)
        steps = 0
        while state.kind is not NodeKind.TERMINAL:
            assert node.kind is state.kind
            if state.kind is NodeKind.CHANCE:
                assert tuple(node.distribution[0]) == tuple(state._chance_distribution()[0])
                state = state.apply_chance(engine_speed.sample_chance(state, rng))
            else:
                assert node.acting == state.acting_players()
                assert all(node.legal[s] == state.legal_actions(s) for s in node.acting)
                state = state.apply({s: rng.choice(state.legal_actions(s)) for s in node.acting})
            node, steps = node.next, steps + 1
        assert node.kind is NodeKind.TERMINAL and node.next is None and steps > 10, game_id


def test_the_loop_over_a_recording_counts_the_engines_seat_decisions():
    engine_speed, floor = load_bench_script("engine_speed"), load_bench_script("engine_floor")
    game = registry.make("riga", 4)
    recording = floor.Recording(game, 1)
    real = engine_speed.playout(game, random.Random(1), with_observations=False)[0]
    replayed = engine_speed.playout(recording, random.Random(99), with_observations=False)[0]
    assert replayed == real > 0
    chance, decision_nodes = floor.nodes_per_decision(recording)
    assert chance > 0 and 0 < decision_nodes <= 1


def test_the_script_prints_the_engine_and_the_loop_alone_per_row():
    # Every game's C state plays near the loop's own floor, where either rate may be the higher in
    # a short run: the row is checked for its arithmetic, not for which is faster.
    done = subprocess.run([sys.executable, str(BENCH / "engine_floor.py"), "--games", "lost_cities_rivals",
                           "--players", "2,3", "--seconds", "0.05", "--repeat", "1", "--playouts", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    which, header, _, *rows = done.stdout.splitlines()
    assert which.startswith("engine: ") and "loop alone" in header
    cells = [row.strip("| ").split(" | ") for row in rows]
    assert [c[1] for c in cells] == ["2", "3"]
    for c in cells:
        engine_rate, loop_rate = (float(x.replace(",", "")) for x in c[2:4])
        assert engine_rate > 0 and loop_rate > 0
        assert abs(float(c[6]) - 1e6 / loop_rate) < 0.006  # the printed rates are rounded
        engine_us = 1e6 / engine_rate - 1e6 / loop_rate
        assert c[7] == "floor" if engine_us <= 0.05 * 1e6 / loop_rate else abs(float(c[7]) - engine_us) < 0.02


def test_an_engine_at_the_loops_floor_reads_floor_not_a_negative_time(capsys):
    floor = load_bench_script("engine_floor")
    rates = {"engine": 450_000.0, "loop": 440_000.0, "chance": 5.8, "decision_nodes": 1.0, "tree": 160_000.0}
    floor.print_row("gang_of_dice", 3, rates)
    cells = capsys.readouterr().out.strip("| \n").split(" | ")
    assert cells[7] == "floor" and cells[-1] == "0.85"  # 2 × 160k leaves 3.125 - 2.273 µs, no share
    floor.print_row("riga", 3, {**rates, "engine": 200_000.0})
    cells = capsys.readouterr().out.strip("| \n").split(" | ")
    assert cells[7] == "2.73" and cells[-1].startswith("0.85 (0.31×)")
