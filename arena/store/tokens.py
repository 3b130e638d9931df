"""Bot tokens are kept only as hashes."""

from __future__ import annotations

import hashlib


def hash_token(token: str) -> str:
    """The SHA-256 hex digest under which a token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()
