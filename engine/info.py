"""Static facts about a game (`GameInfo`), its options (`OptionSpec`) and their checks; the
mypyc class flags. Part of the engine contract: engine.core re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

try:  # mypyc reads the class flags below (engine.implementation); the Python sources need no mypy
    from mypy_extensions import mypyc_attr as mypyc_attr
except ImportError:  # pragma: no cover - only without mypy installed
    def mypyc_attr(*_flags: object, **_named: object) -> Any:  # type: ignore[misc]
        return lambda cls: cls


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class OptionSpec:
    """One engine option: its default, the values it may take, and what it means."""

    default: Any
    choices: tuple[Any, ...]
    doc: str = ""


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game, the same for every configuration of it."""

    id: str
    name: str
    version: str  # ruleset version; ratings are kept per version
    min_players: int
    max_players: int
    simultaneous: bool  # some decision nodes have several acting seats
    hidden_info: bool  # some seat knows something another seat does not
    num_actions: int  # action ids lie in range(num_actions)
    max_decisions: int  # no game has more decision nodes than this
    options: Mapping[str, OptionSpec] = field(default_factory=dict)


def check_player_count(info: GameInfo, num_players: object) -> int:
    """Return `num_players` if the game allows it, else raise a ValueError naming the range."""
    valid = isinstance(num_players, int) and not isinstance(num_players, bool)
    if not valid or not info.min_players <= num_players <= info.max_players:  # type: ignore[operator]
        raise ValueError(
            f"{info.id} is played by {info.min_players} to {info.max_players} players, "
            f"not {num_players!r}"
        )
    return num_players  # type: ignore[return-value]


def resolve_options(info: GameInfo, given: Mapping[str, Any]) -> dict[str, Any]:
    """All options of the game with defaults filled in; unknown names or values raise ValueError."""
    unknown = sorted(set(given) - set(info.options))
    if unknown:
        valid = ", ".join(sorted(info.options)) or "none"
        raise ValueError(f"{info.id} has no option {unknown[0]!r}; valid options: {valid}")
    resolved = {name: spec.default for name, spec in info.options.items()}
    for name, value in given.items():
        choices = info.options[name].choices
        if value not in choices or type(value) is not type(info.options[name].default):
            shown = ", ".join(repr(choice) for choice in choices)
            raise ValueError(f"{info.id} option {name}={value!r} is not valid; choose one of: {shown}")
        resolved[name] = value
    return resolved
