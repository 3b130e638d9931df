"""Submitted bot files: unpacked safely and stored content-addressed, read-only.

`store_submission(path, root)` takes a folder, a `.tar.gz`/`.tgz` or a `.zip` and stores its file
tree under `root/<sha256>/`, where the sha256 is that of the tree (`tree_hash`: sorted relative
paths, the executable bit and the contents of every file, the target of every link). The same
files submitted twice are stored once. Every submission is hostile until proven otherwise:

- no entry may leave the tree: absolute paths and `..` are refused, and so is any link (symbolic
  or hard) whose target is absolute or resolves outside the tree;
- only regular files, folders and links: device files, FIFOs and sockets are refused;
- at most `Limits.max_files` entries and `Limits.max_bytes` bytes unpacked (a zip bomb stops at
  the limit, whatever its headers claim).

Anything refused is a one-line SubmissionError and leaves nothing behind: the files are written
into a staging folder inside `root`, checked there, and moved into place only when all is well.
Stored trees are read-only (files 0444, or 0555 when executable; folders 0555) and readable by
every user, so the unprivileged uid of a bot's sandbox can read its own files; the database
stays elsewhere. An archive holding one top-level folder and nothing else is stored as that
folder's contents, so `tar czf bot.tar.gz mybot/` works as expected.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from arena.errors import UsageError

CHUNK = 1 << 16
ARCHIVES = (".tar.gz", ".tgz", ".zip")


class SubmissionError(UsageError):
    """A submission that cannot be stored, with what was wrong (one line)."""


@dataclass(frozen=True)
class Limits:
    """How much one submission may hold, unpacked."""

    max_files: int = 20_000  # files, folders and links
    max_bytes: int = 200 * 1024 * 1024


@dataclass(frozen=True)
class StoredFiles:
    """A stored submission: its tree hash and the read-only folder that holds it."""

    sha256: str
    folder: Path


def default_root() -> Path:
    """`$ARENA_SUBMISSIONS`, else `$XDG_DATA_HOME/arena/submissions` (~/.local/share/...)."""
    if configured := os.environ.get("ARENA_SUBMISSIONS"):
        return Path(configured)
    data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data_home) / "arena" / "submissions"


DEFAULT_LIMITS = Limits()


def store_submission(source: Path, root: Path, limits: Limits = DEFAULT_LIMITS) -> StoredFiles:
    """Unpack or copy `source` into `root/<sha256>/` (read-only); SubmissionError if refused."""
    root = prepare_root(root)
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
    try:
        tree = _Tree(staging / "tree", limits)
        _fill(tree, source)
        folder = _single_folder(tree.root)
        tree.check_links(folder)
        digest = tree_hash(folder)
        final = root / digest
        if not final.exists():
            _make_read_only(folder)
            _move(folder, final)
        return StoredFiles(digest, final)
    finally:
        _remove(staging)


def pack_tree(folder: Path) -> bytes:
    """A stored tree as a .tar.gz that `store_submission` stores again as the same tree (same
    tree hash): its entries under one top folder, which storing takes off again. How a node
    gets a submitted bot's files (arena/node/files.py)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as archive:  # speed over size
        archive.add(folder, arcname="bot", recursive=True, filter=_anonymous)
    return buffer.getvalue()


def _anonymous(member: tarfile.TarInfo) -> tarfile.TarInfo:
    member.uid = member.gid = 0
    member.uname = member.gname = ""
    return member


def prepare_root(root: Path) -> Path:
    """Make the submissions folder if needed and return it, resolved; SubmissionError if it cannot be."""
    try:
        root.mkdir(mode=0o755, parents=True, exist_ok=True)  # only the arena's user may write
    except OSError as error:
        raise SubmissionError(f"cannot use the submissions folder {root} ({error.strerror}); "
                              "set --submissions or $ARENA_SUBMISSIONS to a writable folder") from None
    return root.resolve()


def _fill(tree: _Tree, source: Path) -> None:
    name = source.name.lower()
    if not source.exists():
        raise SubmissionError(f"{source} does not exist; give a folder or a {', '.join(ARCHIVES)} archive")
    try:
        if source.is_dir():
            _copy_folder(tree, source)
        elif name.endswith((".tar.gz", ".tgz")):
            _unpack_tar(tree, source)
        elif name.endswith(".zip"):
            _unpack_zip(tree, source)
        else:
            raise SubmissionError(f"{source} is neither a folder nor an archive; "
                                  f"give a folder or a file ending in {', '.join(ARCHIVES)}")
    except (tarfile.TarError, zipfile.BadZipFile, EOFError) as error:
        raise SubmissionError(f"{source} is not a readable archive ({error})") from None
    except OSError as error:
        raise SubmissionError(f"cannot store {source}: {error.strerror or error} "
                              f"({error.filename or 'a file'})") from None


