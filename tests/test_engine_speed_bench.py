"""bench/engine_speed.py --baseline REV and --pure: the old engine and the Python sources measured in
the same run, really those."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.bench_scripts import load_bench_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "engine_speed.py"


def load_bench():
    return load_bench_script("engine_speed")


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_the_baseline_run_measures_the_exported_engine_not_the_installed_one(tmp_path):
    bench = load_bench()
    bench.export_engine("HEAD", str(tmp_path))
    core = tmp_path / "engine" / "core.py"
    # Make the exported engine's chance sampling far slower: only a run that imports it shows that.
    slowed = core.read_text() + (
        "\n_sample_fast = sample_chance\n\n\ndef sample_chance(state, rng):\n"
        "    sum(range(20_000))\n    return _sample_fast(state, rng)\n"
    )
    core.write_text(slowed)
    old = bench.measure_baseline(str(tmp_path), "gang_of_dice", 2, 0.2)
    new = bench.measure("gang_of_dice", 2, 0.2)
    assert old.decisions < new.decisions / 3


def test_baseline_prints_old_new_and_ratio_per_row():
    done = run_bench("--baseline", "HEAD", "--games", "gang_of_dice", "--players", "2,3",
                     "--seconds", "0.05")
    assert done.returncode == 0, done.stderr
    which, header, _, *rows = done.stdout.splitlines()
    assert which.startswith("engine now: ")
    assert "seat decisions/s HEAD" in header and "obs/s ratio" in header
    assert [row.split(" | ")[1] for row in rows] == ["2", "3"]
    assert all(row.count("×") == 2 for row in rows)


def test_pure_measures_the_python_sources_beside_the_engine_this_process_loads():
    import engine

    done = run_bench("--pure", "--baseline", "HEAD", "--games", "gang_of_dice", "--players", "2",
                     "--seconds", "0.05")
    assert done.returncode == 0, done.stderr
    which, header, _, row = done.stdout.splitlines()
    assert which.startswith(f"engine now: {engine.IMPLEMENTATION} ")
    names = header.strip("| ").split(" | ")
    assert names[2:6] == ["seat decisions/s HEAD", "seat decisions/s pure", "seat decisions/s now",
                          "seat decisions/s ratio HEAD"]
    assert row.count("×") == 4  # now / HEAD and now / pure, for decisions and observations


def test_an_unknown_baseline_revision_is_a_one_line_error():
    done = run_bench("--baseline", "no-such-rev", "--games", "gang_of_dice", "--seconds", "0.05")
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr.strip().count("\n") == 0
    assert "--baseline 'no-such-rev' is not a git revision" in done.stderr
