"""Regenerate the Python protocol code in arena/v1 from proto/arena/v1/*.proto, and the bot kit's copy.

    .venv/bin/python scripts/gen_proto.py              # writes arena/v1/*_pb2*.py[i] and bots/sdk/arena_sdk/v1/
    .venv/bin/python scripts/gen_proto.py --out DIR    # writes DIR/arena/v1/... (the drift test)

The stand-alone bot kit (bots/sdk, the `arena_sdk` package) carries its own stubs of bot.proto and
authors.proto in `arena_sdk/v1`, so it needs nothing of the arena: the same generated code with its imports and
module names moved from `arena.v1` to `arena_sdk.v1`. The descriptors (files arena/v1/bot.proto
and authors.proto, package arena.v1) are the very same, so both can be imported in one process.

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


SDK_STUBS = Path("bots") / "sdk" / "arena_sdk" / "v1"
# bot.proto for bots; authors.proto for the author's command line (arena_sdk/author_cli.py)
SDK_PROTOS = ("bot", "authors")
SDK_FILES = tuple(f"{proto}{suffix}" for proto in SDK_PROTOS for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py"))


def generate_sdk(out: Path) -> None:
    """The kit's stubs under `out`/bots/sdk/arena_sdk/v1: arena/v1's bot and authors stubs, renamed to arena_sdk.v1."""
    (out / SDK_STUBS).mkdir(parents=True, exist_ok=True)
    for name in SDK_FILES:
        text = (out / "arena" / "v1" / name).read_text().replace("from arena.v1 import", "from arena_sdk.v1 import")
        for proto in SDK_PROTOS:
            text = text.replace(f"'arena.v1.{proto}_pb2'", f"'arena_sdk.v1.{proto}_pb2'")
        (out / SDK_STUBS / name).write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT, help="output root (default: the repository)")
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    generate(out)
    generate_sdk(out)
    print(f"generated {len(proto_files())} protos into {out / 'arena' / 'v1'}", file=sys.stderr)


if __name__ == "__main__":
    main()