# -- what goes into a tree ----------------------------------------------------------------------


class _Tree:
    """A staging folder that takes entries one at a time and refuses any that could escape."""

    def __init__(self, root: Path, limits: Limits) -> None:
        self.root, self.limits = root, limits
        self.root.mkdir()
        self.entries = 0
        self.bytes = 0
        self.links: list[str] = []

    def add_dir(self, name: str) -> None:
        path = self._place(name)
        if path is not None and not path.is_dir():
            path.mkdir()

    def add_file(self, name: str, data: IO[bytes], executable: bool) -> None:
        path = self._place(name)
        if path is None:
            raise SubmissionError(f"entry {name!r} is not a file name")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        try:
            descriptor = os.open(path, flags, 0o755 if executable else 0o644)
        except FileExistsError:
            raise SubmissionError(f"{name!r} appears twice in the submission") from None
        with os.fdopen(descriptor, "wb") as out:
            while chunk := data.read(CHUNK):
                self._count_bytes(len(chunk))
                out.write(chunk)

    def add_symlink(self, name: str, target: str) -> None:
        path = self._place(name)
        if path is None or PurePosixPath(target).is_absolute() or not target or "\0" in target:
            raise SubmissionError(f"link {name!r} -> {target!r} points outside the submission; "
                                  "only relative links to files inside it are allowed")
        try:
            os.symlink(target, path)
        except FileExistsError:
            raise SubmissionError(f"{name!r} appears twice in the submission") from None
        self.links.append(name)

    def add_hardlink(self, name: str, target: str) -> None:
        source = self._place(target, count=False)
        if source is None or not source.is_file() or source.is_symlink():
            raise SubmissionError(f"hard link {name!r} -> {target!r} does not point to a file earlier "
                                  "in the archive; links must stay inside the submission")
        with source.open("rb") as data:
            self.add_file(name, data, executable=bool(source.stat().st_mode & 0o111))

    def check_links(self, folder: Path) -> None:
        """Every link, followed through the links it passes, must end inside `folder` (the tree
        as stored: the tree itself or its one top-level folder)."""
        inside = folder.resolve()
        for name in self.links:
            resolved = (self.root / name).resolve()
            if resolved != inside and inside not in resolved.parents:
                target = os.readlink(self.root / name)
                raise SubmissionError(f"link {name!r} -> {target!r} points outside the submission; "
                                      "only relative links to files inside it are allowed")

    def _place(self, name: str, count: bool = True) -> Path | None:
        """The path an entry goes to (its parent folders made), None for the tree itself."""
        parts = _safe_parts(name)
        if count:
            self.entries += 1
            if self.entries > self.limits.max_files:
                raise self.too_many()
        path = self.root
        for part in parts[:-1]:
            path = path / part
            if path.is_symlink() or (path.exists() and not path.is_dir()):
                raise SubmissionError(f"{name!r} lies under {part!r}, which is not a folder")
            path.mkdir(exist_ok=True)
        return path / parts[-1] if parts else None

    def too_many(self) -> SubmissionError:
        return SubmissionError(f"the submission has more than {self.limits.max_files} files, folders and "
                               "links; leave out what the bot does not need to run")

    def _count_bytes(self, size: int) -> None:
        self.bytes += size
        if self.bytes > self.limits.max_bytes:
            raise SubmissionError(f"the submission unpacks to more than {_mib(self.limits.max_bytes)}; "
                                  "leave out what the bot does not need to run")


def _safe_parts(name: str) -> list[str]:
    """The components of an entry's relative path; SubmissionError for one that could escape."""
    if "\\" in name or "\0" in name:
        raise SubmissionError(f"entry {name!r} has a backslash or NUL in its name; use '/' between folders")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise SubmissionError(f"entry {name!r} has an absolute path; entries must be relative to the submission")
    if ".." in path.parts:
        raise SubmissionError(f"entry {name!r} climbs out with '..'; entries must stay inside the submission")
    return [part for part in path.parts if part != "."]


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):g} MiB"


