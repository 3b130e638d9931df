"""Remote submission: a large archive sent with `arena-bot submit` to a real `arena serve` on loopback.

    .venv/bin/python bench/author_submission.py [--mb 50] [--runs 3]

Makes an archive of `--mb` MB of random bytes (incompressible, so the archive is as large as its
contents), starts `arena serve --port 0` in a temporary folder, adds an author, then submits the
archive `--runs` times (each a new version) with the `arena-bot` command line as a process of its
own. Prints the wall time of each submission (the CLI's start-up included) and the gateway's peak
resident memory growth during it: /proc/PID/clear_refs resets the peak (VmHWM) before each run,
and the growth is VmHWM after it minus VmRSS before. Plaintext first, then the same over TLS
(`arena serve --tls-cert/--tls-key`, `arena-bot --ca`; a test certificate made with openssl).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))

from tests.arena.tls_fixtures import make_certificates  # noqa: E402 - the test certificate of docs/tls.md


def memory_kb(pid: int, field: str) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M).group(1))  # type: ignore[union-attr]


def make_archive(path: Path, megabytes: int) -> None:
    with tarfile.open(path, "w:gz", compresslevel=1) as archive:
        data = os.urandom(megabytes * 1_000_000)
        info = tarfile.TarInfo("payload.bin")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
        script = b"print('hi')\n"
        info = tarfile.TarInfo("bot.py")
        info.size = len(script)
        archive.addfile(info, io.BytesIO(script))


def start_gateway(folder: Path, env: dict[str, str], tls: list[str]) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen([str(BIN / "arena"), "serve", "--port", "0", "--log-level", "warning", *tls],
                              cwd=folder, env=env, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    found = re.search(r"listening on ([^\s,]+)", line)
    if found is None:
        server.kill()
        raise SystemExit(f"the gateway did not start: {line!r}")
    return server, found.group(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for over_tls in (False, True):  # side by side in one run
        measure(args.mb, args.runs, over_tls)


def measure(megabytes: int, runs: int, over_tls: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as temp:
        folder = Path(temp)
        env = {**os.environ, "ARENA_DB": f"sqlite:///{folder / 'arena.db'}", "ARENA_HOST_KEY": "bench",
               "ARENA_SUBMISSIONS": str(folder / "submissions")}
        archive = folder / "bot.tar.gz"
        make_archive(archive, megabytes)
        add = subprocess.run([str(BIN / "arena"), "author", "add", "bench"], env=env, capture_output=True, text=True,
                             check=True)
        key = folder / "author.key"
        key.write_text(next(line for line in add.stdout.splitlines() if line.startswith("arena_author_")))
        key.chmod(0o600)
        tls, client_tls = [], []
        if over_tls:  # the certificates docs/tls.md makes for a test
            files = make_certificates(folder)
            tls, client_tls = ["--tls-cert", str(files.cert), "--tls-key", str(files.key)], ["--ca", str(files.ca)]
        server, address = start_gateway(folder, env, tls)
        try:
            over = "TLS" if over_tls else "plaintext"
            print(f"archive {archive.stat().st_size / 1e6:.1f} MB; gateway pid {server.pid} at {address} ({over})")
            for run in range(runs):
                Path(f"/proc/{server.pid}/clear_refs").write_text("5")  # reset the peak (VmHWM) to now
                before = memory_kb(server.pid, "VmRSS")
                start = time.perf_counter()
                subprocess.run([str(BIN / "arena-bot"), "--server", address, "--key-file", str(key), *client_tls,
                                "submit", "big", str(archive), "--command", "python3 bot.py"],
                               check=True, capture_output=True)
                seconds = time.perf_counter() - start
                growth = (memory_kb(server.pid, "VmHWM") - before) / 1024
                print(f"run {run + 1}: {seconds:.2f} s ({archive.stat().st_size / 1e6 / seconds:.0f} MB/s), "
                      f"gateway peak RSS growth {growth:.1f} MiB (RSS before {before / 1024:.0f} MiB)")
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
