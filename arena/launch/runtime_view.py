"""The sandboxes' runtime (the Python SDK, gRPC, protobuf, the .proto files) from a tmpfs of its own.

Binding the runtime's folders from the arena's virtualenv and repository would name them in every
bot's /proc/self/mountinfo (a bind mount shows its source's path), and so where the arena is
installed — often the arena user's home folder. So once per gateway a keeper process moves into a
mount namespace of its own, mounts a tmpfs on an empty folder, copies the runtime into it (about
22 MB, once) and waits; every launch's limits wrapper joins that namespace (`--mount-ns`) before
it makes its own (files_view.py), and bwrap binds the runtime from the tmpfs, whose paths say
nothing. The host never sees the tmpfs; the keeper ends when the gateway closes its stdin (or
dies), and the namespace goes with its last sandbox.

    python -m arena.launch.runtime_view MOUNTPOINT NAME=SOURCE...   (prints "ready", then waits)
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

from arena.launch.files_view import private_tmpfs
from arena.launch.sandbox import SandboxUnavailable

READY = b"ready\n"


class RuntimeView:
    """The keeper process of one gateway's runtime tmpfs."""

    def __init__(self, process: asyncio.subprocess.Process, root: Path) -> None:
        self.process = process
        self.root = root  # where the runtime is, inside the keeper's mount namespace only

    @property
    def namespace(self) -> str:
        return f"/proc/{self.process.pid}/ns/mnt"

    @classmethod
    async def start(cls, sources: dict[str, Path]) -> RuntimeView:
        """Start the keeper and wait until the runtime is copied; SandboxUnavailable if it fails."""
        root = Path(tempfile.mkdtemp(prefix="arena-runtime-"))  # 0700: root's alone; empty on the host
        argv = [sys.executable, "-m", "arena.launch.runtime_view", str(root),
                *(f"{name}={source}" for name, source in sources.items())]
        process = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE,
                                                       stdout=asyncio.subprocess.PIPE,
                                                       stderr=asyncio.subprocess.PIPE)
        assert process.stdout is not None and process.stderr is not None
        if await process.stdout.readline() != READY:
            why = (await process.stderr.read()).decode(errors="replace").strip().splitlines()
            await process.wait()
            root.rmdir()
            raise SandboxUnavailable("cannot launch bots in their sandbox: the runtime could not be staged "
                                     f"({why[-1] if why else f'exit status {process.returncode}'})")
        return cls(process, root)

    async def close(self) -> None:
        """End the keeper (the namespace lives on in running sandboxes) and remove its empty folder."""
        if self.process.returncode is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            await self.process.wait()
        self.root.rmdir()


def main(argv: list[str]) -> None:
    root, pairs = Path(argv[0]), [arg.partition("=") for arg in argv[1:]]
    os.umask(0o022)  # the folders it makes are readable by the bots' uids
    private_tmpfs(root)
    for name, _, source in pairs:
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        if Path(source).is_dir():
            shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    sys.stdout.buffer.write(READY)
    sys.stdout.flush()
    sys.stdin.buffer.read()  # until the gateway closes the pipe (or dies)


if __name__ == "__main__":
    main(sys.argv[1:])
