"""A node's cache of submitted bots' files, by their tree hash: fetched once, checked before every use.

A match that launches `NAME@N` on this node needs that version's files. They are looked up here
under their sha256 (the tree hash, arena/submissions.py `tree_hash`); a missing entry is fetched
(the driver put the files in Ray's object store: `fetch` gets them) and stored like a submission
(the same hostile-archive checks, read-only, in `root/<sha256>/`). Before every use the entry's
tree is hashed again: one that does not match its name (a file changed, added or removed on this
node) is refused — logged, removed — and fetched again, so a bot only ever runs the files that
were submitted. Files that arrive with another hash than the one asked for are refused too.

The cache is written only by the arena's own user (folders 0755, entries 0555/0444); a sandboxed
bot runs as a uid of its own and sees its entry read-only at /bot, so no bot can write it. Worker
processes of one node share the cache: a lock file serialises fetching and checking.
"""

from __future__ import annotations

import fcntl
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from arena.errors import ArenaError
from arena.submissions import SubmissionError, prepare_root, remove_tree, store_submission, tree_hash

log = logging.getLogger("arena.node")

CACHE_ENV = "ARENA_NODE_CACHE"


class FilesError(ArenaError):
    """A bot's files could not be had on this node (an arena-side error: the match aborts)."""


def default_root() -> Path:
    """`$ARENA_NODE_CACHE`, else `$XDG_CACHE_HOME/arena/bots` (~/.cache/arena/bots)."""
    if configured := os.environ.get(CACHE_ENV):
        return Path(configured)
    cache_home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache_home) / "arena" / "bots"


class FilesCache:
    """Submitted bots' files on this node, each in `root/<sha256>/`."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_root()
        self.refused = 0  # entries refused because their files no longer matched their hash

    def folder(self, sha256: str, fetch: Callable[[], bytes]) -> Path:
        """The checked folder of the files whose tree hash is `sha256`, fetched if missing or tampered."""
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            raise FilesError(f"bad files hash {sha256!r}: expected 64 lowercase hex digits")
        try:
            root = prepare_root(self.root)
        except SubmissionError as error:
            raise FilesError(str(error)) from None
        with _locked(root / ".lock"):
            entry = root / sha256
            if entry.is_dir():
                if tree_hash(entry) == sha256:
                    return entry
                self.refused += 1
                log.warning("the cached files %s on this node do not match their hash: refused, fetched again", entry)
                remove_tree(entry)
            elif entry.exists() or entry.is_symlink():
                remove_tree(entry)
            return self._fetch(root, sha256, fetch)

    def _fetch(self, root: Path, sha256: str, fetch: Callable[[], bytes]) -> Path:
        handle, name = tempfile.mkstemp(prefix=".fetch-", suffix=".tar.gz", dir=root)
        try:
            with os.fdopen(handle, "wb") as archive:
                archive.write(fetch())
            stored = store_submission(Path(name), root)
        except SubmissionError as error:
            raise FilesError(f"the files {sha256[:12]}... could not be stored on this node: {error}") from None
        finally:
            os.unlink(name)
        if stored.sha256 != sha256:
            raise FilesError(f"the files fetched for {sha256[:12]}... have the tree hash {stored.sha256[:12]}...: "
                             "refused")
        return stored.folder


class _locked:
    """An exclusive lock on a file, held for a `with` block (between processes of this node)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> None:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
