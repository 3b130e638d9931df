"""`arena dashboard`: serves a real database over HTTP; bad input is a one-line error."""

from __future__ import annotations

import http.client
import json
import re
import socket
import ssl
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from arena.cli import main
from dashboards.screenshot import free_port
from tests.arena.gateway_fixtures import store, toy_registered  # noqa: F401 - fixtures
from tests.arena.tls_fixtures import tls_files, tls_gateway  # noqa: F401 - fixtures
from tests.dashboards.conftest import Filled

ARENA = [sys.executable, "-m", "arena.cli"]


def test_the_command_serves_the_database_until_stopped(filled: Filled) -> None:
    port = free_port()
    process = subprocess.Popen([*ARENA, "dashboard", "--db", filled.url, "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        games = _get_when_up(f"http://127.0.0.1:{port}/api/leaderboard?game=lost_cities_rivals", process)
        assert ([r["bot"] for r in games["rows"]]
                == [r.entrant for r in filled.store.leaderboard("lost_cities_rivals@1")])
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


def test_over_tls_an_author_signs_in_through_a_tls_gateway_and_the_cookie_is_secure(
        tls_gateway, tls_files, store, tmp_path: Path) -> None:  # noqa: ANN001 - fixtures
    """`arena dashboard --tls-cert/--tls-key` serves HTTPS; the author pages reach a TLS gateway with
    --gateway-ca; the session cookie is Secure."""
    key = store.add_author("alice")
    port = free_port()
    process = subprocess.Popen([*ARENA, "dashboard", "--db", store.url, "--port", str(port),
                                "--tls-cert", str(tls_files.cert), "--tls-key", str(tls_files.key),
                                "--gateway", tls_gateway.address, "--gateway-ca", str(tls_files.ca)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    trust = ssl.create_default_context(cafile=str(tls_files.ca))
    connection = None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPSConnection("127.0.0.1", port, context=trust, timeout=10)
                connection.request("GET", "/signin")
                form = connection.getresponse()
                break
            except OSError:
                assert process.poll() is None, process.communicate()[0]
                assert time.monotonic() < deadline, "arena dashboard did not answer within 30 s"
                time.sleep(0.2)
        page = form.read().decode()
        signin_cookie = form.getheader("set-cookie").split(";")[0]
        assert "secure" in form.getheader("set-cookie").lower()
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        connection.request("POST", "/signin", body=urllib.parse.urlencode({"key": key, "csrf": csrf}),
                           headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": signin_cookie})
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 303 and answer.getheader("location") == "/my"
        cookies = [v for k, v in answer.getheaders() if k.lower() == "set-cookie" and v.startswith("arena_session=")]
        assert len(cookies) == 1 and {"secure", "httponly"} <= {p.strip().lower() for p in cookies[0].split(";")}
    finally:
        if connection is not None:
            connection.close()  # uvicorn waits for open keep-alive connections before it exits
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert f"https://127.0.0.1:{port}/" in output
