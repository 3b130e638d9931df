"""The arena host key: the shared secret that match runners present to the gateway's MatchHost.

`$ARENA_HOST_KEY` when set (use it for a cluster); otherwise a random key kept in
`~/.config/arena/host.key` (mode 0600), created on first use, so `arena serve` and `arena play`
run by the same user agree without any set-up.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path


def host_key_path() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "arena" / "host.key"


def host_key() -> str:
    """The host key from the environment or the key file (created when missing)."""
    if key := os.environ.get("ARENA_HOST_KEY", "").strip():
        return key
    path = host_key_path()
    if not path.exists():
        _create(path)
    return path.read_text().strip()


def _create(path: Path) -> None:
    """Write a new key atomically: several processes may race to create it; one wins, all read it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".host.key.")  # mode 0600
    try:
        with os.fdopen(fd, "w") as file:
            file.write(secrets.token_urlsafe(32) + "\n")
        os.link(temporary, path)  # fails if another process got there first: then use theirs
    except FileExistsError:
        pass
    finally:
        os.unlink(temporary)
