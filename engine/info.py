"""Static facts about a game (`GameInfo`), its options (`OptionSpec`) and their checks; the
engine's errors; the mypyc class flags. Part of the engine contract: engine.core re-exports every
name here (the errors live here, below core, because the option checks raise them).
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


# -- the engine's errors: one root, each also the builtin error its callers caught before ------
# Plain classes when compiled: mypyc's native classes have one base, these have two.


@mypyc_attr(native_class=False)
class EngineError(Exception):
    """The root of every error the engine raises on bad input: `except EngineError` catches them all."""


@mypyc_attr(native_class=False)
class UnknownGameError(EngineError, KeyError):
    """A game id the registry does not know."""


@mypyc_attr(native_class=False)
class PlayerCountError(EngineError, ValueError):
    """A player count the game is not played with."""


@mypyc_attr(native_class=False)
class InvalidOptionError(EngineError, ValueError):
    """An option the game does not have, or a value it does not allow (alone or with the others)."""


@mypyc_attr(native_class=False)
class UnknownActionError(EngineError, ValueError):
    """An action id outside the game's range(num_actions), asked for its label."""


@mypyc_attr(native_class=False)
class IllegalActionError(EngineError, ValueError):
    """An action, chance outcome or seat that the rules do not allow at this node."""


@mypyc_attr(native_class=False)
class WrongNodeError(IllegalActionError):
    """A method asked of a node of the wrong kind (apply at a CHANCE node, returns before the end)."""


@mypyc_attr(native_class=False)
class IllegalChanceOutcomeError(IllegalActionError):
    """A chance outcome that is not possible at this CHANCE node."""


@mypyc_attr(native_class=False)
class InvalidSeatError(IllegalActionError):
    """A seat that does not exist in this game (an observation or legal actions of seat 7 of 4)."""


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
    """Return `num_players` if the game allows it, else raise a PlayerCountError naming the range."""
    valid = isinstance(num_players, int) and not isinstance(num_players, bool)
    if not valid or not info.min_players <= num_players <= info.max_players:  # type: ignore[operator]
        raise PlayerCountError(
            f"{info.id} is played by {info.min_players} to {info.max_players} players, "
            f"not {num_players!r}"
        )
    return num_players  # type: ignore[return-value]


def resolve_options(info: GameInfo, given: Mapping[str, Any]) -> dict[str, Any]:
    """All options of the game with defaults filled in; unknown names or values raise InvalidOptionError."""
    unknown = sorted(set(given) - set(info.options))
    if unknown:
        valid = ", ".join(sorted(info.options)) or "none"
        raise InvalidOptionError(f"{info.id} has no option {unknown[0]!r}; valid options: {valid}")
    resolved = {name: spec.default for name, spec in info.options.items()}
    for name, value in given.items():
        choices = info.options[name].choices
        if value not in choices or type(value) is not type(info.options[name].default):
            shown = ", ".join(repr(choice) for choice in choices)
            raise InvalidOptionError(f"{info.id} option {name}={value!r} is not valid; choose one of: {shown}")
        resolved[name] = value
    return resolved
