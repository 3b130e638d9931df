"""`arena check-bot --submission FOLDER --command ...`: a submission run in its sandbox, reported in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from tests.arena.gateway_fixtures import FAULT_BOT, ROOT

PYTHON_EXAMPLE = ROOT / "bots" / "examples" / "python"
GAME = "riviera"


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["check-bot", "--game", GAME, "--matches", "2", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_good_submission_passes_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = check(capsys, "--submission", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py")
    assert status == 0, out + err
    assert f"checking the submission in {PYTHON_EXAMPLE}" in out and "launched in its sandbox" in out
    assert out.count("PASS") == 5 and "FAIL" not in out
    assert "PASS  stays within its sandbox's limits (2048 MB memory" in out


def test_a_submission_over_its_memory_limit_is_told_so_with_its_output(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = check(capsys, "--submission", str(FAULT_BOT.parent), "--command",
                             f"python3 {FAULT_BOT.name} --mode hog")
    assert status == 1, out + err
    assert "FAIL  stays within its sandbox's limits" in out
    assert "FAIL  connects with its token and stays connected to the end" in out
    assert "MemoryError" in out, "what it printed when it crashed"


@pytest.mark.parametrize(("args", "message"), [
    (["--submission", "/nonexistent", "--command", "python3 bot.py"], "--submission /nonexistent: not a folder"),
    (["--submission", str(PYTHON_EXAMPLE)], "--submission needs --command"),
    ([], "give --token TOKEN (a registered bot) or --submission FOLDER"),
])
def test_bad_input_is_a_one_line_error(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    status, _, err = check(capsys, *args)
    assert status == 2
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_folder_the_sandbox_cannot_read_is_a_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700)
    folder.chmod(0o700)
    status, _, err = check(capsys, "--submission", str(folder), "--command", "python3 bot.py")
    assert status == 2
    assert f"is not readable by the sandbox's user; make it so with `chmod -R o+rX {folder}`" in err


def test_an_archive_is_checked_as_bot_submit_would_store_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import tarfile

    archive = tmp_path / "pybot.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(PYTHON_EXAMPLE, arcname="pybot")  # one top-level folder: stored as its contents
    status, out, err = check(capsys, "--submission", str(archive), "--command", "python3 random_bot.py")
    assert status == 0, out + err
    assert out.count("PASS") == 5 and "FAIL" not in out
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as tar:
        entry = tarfile.TarInfo("../outside.py")
        tar.addfile(entry)
    status, _, err = check(capsys, "--submission", str(evil), "--command", "python3 outside.py")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "outside.py" in err, err
