"""Each game's state lists its fields once, in its state.py (the data class that the contract's State,
in contract.py, subclasses without adding a field): FIELDS (compared and copied), DERIVED
(copied, not compared) and MEMOS (neither: empty in every copy). The compiled engine has no
`__dict__`, so the class annotations (what mypyc compiles the class with), `__slots__`, the copy
method and the equality key still name every field: these tests check, on the source, that
they name exactly these lists, and on live states that every field is set wherever a state is
made (a new game, a copy, a redraw, a rebuilt observation).
"""

from __future__ import annotations

import ast
import importlib
import random
from pathlib import Path

import pytest

import engine
from engine import registry
from engine.core import NodeKind, sample_chance

ENGINE = Path(engine.__file__).resolve().parent
# What the engine's base classes declare (engine/core.py), inherited by the game states.
BASE_ANNOTATIONS = {"State": {"num_players"}, "OneSeatLegalMemo": {"num_players", "_legal"}}


def contract_class(game_id: str) -> type:
    """The game's State (contract.py's); where the compiled engine plays a C state (Gang of Dice's
    c_state.pyx), the class of that state's reference."""
    state = registry.make(game_id, registry.info(game_id).min_players).initial_state()
    return type(state.reference() if hasattr(type(state), "reference") else state)


def state_class(game_id: str) -> type:
    """The data class: the base of the contract's State that the game's state.py defines."""
    return next(c for c in contract_class(game_id).__mro__ if c.__module__.endswith(".state"))


def class_source(cls: type) -> tuple[ast.Module, ast.ClassDef, object]:
    module = importlib.import_module(cls.__module__)
    path = ENGINE.parent.joinpath(*cls.__module__.split(".")).with_suffix(".py")
    tree = ast.parse(path.read_text(), str(path))
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    return tree, node, module


def state_source(game_id: str) -> tuple[ast.Module, ast.ClassDef, object]:
    return class_source(state_class(game_id))


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_the_contract_state_subclasses_the_data_and_adds_no_field(game_id: str) -> None:
    contract, data = contract_class(game_id), state_class(game_id)
    assert contract.__module__.endswith(".contract") and contract.__bases__ == (data,)
    _, node, _ = class_source(contract)
    declared = [ast.unparse(n) for n in node.body if isinstance(n, (ast.AnnAssign, ast.Assign))]
    assert declared in ([], ["__slots__ = ()"]), f"{contract.__name__} declares {declared}: fields belong in state.py"


def lists(module: object) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    return module.FIELDS, module.DERIVED, module.MEMOS  # type: ignore[attr-defined]


def method(cls: ast.ClassDef, *names: str) -> ast.FunctionDef:
    found = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name in names]
    assert len(found) == 1, f"{cls.name} needs exactly one of {names}"
    return found[0]


