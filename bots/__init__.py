"""Built-in bots by name: `make_bot("random", game, seat, seed)`, `make_bot("ismcts:sims=500", ...)`.

A bot spec is a name, optionally followed by `:` and comma-separated `key=value` parameters.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from bots.base import Bot
from engine.core import Game

BUILTIN_BOTS: dict[str, str] = {
    "random": "bots.random_bot:RandomBot",
    "heuristic": "bots.heuristic:HeuristicBot",
    "ismcts": "bots.ismcts:IsmctsBot",
}


def bot_names() -> list[str]:
    """The names of the built-in bots, sorted."""
    return sorted(BUILTIN_BOTS)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split `"ismcts:sims=500,c=1.4"` into `("ismcts", {"sims": 500, "c": 1.4})`."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"bad bot parameter {item!r} in {spec!r}; write name:key=value,key=value")
        params[key.strip()] = _parse_value(value.strip())
    return name, params


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of bot specs, keeping each spec's own parameters together.

    `"random,ismcts:sims=500,c=1.4,heuristic"` -> `["random", "ismcts:sims=500,c=1.4", "heuristic"]`:
    an item with `=` but no `:` is one more parameter of the spec before it.
    """
    specs: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if specs and "=" in item and ":" not in item and ":" in specs[-1]:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def _parse_value(text: str) -> Any:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def is_builtin(spec: str) -> bool:
    """True when the spec names a built-in bot (parameters are not checked here: `check_spec`)."""
    return spec.strip().partition(":")[0] in BUILTIN_BOTS


def bot_class(name: str) -> type[Bot]:
    """The Bot subclass for a built-in name; ValueError naming the valid ones when unknown."""
    if name not in BUILTIN_BOTS:
        raise ValueError(f"unknown bot {name!r}; built-in bots: {', '.join(bot_names())}")
    module_name, class_name = BUILTIN_BOTS[name].split(":")
    return getattr(importlib.import_module(module_name), class_name)  # type: ignore[no-any-return]


def check_spec(spec: str, game: Game) -> None:
    """ValueError (its first line only) when a built-in spec cannot make a bot for this game."""
    try:
        make_bot(spec, game, 0, 0)
    except (TypeError, ValueError) as error:
        raise ValueError(str(error).splitlines()[0]) from None


def make_bot(spec: str, game: Game, seat: int, seed: int) -> Bot:
    """A built-in bot for one seat, seeded so the same seed plays the same moves."""
    name, params = parse_spec(spec)
    return bot_class(name)(game, seat, random.Random(seed), **params)
