"""The wire contract: generated code matches the .proto, and the docs cover every message and game."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from engine import registry

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "arena" / "v1"
PROTOS = sorted((ROOT / "proto" / "arena" / "v1").glob("*.proto"))


def test_generated_code_matches_the_proto(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    fresh = sorted(p.name for p in (tmp_path / "arena" / "v1").iterdir())
    committed = sorted(p.name for p in GENERATED.iterdir() if p.name != "__init__.py" and p.suffix in (".py", ".pyi"))
    assert fresh == committed, "generated files differ: run scripts/gen_proto.py and commit arena/v1"
    for name in fresh:
        assert (tmp_path / "arena" / "v1" / name).read_text() == (GENERATED / name).read_text(), (
            f"arena/v1/{name} drifted from proto/: run `.venv/bin/python scripts/gen_proto.py` and commit it"
        )


def test_the_bot_kits_stubs_match_the_proto(tmp_path: Path) -> None:
    """bots/sdk/arena_sdk/v1 is bot.proto's and authors.proto's code under the kit's own package name, and current."""
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    kit = Path("bots") / "sdk" / "arena_sdk" / "v1"
    committed = sorted(p.name for p in (ROOT / kit).iterdir()
                       if p.suffix in (".py", ".pyi") and p.name != "__init__.py")
    assert committed == ["authors_pb2.py", "authors_pb2.pyi", "authors_pb2_grpc.py",
                         "bot_pb2.py", "bot_pb2.pyi", "bot_pb2_grpc.py"]
    for name in committed:
        fresh = (tmp_path / kit / name).read_text()
        assert "from arena.v1" not in fresh and not re.search(r"'arena\.v1\.\w+_pb2'", fresh), (
            "the kit never imports the arena's package")
        assert (ROOT / kit / name).read_text() == fresh, (
            f"{kit / name} drifted from proto/: run `.venv/bin/python scripts/gen_proto.py` and commit it"
        )


def test_the_protocol_doc_names_every_message_and_every_game() -> None:
    doc = (ROOT / "docs" / "protocol.md").read_text()
    for proto in PROTOS:
        for kind, name in re.findall(r"^(message|enum|service) (\w+)", proto.read_text(), re.MULTILINE):
            assert f"`{name}`" in doc, f"docs/protocol.md does not describe {kind} {name} of {proto.name}"
    for game_id in registry.game_ids():
        module = registry.GAMES[game_id].split(":")[0]
        assert f"`{game_id}`" in doc and module in doc, f"docs/protocol.md has no section for {game_id} ({module})"
