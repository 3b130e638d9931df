"""bench/scale.py at a tiny size: it builds a history, measures every row and prints one table.

A test of behaviour, not of speed: the figures are not checked, only that every measurement ran
(none is a "> cap" or an error) and that the table has a row for each one and every dashboard route."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
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


def test_a_history_that_was_not_kept_says_what_to_give(tmp_path: Path) -> None:
    (tmp_path / "other.json").write_text("[1, 2]")
    for given, said in ((tmp_path / "none.json", "no kept history at"), (tmp_path / "other.json", "no \"url\"")):
        done = run_bench("--reuse", str(given))
        assert done.returncode == 2 and done.stdout == ""
        assert said in done.stderr and "give the .json files that --keep wrote" in done.stderr, done.stderr


@pytest.mark.slow  # about 60 s on a quiet machine: two histories built, measured, and measured again
@pytest.mark.postgres
def test_kept_histories_are_measured_again_each_backend_on_its_own() -> None:
    kept = Path(tempfile.mkdtemp(prefix="arena-kept-"))
    kept.chmod(0o755)  # the server runs as `postgres` when the tests run as root: it must reach its folder
    try:
        measured_twice(kept)
    finally:
        shutil.rmtree(kept, ignore_errors=True)


def measured_twice(kept: Path) -> None:
    built = run_bench("--sizes", "500/20", "--backend", "both", "--templates", "10", "--repeat", "2",
                      "--cap", "300", "--keep", str(kept))
    assert built.returncode == 0, built.stderr
    described = sorted(kept.glob("*.json"))
    assert len(described) == 2, described
    assert not (kept / "postgres" / "data" / "postmaster.pid").exists()  # the server stopped, its data kept
    again = run_bench("--reuse", ",".join(map(str, described)), "--repeat", "2", "--cap", "300")
    assert again.returncode == 0, again.stderr
    assert again.stdout.count("500 matches / 20 bots kept") == 2
    for backend in ("sqlite", "postgres"):  # a table each, of its own history alone
        table = again.stdout.split(f"\n{backend}:\n")[1].split("\n\n")[0]
        rows = table_rows(table)
        for name in MEASURED[2:]:  # the kept build's write rate and size are not measured again
            assert len(rows[name]) == 2 and rows[name][1][0].isdigit(), (backend, name, rows[name])
    assert not (kept / "postgres" / "data" / "postmaster.pid").exists()
