"""TLS for what crosses a network: the certificate the gateway serves, the trust its clients place.

The gateway (`arena serve --tls-cert PEM --tls-key PEM`) serves gRPC and the match runners' host leg
over TLS with one certificate (ServerTLS). Its clients — the match runners (GatewayClient), the
CLI's look-ups — verify it against a CA file or the system's roots (ClientTLS), by default from the
environment: `$ARENA_TLS_CA` (a PEM file of CA certificates: TLS on, verified against it) or
`$ARENA_TLS=1` (TLS, verified against the system's roots). The bot kit has its own client half
(bots/sdk/arena_sdk/tls.py: it stands alone), with the same diagnosis of a failed connection
(tls_probe.py, which the kit carries a generated copy of). Launched bots keep their Unix socket.

TLSSocket is the runner's end of a host leg over TLS. It drives an ssl.SSLObject over memory
buffers rather than an ssl.SSLSocket because the host leg writes from the calling threads while
one of them reads (arena/link/host_leg.py), and an OpenSSL connection must not be used from two
threads at once: here only the in-memory encryption is under a lock, never the socket's I/O.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import ssl
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from arena.errors import UsageError
from arena.link.tls_probe import Mismatch, probe, verifying_context

CA_ENV = "ARENA_TLS_CA"
TLS_ENV = "ARENA_TLS"
PASS_TLS = f"set {CA_ENV}=CA.pem (the CA that signed its certificate) or {TLS_ENV}=1 (the system's roots)"


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost: addresses no other machine can reach."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServerTLS:
    """The gateway's certificate chain and private key (PEM), checked to load and to match."""

    cert_file: str
    key_file: str
    cert_chain: bytes
    private_key: bytes = field(repr=False)  # never in a log line or a traceback's locals

    def grpc_credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials([(self.private_key, self.cert_chain)])

    def ssl_context(self) -> ssl.SSLContext:
        """For the host leg's listening socket (asyncio.start_server(ssl=...))."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert_file, self.key_file)
        return context


def load_server_tls(cert_file: str, key_file: str) -> ServerTLS:
    """The certificate and key; UsageError (one line) when one is missing, unreadable, unparsable,
    when they do not belong together, or when other users can read the key."""
    for what, path in (("certificate", cert_file), ("key", key_file)):
        if not Path(path).is_file():
            raise UsageError(f"the TLS {what} file {path} does not exist; pass a PEM file to --tls-{what[:4]}")
    if (mode := stat.S_IMODE(os.stat(key_file).st_mode)) & 0o077:
        raise UsageError(f"the TLS key file {key_file} can be read or changed by other users (mode {mode:04o}); "
                         f"make it the owner's only with `chmod 600 {key_file}`")
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert_file, key_file)
    except ssl.SSLError as error:
        raise UsageError(f"cannot use the TLS certificate {cert_file} with the key {key_file} "
                         f"({error.reason or error}); both must be PEM, and the key the certificate's") from None
    except OSError as error:
        raise UsageError(f"cannot read the TLS certificate or key: {error.strerror or error}: "
                         f"{error.filename}") from None
    return ServerTLS(cert_file, key_file, Path(cert_file).read_bytes(), Path(key_file).read_bytes())


@dataclass(frozen=True)
class ClientTLS:
    """How a client trusts the gateway: the CA certificates in `ca_file`, or the system's roots (None)."""

    ca_file: str | None = None

    def root_certificates(self) -> bytes | None:
        if self.ca_file is None:
            return None
        try:
            return Path(self.ca_file).read_bytes()
        except OSError as error:
            raise UsageError(f"cannot read the TLS CA file {self.ca_file} ({error.strerror or error}); "
                             f"check ${CA_ENV} or --ca") from None

    def ssl_context(self) -> ssl.SSLContext:
        """Verifies the server's certificate and its name (the host leg, and diagnose())."""
        return verifying_context(self.root_certificates())

    def where(self) -> str:
        return f"the CA in {self.ca_file}" if self.ca_file else "the system's root certificates"


def client_tls(tls: bool | None = None, ca_file: str | None = None) -> ClientTLS | None:
    """The client's TLS settings: the arguments when given, else `$ARENA_TLS_CA` / `$ARENA_TLS`;
    None for plaintext. A CA file implies TLS."""
    ca_file = ca_file or os.environ.get(CA_ENV, "").strip() or None
    if tls is None:
        tls = ca_file is not None or os.environ.get(TLS_ENV, "").strip().lower() in ("1", "true", "yes", "on")
    if not tls:
        return None
    return ClientTLS(ca_file)


