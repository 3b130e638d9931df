"""What an unauthenticated peer can put into the gateway's log: only escaped text, on one line."""

from __future__ import annotations

import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

from arena.gateway_access import gateway_answers
from tests.arena.gateway_fixtures import HOST_KEY, ROOT

HOSTILE = b"\x1b[31mEVIL\x1b[0m\r\nE1201 00:00:00.000000 1 forged.cc:1] fake log line\x07"


def http2_frame(kind: int, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, 0]) + struct.pack(">I", 0) + payload


def send_goaway(port: int, debug: bytes) -> None:
    """A raw HTTP/2 client: the preface, empty SETTINGS, then a GOAWAY whose debug text is `debug`."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as peer:
        peer.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + http2_frame(4, b""))
        assert peer.recv(9), "the server's SETTINGS: it has taken the connection"
        peer.sendall(http2_frame(7, struct.pack(">II", 0, 2) + debug))  # PROTOCOL_ERROR


def test_grpc_core_logs_go_through_the_arena_logger_escaped(tmp_path) -> None:  # noqa: ANN001
    env = {"ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_HOST_KEY": HOST_KEY,
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", "0"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert server.stdout is not None
    listening = re.search(rb"arena gateway listening on 127\.0\.0\.1:(\d+)", server.stdout.readline())
    assert listening, server.stderr.read() if server.stderr else b""
    port = int(listening.group(1))
    deadline = time.monotonic() + 20
    while not gateway_answers(f"127.0.0.1:{port}", 0.5):
        assert server.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    said: list[str] = []  # the server's stderr, line by line, read as it comes
    reader = threading.Thread(target=lambda: said.extend(line.decode() for line in server.stderr or ()), daemon=True)
    reader.start()
    send_goaway(port, HOSTILE)
    deadline = time.monotonic() + 30
    while not (lines := [line for line in list(said) if "goaway" in line.lower()]):
        assert server.poll() is None and time.monotonic() < deadline, "".join(said)
        time.sleep(0.05)
    server.send_signal(signal.SIGTERM)
    assert server.wait(10) == 0
    reader.join(10)
    stderr = "".join(said)
    assert lines, stderr
    assert " grpc INFO " in lines[0], "formatted by the arena's logger, as logger 'grpc'"
    assert r"\x1b[31mEVIL\x1b[0m\r\nE1201 00:00:00.000000 1 forged.cc:1] fake log line\x07" in lines[0], lines[0]
    assert "\x1b" not in stderr and "\r" not in stderr and "\x07" not in stderr
    assert not any(line.startswith("E1201 00:00:00") for line in stderr.splitlines()), "no forged record"


def test_a_native_record_keeps_its_level_and_a_huge_one_is_cut(caplog) -> None:  # noqa: ANN001
    import logging

    from arena.gateway.native_log import MAX_RECORD, log_native

    logger = logging.getLogger("grpc.test")
    caplog.set_level("INFO", logger="grpc.test")
    log_native(logger, "W1201 09:15:45.341000    11 tcp.cc:9] slow peer\n")
    log_native(logger, "E1201 09:15:45.341000    11 big.cc:1] " + "\x00" * (MAX_RECORD + 500) + "\n")
    log_native(logger, "not an absl line\n")
    warning, error, other = caplog.records
    assert (warning.levelno, warning.getMessage()) == (logging.WARNING, "tcp.cc:9] slow peer")
    assert error.levelno == logging.ERROR and error.getMessage().endswith("... (510 more characters)")
    assert "\x00" not in error.getMessage() and error.getMessage().count(r"\x00") == MAX_RECORD - len("big.cc:1] ")
    assert (other.levelno, other.getMessage()) == (logging.WARNING, "not an absl line")
