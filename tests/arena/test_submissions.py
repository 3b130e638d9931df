"""Stored submissions: content-addressed, read-only, and hostile archives refused with nothing left behind."""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.submissions import Limits, SubmissionError, store_submission, tree_hash

SMALL = Limits(max_files=50, max_bytes=64 * 1024)


def make_tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def entry(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, mode
    return info


def make_zip(path: Path, files: dict[str, bytes], modes: dict[str, int] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (modes or {}).get(name, stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
    return path


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.js").write_text("console.log('hi')\n")
    (folder / "run.sh").write_text("#!/bin/sh\nnode bot.js\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "lib" / "util.js").write_text("module.exports = 1\n")
    os.symlink("lib/util.js", folder / "util.js")
    return folder


def only_staging_left(root: Path) -> bool:
    return not [p for p in root.iterdir()] if root.exists() else True


def test_a_folder_is_stored_read_only_under_its_tree_hash(tmp_path: Path) -> None:
    root, folder = tmp_path / "submissions", bot_folder(tmp_path)
    stored = store_submission(folder, root)
    assert stored.folder == root.resolve() / stored.sha256
    assert stored.sha256 == tree_hash(folder) == tree_hash(stored.folder)
    assert (stored.folder / "lib" / "util.js").read_text() == "module.exports = 1\n"
    assert os.readlink(stored.folder / "util.js") == "lib/util.js"
    assert stat.S_IMODE((stored.folder / "run.sh").stat().st_mode) == 0o555
    assert stat.S_IMODE((stored.folder / "bot.js").stat().st_mode) == 0o444
    assert stat.S_IMODE(stored.folder.stat().st_mode) == 0o555
    assert sorted(p.name for p in root.iterdir()) == [stored.sha256]  # no staging left


def test_the_same_files_are_stored_once_and_any_change_is_a_new_hash(tmp_path: Path) -> None:
    root = tmp_path / "submissions"
    folder = bot_folder(tmp_path)
    first = store_submission(folder, root)
    assert store_submission(folder, root) == first
    (tmp_path / "bot" / "bot.js").chmod(0o755)  # only the executable bit changes
    assert store_submission(tmp_path / "bot", root).sha256 != first.sha256
    assert len(list(root.iterdir())) == 2


def test_a_tar_gz_and_a_zip_of_one_folder_store_its_contents(tmp_path: Path) -> None:
    root = tmp_path / "submissions"
    folder = bot_folder(tmp_path)
    with tarfile.open(tmp_path / "bot.tar.gz", "w:gz") as archive:
        archive.add(folder, arcname="mybot")
    zipped = make_zip(tmp_path / "bot.zip", {"bot.js": b"console.log('hi')\n", "run.sh": b"#!/bin/sh\n"},
                      {"run.sh": stat.S_IFREG | 0o755})
    assert store_submission(tmp_path / "bot.tar.gz", root).sha256 == tree_hash(folder)
    from_zip = store_submission(zipped, root)
    assert (from_zip.folder / "run.sh").stat().st_mode & 0o111


@pytest.mark.parametrize("members, message", [
    ([(entry("../evil.js"), b"x")], "climbs out with '..'"),
    ([(entry("ok/../../evil.js"), b"x")], "climbs out with '..'"),
    ([(entry("/tmp/evil.js"), b"x")], "absolute path"),
    ([(entry("up", tarfile.SYMTYPE, "../../etc/passwd"), None)], "points outside"),
    ([(entry("abs", tarfile.SYMTYPE, "/etc/passwd"), None)], "points outside"),
    ([(entry("d", tarfile.SYMTYPE, "."), None), (entry("e", tarfile.SYMTYPE, "d/.."), None)], "points outside"),
    ([(entry("hard", tarfile.LNKTYPE, "/etc/passwd"), None)], "absolute path"),
    ([(entry("hard", tarfile.LNKTYPE, "../outside"), None)], "climbs out"),
    ([(entry("hard", tarfile.LNKTYPE, "missing.js"), None)], "does not point to a file earlier"),
    ([(entry("dev", tarfile.CHRTYPE), None)], "device file"),
    ([(entry("fifo", tarfile.FIFOTYPE), None)], "device file"),
    ([(entry("link", tarfile.SYMTYPE, "."), None), (entry("link/x.js"), b"x")], "which is not a folder"),
    ([(entry("a.js"), b"1"), (entry("a.js"), b"2")], "appears twice"),
])
def test_a_hostile_tar_is_refused_and_leaves_nothing(
    tmp_path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], message: str,
) -> None:
    root = tmp_path / "submissions"
    archive = make_tar(tmp_path / "bot.tar.gz", [(entry("bot.js"), b"ok"), *members])
    with pytest.raises(SubmissionError, match=message) as refused:
        store_submission(archive, root, SMALL)
    assert "\n" not in str(refused.value)
    assert only_staging_left(root)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.tar.gz", "submissions"]


def test_a_hard_link_inside_the_archive_is_stored_as_a_copy(tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "bot.tar.gz", [(entry("bot.js"), b"ok"),
                                                 (entry("copy.js", tarfile.LNKTYPE, "bot.js"), None)])
    stored = store_submission(archive, tmp_path / "submissions", SMALL)
    assert (stored.folder / "copy.js").read_bytes() == b"ok"


def test_a_zip_bomb_stops_at_the_size_limit_whatever_its_header_says(tmp_path: Path) -> None:
    bomb = make_zip(tmp_path / "bomb.zip", {"zeros.bin": bytes(10 * 1024 * 1024)})
    assert bomb.stat().st_size < 100 * 1024
    root = tmp_path / "submissions"
    with pytest.raises(SubmissionError, match=r"unpacks to more than 0.0625 MiB"):
        store_submission(bomb, root, SMALL)
    assert only_staging_left(root)


def test_a_tar_with_too_many_files_or_bytes_is_refused(tmp_path: Path) -> None:
    many = make_tar(tmp_path / "many.tar.gz", [(entry(f"f{i}.js"), b"") for i in range(51)])
    with pytest.raises(SubmissionError, match="more than 50 files"):
        store_submission(many, tmp_path / "submissions", SMALL)
    big = make_tar(tmp_path / "big.tar.gz", [(entry(f"f{i}.bin"), bytes(20_000)) for i in range(4)])
    with pytest.raises(SubmissionError, match="unpacks to more than"):
        store_submission(big, tmp_path / "submissions", SMALL)
    assert only_staging_left(tmp_path / "submissions")


@pytest.mark.parametrize("name, mode, message", [
    ("../evil.js", stat.S_IFREG | 0o644, "climbs out"),
    ("/abs.js", stat.S_IFREG | 0o644, "absolute path"),
    ("link", stat.S_IFLNK | 0o777, "points outside"),
    ("nul-link", stat.S_IFLNK | 0o777, "points outside"),
    ("dev", stat.S_IFCHR | 0o644, "device file"),
])
def test_a_hostile_zip_is_refused(tmp_path: Path, name: str, mode: int, message: str) -> None:
    target = b"ok\0/etc/passwd" if name == "nul-link" else b"/etc/passwd"
    archive = make_zip(tmp_path / "bot.zip", {"bot.js": b"ok", name: target}, {name: mode})
    with pytest.raises(SubmissionError, match=message):
        store_submission(archive, tmp_path / "submissions", SMALL)
    assert only_staging_left(tmp_path / "submissions")


def test_a_zip_with_too_many_entries_is_refused_from_its_directory(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "many.zip", {f"f{i}": b"" for i in range(51)})
    with pytest.raises(SubmissionError, match="more than 50 files"):
        store_submission(archive, tmp_path / "submissions", SMALL)


def test_a_folder_with_a_link_out_or_a_fifo_is_refused(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path)
    os.symlink("/etc", folder / "etc")
    with pytest.raises(SubmissionError, match="'etc' -> '/etc' points outside"):
        store_submission(folder, tmp_path / "submissions")
    (folder / "etc").unlink()
    os.mkfifo(folder / "pipe")
    with pytest.raises(SubmissionError, match="'pipe' is a device file, FIFO or socket"):
        store_submission(folder, tmp_path / "submissions")


def test_other_paths_are_refused_with_what_is_valid(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match=r"does not exist; give a folder or a \.tar\.gz"):
        store_submission(tmp_path / "missing.zip", tmp_path / "submissions")
    (tmp_path / "bot.rar").write_bytes(b"Rar!")
    with pytest.raises(SubmissionError, match="neither a folder nor an archive"):
        store_submission(tmp_path / "bot.rar", tmp_path / "submissions")
    (tmp_path / "broken.zip").write_bytes(b"not a zip")
    with pytest.raises(SubmissionError, match="is not a readable archive"):
        store_submission(tmp_path / "broken.zip", tmp_path / "submissions")


def test_the_same_tree_stored_at_the_same_moment_by_another_submission_is_taken(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root, folder = tmp_path / "submissions", bot_folder(tmp_path)
    other = store_submission(folder, tmp_path / "other")
    rename = os.rename

    def race(source: Path, target: Path) -> None:  # the other submission got there first
        shutil.copytree(other.folder, target, symlinks=True)
        rename(source, target)

    monkeypatch.setattr(os, "rename", race)
    stored = store_submission(folder, root)
    assert tree_hash(stored.folder) == stored.sha256
    assert sorted(p.name for p in root.iterdir()) == [stored.sha256], "the staging folder is gone too"
