"""Regenerate the Python protocol code in arena/v1 from proto/arena/v1/*.proto.

    .venv/bin/python scripts/gen_proto.py              # writes arena/v1/*_pb2*.py[i]
    .venv/bin/python scripts/gen_proto.py --out DIR    # writes DIR/arena/v1/... (the drift test)

Uses the protoc bundled in grpcio-tools (not the system one), so the output only depends on the
pinned grpcio-tools version. tests/arena/test_protocol.py fails when the committed code drifts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"


def proto_files() -> list[Path]:
    """The .proto sources, relative to proto/ (so generated imports follow the package path)."""
    return sorted(p.relative_to(PROTO_ROOT) for p in (PROTO_ROOT / "arena" / "v1").glob("*.proto"))


def generate(out: Path) -> None:
    """Write the _pb2, _pb2_grpc and .pyi files for every proto under `out`."""
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *[str(path) for path in proto_files()],
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed (see the message above)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT, help="output root (default: the repository)")
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    generate(out)
    print(f"generated {len(proto_files())} protos into {out / 'arena' / 'v1'}", file=sys.stderr)


if __name__ == "__main__":
    main()
