"""gRPC's own log lines, through the arena's logger, escaped — and the arena's lines escaped too.

gRPC's C core writes its log records straight to file descriptor 2, and some of them carry bytes
that an unauthenticated peer chose (a GOAWAY frame's debug text, with control characters and
line breaks). `capture_native_log()` points fd 2 at a pipe and reads it on a thread: whatever
gRPC writes in one go becomes one record of the logger `grpc`, with every character that is not
printable escaped (`\\x1b`, `\\r\\n`), so a peer can neither drive the terminal nor start a log line
of its own. Python's own stderr (sys.stderr: logging, tracebacks) stays on the original fd 2.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading

ABSL_PREFIX = re.compile(r"([IWEF])\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ ")  # I1201 08:46:02.758337   11018 file.cc:12]
LEVELS = {"I": logging.INFO, "W": logging.WARNING, "E": logging.ERROR, "F": logging.CRITICAL}
MAX_RECORD = 16 * 1024  # characters of one native record that are kept; the rest is counted


def escape(text: str) -> str:
    """`text` with every non-printable character (control characters, line breaks) as an escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class EscapingFormatter(logging.Formatter):
    """A Formatter whose messages are escaped (arguments may hold what a bot sent)."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        record.message = escape(record.message)
        return super().formatMessage(record)


def capture_native_log(logger: logging.Logger | None = None) -> None:
    """Send what is written to fd 2 (gRPC's C core) to `logger` (default `grpc`), escaped."""
    saved = os.dup(2)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)
    sys.stderr = open(saved, "w", buffering=1, encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
    target = logger or logging.getLogger("grpc")
    threading.Thread(target=_forward, args=(read_end, target), name="grpc-native-log", daemon=True).start()


def _forward(read_end: int, logger: logging.Logger) -> None:
    """One record per write of the C core (it writes each record at once): never split a record
    on the line breaks inside it, which is where a peer's text would start a forged line."""
    pending = b""
    while chunk := os.read(read_end, 65536):
        pending += chunk
        if pending.endswith(b"\n") or len(pending) > MAX_RECORD:
            log_native(logger, pending.decode("utf-8", errors="backslashreplace"))
            pending = b""


def log_native(logger: logging.Logger, text: str) -> None:
    """Log one native record: its absl prefix gives the level; the arena's formatter adds the time."""
    text = text.removesuffix("\n")
    level = logging.WARNING
    if prefix := ABSL_PREFIX.match(text):
        level, text = LEVELS[prefix.group(1)], text[prefix.end():]
    if len(text) > MAX_RECORD:
        text = f"{text[:MAX_RECORD]}... ({len(text) - MAX_RECORD} more characters)"
    logger.log(level, "%s", escape(text))
