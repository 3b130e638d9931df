"""The named string values of every game's observations: what arena/observation_schema.py gives an
`enum` in the JSON Schemas.

A place is a path into the observation: keys joined by ".", "[]" for the items of an array
("phase", "status[]", "events[].type", "tiles[].tile"). Its names are the game's own, in its
description (`observation_names` in engine/<game>/game.py, engine/description.py): built from the
engine's tables where it has one (phase names, colours, card ids), so a name the playouts happen
not to reach is in the enum too, and listed from the game's docstring for the few vocabularies the
engine spells only where it writes the observation (Riviera's event types, Gang of Dice's
"rolling"). The schema generation stops when the engine sends a name a list lacks, so a list
cannot fall behind the engine unnoticed. Every option whose choices are strings is named too
("options.<name>", where an observation carries its options).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import registry


def names(game_id: str) -> dict[str, Sequence[str]]:
    """Every named place of `game_id`'s observations with its names."""
    description = registry.describe(game_id)
    options = {f"options.{name}": spec.choices for name, spec in description.info.options.items()
               if spec.choices and all(isinstance(choice, str) for choice in spec.choices)}
    return {**options, **description.observation_names}
