"""The arena host key: the shared secret that match runners present to the gateway's MatchHost.

`$ARENA_HOST_KEY` when set (use it for a cluster); otherwise a random key kept in
`~/.config/arena/host.key` (mode 0600), created on first use, so `arena serve` and `arena play`
run by the same user agree without any set-up.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def host_key_path() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "arena" / "host.key"


def host_key() -> str:
    """The host key from the environment or the key file (created when missing)."""
    if key := os.environ.get("ARENA_HOST_KEY", "").strip():
        return key
    path = host_key_path()
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(key + "\n")
    return key
