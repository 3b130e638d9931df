"""docs/architecture.md names only what exists: every backticked path, module, class, function and
method it names is found in the code, so a rename or a removal that forgets the map fails here.

What a backticked span is read as (anything else, such as a command line with its options, an
environment variable or a placeholder like `engine/<game>/`, is prose and is not checked):

- a path (`arena/match/runner.py`, `arena/cli/`, `proto/arena/v1/*.proto`): from the repository's
  root; a bare file name (`state.py`) exists somewhere in the project;
- `arena COMMAND ...`: a sub-command of the `arena` command;
- `module.Name`, `Class.method`: `Name` defined at the top of a module named `module`, or
  `method` defined in the body of a class named `Class`; `package.module` a module;
- `function()`, `Class(...)`, `Name`: defined somewhere (a function, class, method or assigned
  name), or a module; in a row of a table that names a room (`arena/launch/`), a bare lower-case
  name is a module of that room, a name defined in it, or one of the four packages.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = ("engine", "bots", "arena", "dashboards")
SOURCES = (*PACKAGES, "tests", "scripts", "bench")
# Named in backticks, but not in Python: the reason for each
OUTSIDE_PYTHON = {
    "TYPE_CHECKING": "typing's flag",
    "mybot": "the example's bot",
    "slow": "the pytest marker (pyproject.toml)",
    "live_match": "a table of the database (arena/store/tables.py)",
    "game_renderer": "a Jinja macro (dashboards/templates/macros.html)",
}
PROSE = re.compile(r"[\s<>$=@\"'\[\]{},]|\.\.\.|^-")  # a command line, a variable, a placeholder
PATH = re.compile(r"[\w.*/-]*/[\w.*/-]*|[\w-]+\.(py|md|toml|json|js|css|html|gz|proto)")
CALL = re.compile(r"\((.*)\)$")


@dataclass
class Code:
    """The names the project's Python defines: by module, by class, and all of them."""

    modules: dict[str, list[Path]] = field(default_factory=lambda: defaultdict(list))  # "runner" -> its files
    top_level: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # module stem -> names
    members: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # class -> its names
    defined: set[str] = field(default_factory=set)
    by_file: dict[Path, set[str]] = field(default_factory=dict)

    def add(self, path: Path) -> None:
        stem = path.parent.name if path.name == "__init__.py" else path.stem
        self.modules[stem].append(path)
        names: set[str] = set()
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self.members[node.name].update(assigned(node.body))
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
        top = assigned(tree.body)
        self.top_level[stem].update(top)
        self.by_file[path] = names | top
        self.defined.update(names | top)

    def add_cython(self, path: Path) -> None:
        """A Cython module (a game's C state): its classes and functions, read by pattern (ast
        cannot parse it)."""
        self.modules[path.stem].append(path)
        names = set(CYTHON_DEFINITION.findall(path.read_text()))
        self.by_file[path] = names
        self.defined.update(names)


CYTHON_DEFINITION = re.compile(r"^\s*(?:cdef |cpdef )?(?:class|def) (\w+)", re.MULTILINE)


def assigned(body: list[ast.stmt]) -> set[str]:
    """The names a module's or a class's body defines: functions, classes, assignments."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def the_code() -> Code:
    code = Code()
    for folder in SOURCES:
        for path in (ROOT / folder).rglob("*.py"):
            if "node_modules" not in path.parts:
                code.add(path)
        for path in (ROOT / folder).rglob("*.pyx"):
            code.add_cython(path)
    return code


def sub_commands() -> set[str]:
    from arena.cli.commands import build_parser

    parser = build_parser()
    [subparsers] = [a for a in parser._actions if a.dest == "command"]  # noqa: SLF001 - argparse keeps them here
    return set(subparsers.choices)  # type: ignore[arg-type]


def spans(text: str) -> list[tuple[str, str | None]]:
    """Each backticked span outside code blocks, with the room its table row names (or None)."""
    found = []
    for line in re.sub(r"```.*?```", "", text, flags=re.S).splitlines():
        names = re.findall(r"`([^`\n]+)`", line)
        rooms = [n for n in names if n.endswith("/") and line.startswith("|")]
        found += [(name, rooms[0] if rooms else None) for name in names]
    return found


def missing(span: str, room: str | None, code: Code, commands: set[str]) -> str | None:
    """Why `span` names nothing that exists; None when it does (or is prose)."""
    if span.startswith("arena "):
        return None if span.split()[1] in commands else f"`{span}`: no such sub-command of `arena`"
    name = CALL.sub("", span)
    if PROSE.search(name) or name in OUTSIDE_PYTHON or re.fullmatch(r"__\w+__", name):
        return None
    if PATH.fullmatch(name):
        return None if _path_exists(name, code) else f"`{span}`: no such file or folder"
    if not re.fullmatch(r"[A-Za-z_]\w*(\.\w+)*", name):
        return f"`{span}`: not a path, a command or a Python name; write it as one (or leave it out of backticks)"
    if "." in name:
        return None if _dotted_exists(name, code) else f"`{span}`: no such module, module.Name or Class.method"
    if room is not None and name.islower() and name not in PACKAGES:
        folder = ROOT / room
        in_room = [p for p in code.by_file if folder in p.parents]
        found = (folder / f"{name}.py").exists() or (folder / name).is_dir() or any(
            name in code.by_file[p] for p in in_room)
        return None if found else f"`{span}`: neither a module of {room} nor a name defined in it"
    return None if name in code.defined or name in code.modules else f"`{span}`: defined nowhere"


def _path_exists(name: str, code: Code) -> bool:
    if "/" not in name:
        return any(p.name == name for paths in code.modules.values() for p in paths) or (ROOT / name).exists()
    return any(ROOT.glob(name.rstrip("/"))) if "*" in name else (ROOT / name).exists()


def _dotted_exists(name: str, code: Code) -> bool:
    parts = name.split(".")
    if parts[0] in sys.stdlib_module_names:
        return True
    as_module = ROOT.joinpath(*parts)
    if as_module.with_suffix(".py").exists() or (as_module / "__init__.py").exists():
        return True
    owner, attribute = parts[-2], parts[-1]
    return attribute in code.members.get(owner, set()) or attribute in code.top_level.get(owner, set())


def test_every_name_in_the_architecture_page_exists() -> None:
    code, commands = the_code(), sub_commands()
    problems = [why for span, room in spans(DOC.read_text()) if (why := missing(span, room, code, commands))]
    assert not problems, "docs/architecture.md names what the code lacks:\n" + "\n".join(problems)


def test_a_misspelt_or_removed_name_is_found() -> None:
    code, commands = the_code(), sub_commands()
    page = ("| 1 | `arena/launch/` | `launcher`, `sandbox`, `catapult` |\n"
            "`Store.record_matches`, `Store.store_match`, `run_match`, `run_matchez()`, `arena/match/runner.py`, "
            "`arena/match/runer.py`, `arena/store/`, `arena/stores/`, `arena tournament run --game x`, "
            "`arena tourney`, `hidden.sample_state`, `hidden.sample_states`, `engine/<game>/`, `$ARENA_DB`\n")
    problems = [span for span, room in spans(page) if missing(span, room, code, commands)]
    assert problems == ["catapult", "Store.store_match", "run_matchez()", "arena/match/runer.py", "arena/stores/",
                        "arena tourney", "hidden.sample_states"]
