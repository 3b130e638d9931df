"""TLS for the tests: a CA and a server certificate for 127.0.0.1/localhost made with the `openssl`
command line (scripts/system-deps.sh installs it), a second CA that signed nothing of ours, a gateway
serving TLS, and a recording TCP relay to see what crosses the wire.

Import the fixtures into a test module with `from tests.arena.tls_fixtures import *`.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.gateway.server import GatewayThread
from arena.launch.launcher import LaunchLimits
from arena.link.tls import ServerTLS, load_server_tls
from arena.store import Store
from tests.arena.gateway_fixtures import HOST_KEY

__all__ = ["TLSFiles", "tls_files", "tls_gateway", "Relay", "make_certificates", "first_failure"]

SERVER_EXTENSIONS = ("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                     "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")


@dataclass(frozen=True)
class TLSFiles:
    """ca: the CA that signed `cert`; other_ca: one that did not; key: `cert`'s key (mode 0600)."""

    ca: Path
    cert: Path
    key: Path
    other_ca: Path

    def server(self) -> ServerTLS:
        return load_server_tls(str(self.cert), str(self.key))


def _openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"openssl {' '.join(args)} failed: {done.stderr}"


def make_certificates(folder: Path) -> TLSFiles:
    """The commands docs/tls.md gives for a test certificate (RSA 2048, valid 2 days)."""
    assert shutil.which("openssl"), "openssl is missing: scripts/system-deps.sh installs it"
    for name in ("ca", "other-ca"):
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.pem",
                 "-days", "2", "-subj", f"/CN=arena test {name}", cwd=folder)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=localhost", cwd=folder)
    (folder / "server.ext").write_text(SERVER_EXTENSIONS)
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.pem", "-days", "2", "-extfile", "server.ext", cwd=folder)
    for key in folder.glob("*.key"):
        key.chmod(0o600)
    return TLSFiles(folder / "ca.pem", folder / "server.pem", folder / "server.key", folder / "other-ca.pem")


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TLSFiles:
    return make_certificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def tls_gateway(store: Store, tls_files: TLSFiles, monkeypatch: pytest.MonkeyPatch,
                toy_registered: None) -> Iterator[GatewayThread]:
    """A gateway on 127.0.0.1 serving gRPC and the host leg over TLS."""
    monkeypatch.setenv("ARENA_HOST_KEY", HOST_KEY)
    with GatewayThread(store, host_key=HOST_KEY, limits=LaunchLimits(linger_s=0.2, cpu_seconds=60),
                       tls=tls_files.server()) as thread:
        yield thread


class Relay:
    """A TCP relay on 127.0.0.1 (port 0: the system picks one) to `target`: it forwards the bytes
    both ways and keeps a copy of all of them in `recorded`."""

    def __init__(self, target_port: int) -> None:
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.address = f"127.0.0.1:{self.port}"
        self._recorded = bytearray()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def recorded(self) -> bytes:
        with self._lock:
            return bytes(self._recorded)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            server = socket.create_connection(self.target)
            with self._lock:
                self._sockets += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(1 << 16):
                with self._lock:
                    self._recorded += chunk
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()
        with self._lock:
            for end in self._sockets:
                end.close()


def first_failure(process: subprocess.Popen[str]) -> str:
    """The line in which a bot process says its connection failed (the bot retries: then stopped)."""
    assert process.stdout is not None
    for line in process.stdout:  # blocks until the bot says something: no sleeping on luck
        if " lost: " in line:
            process.terminate()
            return line
    return f"the bot exited with {process.wait()} without saying"
