# Generated from arena/link/tls_probe.py by scripts/copy_tls_probe.py: edit that file, then run the script.
"""Why a gateway could not be reached, when TLS is why: one TLS handshake of our own.

gRPC says only UNAVAILABLE both for a plaintext client at a TLS gateway and for a certificate that
does not verify; `probe` tells them apart. The arena (arena/link/tls.py) and the bot kit
(bots/sdk/arena_sdk/tls.py) word the finding each for its own users. The kit stands alone (grpc
and protobuf only), so it carries a copy of this module, bots/sdk/arena_sdk/tls_probe.py, written by
`scripts/copy_tls_probe.py`; tests/test_architecture.py fails when the copy differs. Hence the
standard library only, and no import of the arena.
"""

from __future__ import annotations

import enum
import socket
import ssl
from dataclasses import dataclass


class Mismatch(enum.Enum):
    SPEAKS_TLS = "the gateway speaks TLS, the client does not"
    NO_TLS = "the client speaks TLS, the gateway does not"
    UNVERIFIED = "the gateway's certificate does not verify"


@dataclass(frozen=True)
class Finding:
    """What TLS says about a failed connection: the mismatch, the host named, the verifier's reason."""

    mismatch: Mismatch
    host: str
    reason: str = ""  # the verifier's words (UNVERIFIED)


def verifying_context(roots: bytes | None) -> ssl.SSLContext:
    """A client's context that verifies the server's certificate and name: against the CA
    certificates `roots` (PEM), or the system's roots (None)."""
    context = ssl.create_default_context(cadata=None if roots is None else roots.decode("ascii", "replace"))
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    # Trust a certificate of the CA file itself, as gRPC does (and Python 3.13 by default): so a
    # self-signed server certificate given as the CA works here as it does on gRPC.
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    return context


def probe(address: str, context: ssl.SSLContext | None, timeout_s: float = 2.0) -> Finding | None:
    """Handshake with `address` (HOST:PORT) as a client with `context` (None: a plaintext client)
    would; None when TLS is not the problem (nothing listens, a Unix socket, both sides agree)."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    if not port.isdigit() or address.startswith("unix:"):
        return None
    try:
        with socket.create_connection((host, int(port)), timeout_s) as raw:
            if context is None:
                anything = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                anything.check_hostname, anything.verify_mode = False, ssl.CERT_NONE
                with anything.wrap_socket(raw, server_hostname=host):
                    return Finding(Mismatch.SPEAKS_TLS, host)
            with context.wrap_socket(raw, server_hostname=host):
                return None
    except ssl.SSLCertVerificationError as error:
        return Finding(Mismatch.UNVERIFIED, host, str(error.verify_message))
    except ssl.SSLError as error:
        if context is not None and ("WRONG_VERSION_NUMBER" in str(error) or "record layer failure" in str(error)):
            return Finding(Mismatch.NO_TLS, host)
        return None
    except OSError:
        return None
