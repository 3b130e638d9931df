"""`arena dashboard`: serves a real database over HTTP; bad input is a one-line error."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from arena.cli import main
from dashboards.screenshot import free_port
from tests.dashboards.conftest import Filled

ARENA = [sys.executable, "-m", "arena.cli"]


def test_the_command_serves_the_database_until_stopped(filled: Filled) -> None:
    port = free_port()
    process = subprocess.Popen([*ARENA, "dashboard", "--db", filled.url, "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        games = _get_when_up(f"http://127.0.0.1:{port}/api/leaderboard?game=lost_cities_rivals", process)
        assert [r["bot"] for r in games["rows"]] == [r.entrant for r in filled.store.leaderboard("lost_cities_rivals@1")]
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert f"http://127.0.0.1:{port}/" in output


def _get_when_up(url: str, process: subprocess.Popen) -> dict:
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return json.loads(response.read())
        except OSError:
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < deadline, "arena dashboard did not answer within 30 s"
            time.sleep(0.2)


def test_a_missing_database_file_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.db"
    assert main(["dashboard", "--db", f"sqlite:///{missing}"]) == 2
    assert f"no database at {missing}; run `arena tournament run ...` first" in capsys.readouterr().err
    assert not missing.exists()


def test_a_busy_port_is_a_one_line_error(filled: Filled, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["dashboard", "--db", filled.url, "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_a_bad_port_number_is_a_one_line_error(filled: Filled, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dashboard", "--db", filled.url, "--port", "70000"]) == 2
    assert "--port must be from 1 to 65535, not 70000" in capsys.readouterr().err
