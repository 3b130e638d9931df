"""The bot's files as the sandbox sees them: a copy on a tmpfs of its own, so its mounts name no host path.

A bind mount shows its source's path in /proc/self/mountinfo (the mount's root within its
filesystem): binding the submission's folder itself would show the bot where the arena keeps it
(the arena user's home folder, the store's layout). So the limits wrapper, before it runs bwrap,
moves into a mount namespace of its own, mounts a fresh tmpfs on an empty folder the launcher made,
and copies the files there; bwrap binds that tmpfs — whose root is `/` — at /bot. The host never
sees the tmpfs (the namespace is private), and it goes with the sandbox. A copy costs about 0.1 s
per launch for the Node.js example's 14 MB in 1,323 files (BENCHMARKS.md, and that much memory
while the bot runs); a launched bot lingers between matches, so it is paid once per launch.

Regular files, folders and symbolic links are copied (modes kept, owners not: a file of mode
0600 stays unreadable to the bot's uid); anything else (a FIFO, a device) is left out.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import stat
from pathlib import Path

CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x4000, 0x40000


def stage(files: Path, mountpoint: Path) -> None:
    """In a new private mount namespace, a tmpfs on `mountpoint` holding a copy of `files`."""
    libc = ctypes.CDLL(None, use_errno=True)
    _call(libc.unshare(CLONE_NEWNS), "unshare the mount namespace")
    _call(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make the mounts private")
    _call(libc.mount(b"tmpfs", bytes(mountpoint), b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755"),
          f"mount a tmpfs on {mountpoint}")
    shutil.copytree(files, mountpoint, symlinks=True, ignore=_special, dirs_exist_ok=True)
    os.chmod(mountpoint, stat.S_IMODE(files.stat().st_mode))


def _special(folder: str, names: list[str]) -> set[str]:
    """Entries that are neither a regular file, a folder nor a symbolic link (copying a FIFO blocks)."""
    skipped = set()
    for name in names:
        mode = os.lstat(os.path.join(folder, name)).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            skipped.add(name)
    return skipped


def _call(status: int, what: str) -> None:
    if status != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"cannot {what}: {os.strerror(number)}")
