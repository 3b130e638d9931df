"""`arena check-bot --submission FOLDER --command ...`: a submission run in its sandbox, reported in words."""

from __future__ import annotations

import re
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


def test_a_folder_the_sandbox_cannot_read_is_a_one_line_error(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
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


def test_a_bot_that_left_is_not_reported_with_its_grace_as_an_answer_time() -> None:
    from arena.cli.check_bot import match_line
    from arena.match.record import Fault, MatchRecord, SeatOutcome, StepRecord, Termination
    from arena.outcomes import FaultKind

    leaver = SeatOutcome("leaver", Termination.DISCONNECT, "disconnected; the random bot played the rest",
                         [Fault(2, FaultKind.DISCONNECT, "disconnected")])
    steps = [StepRecord(actions={0: 1, 1: 1}, elapsed_ms={0: 3.5, 1: 0.1}),
             StepRecord(actions={0: 1, 1: 1}, elapsed_ms={0: 4.25, 1: 0.1}),
             StepRecord(actions={0: 1, 1: 1}, elapsed_ms={0: 11251.2, 1: 0.1}),  # the grace it was waited for
             StepRecord(actions={0: 1, 1: 1}, elapsed_ms={0: 0.01, 1: 0.1})]     # the random bot in its seat
    record = MatchRecord(GAME, "standard", {}, 1, [leaver, SeatOutcome("random")], steps, [0.0, 1.0], [2, 1])
    line = match_line(0, 0, record)
    assert line == ("match 1: seat 0, rank 2 of 2, 2 decisions answered, slowest answer 4.2 ms; "
                    "disconnect at step 2, the random bot played the rest"), line


def test_a_submission_that_leaves_is_told_where_and_not_given_a_slowest_answer_it_never_gave(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = check(capsys, "--submission", str(FAULT_BOT.parent), "--command",
                             f"python3 {FAULT_BOT.name} --mode disconnect --after 2")
    assert status == 1, out + err
    assert "FAIL  connects with its token and stays connected to the end" in out
    assert "PASS  answers every decision in time" in out
    line = next(line for line in out.splitlines() if line.startswith("match 1:"))
    # a launched bot that exits is recorded as a crash (its process ended), a dialled-in one as a disconnect
    assert re.fullmatch(r"match 1: seat 0, rank \d of 2, 2 decisions answered, slowest answer [\d.]+ ms; "
                        r"crash at step \d+, the random bot played the rest", line), line