def annotations(cls: ast.ClassDef) -> set[str]:
    own = {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    inherited = set().union(*(BASE_ANNOTATIONS.get(getattr(b, "id", ""), set()) for b in cls.bases))
    return own | inherited


def copied_fields(copy: ast.FunctionDef) -> tuple[list[str], list[str]]:
    """The copy method's `new.x = self.x` (copied) and `new.x = None` (emptied) targets, in order."""
    copied, emptied = [], []
    for node in ast.walk(copy):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
            target, value = node.targets[0], node.value
            if isinstance(value, ast.Attribute) and getattr(value.value, "id", "") == "self":
                assert value.attr == target.attr, f"{target.attr} is copied from self.{value.attr}"
                copied.append(target.attr)
            elif isinstance(value, ast.Constant) and value.value is None:
                emptied.append(target.attr)
    return copied, emptied


def compared_fields(tree: ast.Module, key: ast.FunctionDef) -> list[str]:
    """The `self.x` the equality key returns, in order; or FIELDS, when it is `attrgetter(*FIELDS)`."""
    returned = next(n.value for n in ast.walk(key) if isinstance(n, ast.Return))
    if isinstance(returned, ast.Tuple):
        return [e.attr for e in returned.elts if isinstance(e, ast.Attribute) and getattr(e.value, "id", "") == "self"]
    assert isinstance(returned, ast.Call) and isinstance(returned.func, ast.Name), ast.dump(returned)
    getter = next(n.value for n in tree.body if isinstance(n, ast.Assign)
                  and [getattr(t, "id", "") for t in n.targets] == [returned.func.id])
    assert isinstance(getter, ast.Call) and getattr(getter.func, "id", "") == "attrgetter"
    starred = getter.args[0]
    assert isinstance(starred, ast.Starred) and getattr(starred.value, "id", "") == "FIELDS"
    return ["FIELDS"]


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_the_field_lists_are_disjoint_and_the_annotations_declare_exactly_them(game_id: str) -> None:
    tree, cls, module = state_source(game_id)
    fields, derived, memos = lists(module)
    every = fields + derived + memos
    assert len(set(every)) == len(every), f"a field is in two lists: {every}"
    assert annotations(cls) == set(every), (
        f"annotated, not listed: {sorted(annotations(cls) - set(every))}; "
        f"listed, not annotated: {sorted(set(every) - annotations(cls))}")
    slots = [n for n in cls.body
             if isinstance(n, ast.Assign) and [getattr(t, "id", "") for t in n.targets] == ["__slots__"]]
    if slots:
        assert ast.unparse(slots[0].value) == "FIELDS + DERIVED + MEMOS"


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_the_copy_copies_fields_and_derived_and_empties_the_memos(game_id: str) -> None:
    tree, cls, module = state_source(game_id)
    fields, derived, memos = lists(module)
    copied, emptied = copied_fields(method(cls, "_copy", "copy"))
    assert sorted(copied) == sorted(fields + derived), (
        f"not copied: {sorted(set(fields + derived) - set(copied))}; "
        f"copied, not listed: {sorted(set(copied) - set(fields + derived))}")
    assert len(copied) == len(set(copied)), "a field copied twice"
    assert sorted(emptied) == sorted(memos)


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_equality_and_hashing_compare_exactly_the_fields_in_their_order(game_id: str) -> None:
    tree, cls, module = state_source(game_id)
    fields, _, _ = lists(module)
    key = method(cls, "_values", "_key")
    compared = compared_fields(tree, key)
    assert compared == ["FIELDS"] or compared == list(fields), (
        f"not compared: {[f for f in fields if f not in compared]}; "
        f"compared, not in FIELDS: {[f for f in compared if f not in fields]}")
    eq = method(cls, "__eq__")
    used = {n.attr for n in ast.walk(eq) if isinstance(n, ast.Attribute)}
    assert used == {key.name}, f"__eq__ compares {sorted(used)}, not only {key.name}()"


def has_every_field(state: object, names: tuple[str, ...]) -> list[str]:
    return [name for name in names if not hasattr(state, name)]


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_every_way_of_making_a_state_sets_every_field(game_id: str) -> None:
    _, _, module = state_source(game_id)
    fields, derived, memos = lists(module)
    every = fields + derived + memos
    info = registry.info(game_id)
    rng = random.Random(7)
    for players in sorted({info.min_players, info.max_players}):
        game = registry.make(game_id, players)
        state = game.initial_state()
        assert has_every_field(state, every) == [], f"the new game leaves unset: {has_every_field(state, every)}"
        for step in range(400):
            if state.kind is NodeKind.TERMINAL:
                break
            if state.kind is NodeKind.CHANCE:
                state = state.apply_chance(sample_chance(state, rng))
            else:
                state = state.apply({s: rng.choice(state.legal_actions(s)) for s in state.acting_players()})
            assert has_every_field(state, every) == [], f"step {step} leaves unset: {has_every_field(state, every)}"
            if step % 50 == 0:
                for made in (state.resample({0}, rng), game.sample_state(state.observation(0), rng)):
                    assert has_every_field(made, every) == [], has_every_field(made, every)
