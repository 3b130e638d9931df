"""One exception root and named outcomes, checked on arena/ and dashboards/.

Every exception class they define derives from `ArenaError` (arena/errors.py), found by importing
every module. No bare termination or status word is left in their source: each is a member of an
enum of arena/outcomes.py (or the live page's `LiveStatus`), found on the syntax tree.
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from arena import outcomes
from arena.errors import ArenaError, StoreError, UsageError
from dashboards.live import LiveStatus

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("arena", "dashboards")
# generated protobuf code, and Alembic's scripts (env.py runs a migration when imported; a
# migration is frozen as written, so it keeps its own literals)
SKIPPED = ("arena.v1", "arena.store.migrations")
VOCABULARIES: tuple[type[enum.StrEnum], ...] = (
    outcomes.Termination, outcomes.FaultKind, outcomes.MatchStatus, outcomes.TournamentStatus, outcomes.Verdict,
    LiveStatus,
)
# the same word naming something else: (file, a piece of its line)
OTHER_MEANINGS = {
    ("arena/store/aggregates.py", "_upsert("),  # the stats tables' columns `finished` and `aborted`
}


def modules() -> Iterator[ModuleType]:
    for package in PACKAGES:
        yield importlib.import_module(package)
        for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            if not info.name.startswith(SKIPPED) and not info.name.endswith(".__main__"):  # that runs the command
                yield importlib.import_module(info.name)


def test_every_exception_class_of_arena_and_dashboards_derives_from_arena_error() -> None:
    found, outside = [], []
    for module in modules():
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__ and issubclass(value, BaseException):
                found.append(value)
                if not issubclass(value, ArenaError):
                    outside.append(f"{module.__name__}.{name} ({', '.join(b.__name__ for b in value.__bases__)})")
    assert not outside, f"exception classes outside ArenaError: {outside}"
    assert len(found) > 25, "the walk found the exception classes"


@pytest.mark.parametrize(("error", "base"), [
    ("arena.errors:StoreError", UsageError),
    ("arena.submissions:SubmissionError", UsageError),
    ("arena.tournament.driver:GatewayGone", UsageError),
    ("arena.gateway.sessions:Revoked", "arena.gateway.sessions:BotFault"),
    ("arena.gateway.authoring:NotYours", "arena.gateway.authoring:AuthorError"),
])
def test_the_errors_that_callers_catch_by_their_base_keep_it(error: str, base: type | str) -> None:
    """The CLI catches UsageError (exit status 2, one line); the gateway catches BotFault and AuthorError."""
    assert issubclass(_load(error), base if isinstance(base, type) else _load(base))
    assert issubclass(StoreError, ArenaError)


def _load(spec: str) -> type:
    module, _, name = spec.partition(":")
    found = getattr(importlib.import_module(module), name)
    assert isinstance(found, type)
    return found


def test_each_fault_kind_is_the_termination_of_a_seat_forfeited_for_it() -> None:
    for kind in outcomes.FaultKind:
        assert outcomes.Termination(kind).name == kind.name
    assert set(outcomes.Termination) - set(map(outcomes.Termination, outcomes.FaultKind)) == {
        outcomes.Termination.NORMAL, outcomes.Termination.ABORTED}


def test_a_member_is_its_stored_string() -> None:
    """What keeps the database, the records and the JSON unchanged: equal, hashed and written alike."""
    import json

    for vocabulary in VOCABULARIES:
        for member in vocabulary:
            assert member == member.value and hash(member) == hash(member.value)
            assert json.dumps({member: member}) == json.dumps({member.value: member.value})
            assert f"{member}" == str(member) == member.value


def test_no_termination_or_status_word_is_written_out_in_arena_or_dashboards() -> None:
    """A bare "crash" or "running" compared, tested with `in`, assigned, passed or listed as a choice
    would drift from the enums unseen. The one use left is a field name of a JSON object (a key, a
    subscript, `.get("aborted")`): it names a field, not a value."""
    words = {member.value for vocabulary in VOCABULARIES for member in vocabulary}
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.replace("/", ".").startswith(SKIPPED):
                continue
            source = path.read_text()
            lines = source.splitlines()
            for node in bare_words(ast.parse(source, filename=rel), words):
                if not any(rel == file and piece in lines[node.lineno - 1] for file, piece in OTHER_MEANINGS):
                    found.append(f"{rel}:{node.lineno}: {node.value!r}")
    assert not found, "use the enum member (arena/outcomes.py) instead of the word:\n" + "\n".join(found)


def bare_words(tree: ast.AST, words: set[str]) -> list[ast.Constant]:
    """The string constants in `words`, but an enum's member values and field names."""
    exempt: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(_name(base).endswith("StrEnum") for base in node.bases):
            exempt.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.Dict):
            exempt.update(id(key) for key in node.keys if key is not None)
        elif isinstance(node, ast.Subscript):
            exempt.add(id(node.slice))
        elif isinstance(node, ast.Call) and _name(node.func).split(".")[-1] in ("get", "pop") and node.args:
            exempt.add(id(node.args[0]))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value in words and id(node) not in exempt]


def _name(node: ast.expr) -> str:
    return ast.unparse(node)
