"""bench/scale.py at a tiny size: it builds a history, measures every row and prints one table.

A test of behaviour, not of speed: the figures are not checked, only that every measurement ran
(none is a "> cap" or an error) and that the table has a row for each one and every dashboard route."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from starlette.routing import Route

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "scale.py"
MEASURED = ["bytes per match", "write, big batches", "refit with intervals (rerate)", "write, batches of 100",
            "live update after 1,000 new", "arena leaderboard", "next table (whole field)"]


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def table_rows(stdout: str) -> dict[str, list[str]]:
    """The printed table as {measurement: [aim, cells...]}."""
    lines = [line for line in stdout.splitlines() if line.startswith("| ")]
    return {cells[0]: cells[1:] for cells in ([c.strip() for c in line.strip("|").split(" | ")] for line in lines[2:])}


def dashboard_routes() -> set[str]:
    from arena.store import Store
    from dashboards.app import create_app

    app = create_app(Store("sqlite://"))
    return {r.path for r in app.routes if isinstance(r, Route) and "GET" in (r.methods or ())
            and "{rest" not in r.path and not r.path.startswith(("/my", "/signin"))}


@pytest.mark.slow  # about 20 s on a quiet machine: it builds and measures a history
def test_a_tiny_run_prints_every_measurement_and_every_dashboard_route() -> None:
    done = run_bench("--sizes", "500/20", "--backend", "sqlite", "--templates", "10", "--repeat", "2", "--cap", "300")
    assert done.returncode == 0, done.stderr
    assert "\nsqlite:\n" in done.stdout
    rows = table_rows(done.stdout)
    for name in MEASURED:
        aim, cell = rows[name]
        assert aim.startswith(("≤", "≥")), (name, aim)
        assert cell[0].isdigit(), (name, cell)  # a figure, not "> cap"
    pages = {name.removeprefix("GET ").split("?")[0]: cells for name, cells in rows.items() if name.startswith("GET ")}
    assert dashboard_routes() <= set(pages)
    for path, (aim, cell) in pages.items():
        assert aim == "≤ 100 ms median"
        assert cell[0].isdigit() or (cell == "HTTP 404" and path.endswith("tests/{id}")), (path, cell)  # no SPRT test


def test_a_bad_size_says_what_is_valid() -> None:
    done = run_bench("--sizes", "100k", "--backend", "sqlite")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "bad size '100k': use MATCHES/BOTS such as 100k/1k" in done.stderr