# -- the three kinds of source ------------------------------------------------------------------


def _copy_folder(tree: _Tree, source: Path) -> None:
    for path in _walk(source):
        name = path.relative_to(source).as_posix()
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            tree.add_symlink(name, os.readlink(path))
        elif stat.S_ISDIR(mode):
            tree.add_dir(name)
        elif stat.S_ISREG(mode):
            with path.open("rb") as data:
                tree.add_file(name, data, executable=bool(mode & 0o111))
        else:
            raise _special(name)


def _walk(folder: Path) -> Iterator[Path]:
    """Every entry under `folder`, parents before children, links not followed, sorted."""
    for path in sorted(folder.iterdir()):
        yield path
        if path.is_dir() and not path.is_symlink():
            yield from _walk(path)


def _unpack_tar(tree: _Tree, source: Path) -> None:
    with tarfile.open(source, "r:gz") as archive:
        for member in archive:  # streamed: a huge archive is refused at the limit, not read whole
            if member.isdir():
                tree.add_dir(member.name)
            elif member.issym():
                tree.add_symlink(member.name, member.linkname)
            elif member.islnk():
                tree.add_hardlink(member.name, member.linkname)
            elif member.isreg():
                data = archive.extractfile(member)
                assert data is not None
                tree.add_file(member.name, data, executable=bool(member.mode & 0o111))
            else:
                raise _special(member.name)


def _unpack_zip(tree: _Tree, source: Path) -> None:
    with zipfile.ZipFile(source) as archive:
        if len(archive.infolist()) > tree.limits.max_files:  # known from the directory: refuse at once
            raise tree.too_many()
        for info in archive.infolist():
            mode = info.external_attr >> 16  # Unix mode bits; 0 from archivers that keep none
            if info.is_dir():
                tree.add_dir(info.filename)
            elif stat.S_ISLNK(mode):
                with archive.open(info) as data:
                    target = data.read(4096).decode(errors="replace")
                tree.add_symlink(info.filename, target)
            elif stat.S_IFMT(mode) in (0, stat.S_IFREG):
                with archive.open(info) as data:  # the real bytes are counted, not the header's claim
                    tree.add_file(info.filename, data, executable=bool(mode & 0o111))
            else:
                raise _special(info.filename)


def _special(name: str) -> SubmissionError:
    return SubmissionError(f"entry {name!r} is a device file, FIFO or socket; "
                           "a submission holds only files, folders and links")


# -- the stored tree ----------------------------------------------------------------------------


def tree_hash(folder: Path) -> str:
    """The sha256 of a file tree: every file's relative path, executable bit and content, and
    every link's target, in sorted path order (folders count only through what they hold)."""
    digest = hashlib.sha256()
    for path in _walk(folder):
        name = path.relative_to(folder).as_posix()
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            digest.update(f"L {name}\0{os.readlink(path)}\n".encode())
        elif stat.S_ISREG(mode):
            kind = "X" if mode & 0o100 else "F"
            digest.update(f"{kind} {name}\0{_file_hash(path)}\n".encode())
    return digest.hexdigest()


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as data:
        while chunk := data.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _single_folder(root: Path) -> Path:
    """The tree itself, or its only entry when that is a folder (an archive of one folder)."""
    entries = list(root.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return root


def _make_read_only(folder: Path) -> None:
    for path in [*_walk(folder), folder][::-1]:  # children before their folder
        mode = path.lstat().st_mode
        if stat.S_ISDIR(mode):
            path.chmod(0o555)
        elif stat.S_ISREG(mode):
            path.chmod(0o555 if mode & 0o100 else 0o444)


def _move(folder: Path, final: Path) -> None:
    """Put a checked tree in place; the same tree stored at the same moment by another
    submission is as good."""
    try:
        os.rename(folder, final)
    except OSError as error:
        if not final.is_dir():
            raise SubmissionError(f"cannot store the files in {final.parent} ({error.strerror})") from None


def remove_tree(path: Path) -> None:
    """Remove a stored (read-only) tree, or a staging folder with whatever is left in it."""
    if path.is_symlink() or path.is_file():
        path.unlink()
        return
    _remove(path)


def _remove(path: Path) -> None:
    """Remove a staging folder, with whatever read-only tree is left in it."""
    for folder in [path, *(p for p in path.rglob("*") if p.is_dir() and not p.is_symlink())]:
        folder.chmod(0o700)
    shutil.rmtree(path, ignore_errors=True)
