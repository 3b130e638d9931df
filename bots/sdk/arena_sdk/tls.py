"""TLS to the gateway: the bot kit's half of arena/link/tls.py (the kit stands alone: its own words).

A bot dialling a gateway over a network uses TLS when the gateway serves it (`arena serve
--tls-cert ... --tls-key ...`): `run(..., tls=True)` verifies the gateway against the system's
root certificates, `run(..., ca_file="ca.pem")` against the CA certificates in that file. Without
arguments the environment decides: `$ARENA_TLS_CA` (a CA file: TLS on) or `$ARENA_TLS=1`. A Unix
socket address (`unix:...`, what a bot launched in the arena's sandbox is given) is never TLS.
Why a connection failed, when TLS is why, is the arena's own diagnosis (tls_probe.py, a generated
copy of arena/link/tls_probe.py), worded here for a bot's author.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena_sdk.tls_probe import Mismatch, probe, verifying_context

CA_ENV = "ARENA_TLS_CA"
TLS_ENV = "ARENA_TLS"


@dataclass(frozen=True)
class TLS:
    """Verify the gateway against the CA certificates in `ca_file`, or the system's roots (None)."""

    ca_file: str | None = None
    roots: bytes | None = None  # the file's PEM, read once

    def credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(root_certificates=self.roots)

    def where(self) -> str:
        return f"the CA in {self.ca_file}" if self.ca_file else "the system's root certificates"


def settings(address: str, tls: bool | None = None, ca_file: str | None = None) -> TLS | None:
    """The TLS to use for `address`: the arguments, else the environment; None for plaintext."""
    if address.startswith("unix:"):
        return None
    ca_file = ca_file or os.environ.get(CA_ENV, "").strip() or None
    if tls is None:
        tls = ca_file is not None or os.environ.get(TLS_ENV, "").strip().lower() in ("1", "true", "yes", "on")
    if not tls:
        return None
    if ca_file is None:
        return TLS()
    try:
        return TLS(ca_file, Path(ca_file).read_bytes())
    except OSError as error:
        raise ValueError(f"cannot read the CA file {ca_file} ({error.strerror or error}): "
                         f"check --ca / ca_file / ${CA_ENV}") from None


def aio_channel(address: str, tls: TLS | None) -> grpc.aio.Channel:
    if tls is None:
        return grpc.aio.insecure_channel(address)
    return grpc.aio.secure_channel(address, tls.credentials())


def diagnose(address: str, tls: TLS | None, timeout_s: float = 2.0) -> str | None:
    """When TLS explains why `address` could not be reached, how (one line); else None
    (tls_probe.py: the arena's diagnosis, copied)."""
    found = probe(address, None if tls is None else verifying_context(tls.roots), timeout_s)
    if found is None:
        return None
    if found.mismatch is Mismatch.SPEAKS_TLS:
        return (f"the gateway at {address} speaks TLS: pass --tls (the system's roots) or --ca FILE, "
                f"run(..., tls=True or ca_file=...), or set {CA_ENV} / {TLS_ENV}=1")
    if found.mismatch is Mismatch.NO_TLS:
        return f"the gateway at {address} does not speak TLS: drop --tls / --ca and unset {CA_ENV} / {TLS_ENV}"
    return (f"certificate verify failed ({found.reason}) against {tls.where() if tls else '?'}: "
            f"is {CA_ENV} (or --ca) the CA that signed the gateway's certificate for {found.host}?")
