"""Seeds derived from a parent seed and labels: the same inputs give the same seed on any machine.

Tournaments, tests and the match runner derive every seed this way, never from execution order, so
that a schedule is reproducible and a resumed run plays what a first run would have.
"""

from __future__ import annotations

import hashlib


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from a parent seed and labels; the same inputs give the same seed anywhere."""
    text = ":".join(str(part) for part in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1
