"""Write the bot kit's copy of the TLS diagnosis: bots/sdk/arena_sdk/tls_probe.py from arena/link/tls_probe.py.

The kit is a distribution of its own (grpcio and protobuf only) and cannot import the arena, so
it carries this copy; tests/test_architecture.py fails when the copy is not what this script
writes. Edit arena/link/tls_probe.py, then run `.venv/bin/python scripts/copy_tls_probe.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "arena" / "link" / "tls_probe.py"
COPY = ROOT / "bots" / "sdk" / "arena_sdk" / "tls_probe.py"
HEADER = "# Generated from arena/link/tls_probe.py by scripts/copy_tls_probe.py: edit that file, then run the script.\n"


def kit_copy(source: str) -> str:
    """The kit's module: the arena's, under a line that says where it comes from."""
    return HEADER + source


def main() -> int:
    COPY.write_text(kit_copy(SOURCE.read_text()))
    print(f"wrote {COPY.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