def channel(address: str, tls: ClientTLS | None, options: list[tuple[str, object]] | None = None) -> grpc.Channel:
    """A gRPC channel to `address`, over TLS when `tls` is set."""
    if tls is None:
        return grpc.insecure_channel(address, options=options)
    credentials = grpc.ssl_channel_credentials(root_certificates=tls.root_certificates())
    return grpc.secure_channel(address, credentials, options=options)


def diagnose(address: str, tls: ClientTLS | None, timeout_s: float = 2.0) -> str | None:
    """Why a connection to `address` failed, when TLS explains it (tls_probe.py): the gateway speaks
    TLS and this client does not, or the other way round, or its certificate does not verify; None
    when TLS is not the problem."""
    found = probe(address, None if tls is None else tls.ssl_context(), timeout_s)
    if found is None:
        return None
    if found.mismatch is Mismatch.SPEAKS_TLS:
        return f"the gateway at {address} speaks TLS and this client does not: {PASS_TLS}"
    if found.mismatch is Mismatch.NO_TLS:
        return f"the gateway at {address} does not speak TLS: unset ${CA_ENV} / ${TLS_ENV} for it"
    return (f"certificate verify failed ({found.reason}) against {tls.where() if tls else '?'}: "
            f"is ${CA_ENV} the CA that signed the gateway's certificate (for the name {found.host})?")


class TLSSocket:
    """A TLS client connection over a connected socket, safe for one reading thread and any number
    of writing threads at once; the socket methods the host leg uses (host_leg.py)."""

    def __init__(self, raw: socket.socket, tls: ClientTLS, server_hostname: str) -> None:
        self.raw = raw
        self._incoming, self._outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self._tls = tls.ssl_context().wrap_bio(self._incoming, self._outgoing, server_hostname=server_hostname)
        self._state = threading.Lock()  # the SSLObject and its buffers
        self._write = threading.Lock()  # taken before _state: records go out in the order they were made
        self._handshake()

    def _handshake(self) -> None:
        while True:
            try:
                with self._state:
                    self._tls.do_handshake()
                self._flush()
                return
            except ssl.SSLWantReadError:
                self._flush()
                self._feed()

    def _feed(self) -> None:
        chunk = self.raw.recv(1 << 16)
        if not chunk:
            raise ConnectionAbortedError("the gateway closed the connection")
        with self._state:
            self._incoming.write(chunk)

    def _flush(self) -> None:
        with self._write:
            with self._state:
                data = self._outgoing.read()
            if data:
                self.raw.sendall(data)

    def sendall(self, data: bytes) -> None:
        with self._write:
            with self._state:
                self._tls.write(data)
                records = self._outgoing.read()
            self.raw.sendall(records)

    def recv(self, size: int) -> bytes:
        """Up to `size` decrypted bytes (b"" at the end); blocks for the rest of a partial record."""
        while True:
            try:
                with self._state:
                    data = self._tls.read(size)
                    answer = self._outgoing.pending  # e.g. a key update's reply
                if answer:
                    self._flush()
                return data
            except ssl.SSLWantReadError:
                self._feed()
            except ssl.SSLZeroReturnError:
                return b""

    def pending(self) -> int:
        """Bytes buffered here already, which poll() on the socket would not see: decrypted ones,
        and records read from the socket but not decrypted yet (one recv() decrypts one record)."""
        with self._state:
            return self._tls.pending() + self._incoming.pending

    def fileno(self) -> int:
        return self.raw.fileno()

    def settimeout(self, timeout: float | None) -> None:
        self.raw.settimeout(timeout)

    def shutdown(self, how: int) -> None:
        self.raw.shutdown(how)

    def close(self) -> None:
        self.raw.close()


INSECURE_WARNING = ("WARNING: the gateway listens on {host} without TLS: bot tokens and the arena host key "
                    "travel in the clear; pass --tls-cert and --tls-key (docs/tls.md)")


def server_tls_for(host: str, cert_file: str | None, key_file: str | None, insecure: bool) -> ServerTLS | None:
    """The gateway's TLS from `arena serve`'s options; UsageError for a non-loopback `host` without
    TLS unless `insecure` (the caller then warns with INSECURE_WARNING)."""
    if (cert_file is None) != (key_file is None):
        raise UsageError("pass both --tls-cert PEM and --tls-key PEM, or neither (plaintext, on loopback only)")
    if cert_file is not None and key_file is not None:
        return load_server_tls(cert_file, key_file)
    if not is_loopback(host) and not insecure:
        raise UsageError(f"refusing to listen on {host} without TLS: bot tokens and the host key would travel "
                         "in the clear; pass --tls-cert PEM --tls-key PEM (docs/tls.md), or --insecure on a "
                         "network you trust")
    return None
