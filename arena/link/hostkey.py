"""The arena host key: the shared secret that match runners present to the gateway's MatchHost.

`$ARENA_HOST_KEY` when set (use it for a cluster); otherwise a random key kept in
`~/.config/arena/host.key` (mode 0600, in a folder of mode 0700), created on first use, so
`arena serve` and `arena play` run by the same user agree without any set-up. A key file that
other users can read is refused: whoever holds the key can drive the gateway's MatchHost.
"""

from __future__ import annotations

import os
import secrets
import stat
import tempfile
from pathlib import Path

from arena.errors import UsageError

HOST_KEY_HEADER = "arena-host-key"  # the gRPC metadata in which a runner presents the key


def host_key_path() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "arena" / "host.key"


def host_key() -> str:
    """The host key from the environment or the key file (created when missing)."""
    return secret_from("ARENA_HOST_KEY", host_key_path(), "host key")


def secret_from(variable: str, path: Path, what: str) -> str:
    """`$variable` when set, else the secret in `path` (created when missing: a random one, mode
    0600 in a folder of mode 0700); a file that other users can read or change is refused."""
    if key := os.environ.get(variable, "").strip():
        return key
    if not path.exists():
        _create(path)
    if (mode := stat.S_IMODE(path.stat().st_mode)) & 0o077:
        raise UsageError(f"the {what} file {path} can be read or changed by other users (mode {mode:04o}); "
                         f"make it the owner's only with `chmod 600 {path}`")
    return path.read_text().strip()


def _create(path: Path) -> None:
    """Write a new key atomically: several processes may race to create it; one wins, all read it."""
    path.parent.parent.mkdir(parents=True, exist_ok=True)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    path.parent.chmod(0o700)  # mkdir's mode is masked by the umask
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mode 0600
    try:
        with os.fdopen(fd, "w") as file:
            file.write(secrets.token_urlsafe(32) + "\n")
        os.link(temporary, path)  # fails if another process got there first: then use theirs
    except FileExistsError:
        pass
    finally:
        os.unlink(temporary)
