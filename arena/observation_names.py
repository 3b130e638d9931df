"""The named string values of every game's observations: what arena/observation_schema.py gives an
`enum` in the JSON Schemas.

A place is a path into the observation: keys joined by ".", "[]" for the items of an array
("phase", "status[]", "events[].type", "tiles[].tile"). Its names come from the engine's own
tables where it has one (phase names, colours, card ids), so a name the playouts happen not to
reach is in the enum too; the few vocabularies the engine spells only where it writes the
observation (Riviera's event types, Gang of Dice's "rolling") are listed here from the game's
docstring. The schema generation stops when the engine sends a name a list lacks, so a list
cannot fall behind the engine unnoticed. Every option whose choices are strings is named too
("options.<name>", where an observation carries its options).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import registry
from engine.gang_of_dice import components as gang_components
from engine.gang_of_dice import phases as gang_phases
from engine.lost_cities_rivals import components as lcr_components
from engine.lost_cities_rivals import phases as lcr_phases
from engine.riga import components as riga_components
from engine.riga import phases as riga_phases
from engine.riviera import components as riviera_components
from engine.riviera import phases as riviera_phases

RIVIERA_EVENTS = ("play", "bonus", "bonus_pass", "last_chance", "crash", "adjust", "power", "swap", "fallback",
                  "stop", "more")  # engine/riviera/__init__.py, "events"
GANG_STATUS = (*gang_phases.STATUS_NAMES, "rolling")  # observe.py: the seat whose dice are rolling
GANG_CARDS = gang_components.CARDS
RIGA_CARD_CODES = tuple(card.code for card in riga_components.CARDS)
LCR_COLOURS = tuple(lcr_components.COLOURS)

GAME_NAMES: dict[str, dict[str, Sequence[str]]] = {
    "riviera": {
        "phase": riviera_phases.PHASE_NAMES,
        "mode": ("sequential", "simultaneous"),
        "status[]": riviera_phases.STATUS_NAMES,
        "colours[]": riviera_components.COLOURS,
        "removed_colour": riviera_components.COLOURS,
        "modified_dice[]": riviera_components.DIE_NAMES,
        "events[].die": riviera_components.DIE_NAMES,
        "events[].type": RIVIERA_EVENTS,
    },
    "gang_of_dice": {
        "phase": gang_phases.PHASE_NAMES,
        "status[]": GANG_STATUS,
        "history[].status[]": GANG_STATUS,
        "card.id": tuple(card.id for card in GANG_CARDS),
        "card.art": tuple(card.art for card in GANG_CARDS),
        "card.colour": tuple(card.colour for card in GANG_CARDS),
        "card.predicate": tuple(card.predicate for card in GANG_CARDS),
        "cards_revealed[]": tuple(card.id for card in GANG_CARDS),
        "history[].card": tuple(card.id for card in GANG_CARDS),
    },
    "lost_cities_rivals": {
        "phase": lcr_phases.PHASE_NAMES,
        "starting_wagers[][]": LCR_COLOURS,
        "starting_wager_bottom[]": LCR_COLOURS,
        "display[]": lcr_components.LABELS,
        "box[]": lcr_components.LABELS,
    },
    "riga": {
        "phase": riga_phases.PHASE_NAMES,
        "season": riga_phases.SEASON_NAMES,
        "rows[][]": riga_components.GOOD_NAMES,
        "tiles[].tile": riga_components.TILE_NAMES,
        "tiles[].side": riga_components.SIDE_NAMES,
        "tiles_turned_over[]": riga_components.TILE_NAMES,
        "tiles_drawn[]": riga_components.TILE_NAMES,
        "players[].riga_supply[]": RIGA_CARD_CODES,
        "players[].tableau[]": RIGA_CARD_CODES,
        "players[].known_buildings[]": RIGA_CARD_CODES,
        "players[].credits_used[]": RIGA_CARD_CODES,
        "pending_build.card": RIGA_CARD_CODES,
        "pending_build.paid_credits[]": RIGA_CARD_CODES,
        "hand_buildings[]": RIGA_CARD_CODES,
        "start_choice[]": RIGA_CARD_CODES,
        "my_cards_under_deck[]": RIGA_CARD_CODES,
        "display_new[]": RIGA_CARD_CODES,
        "display_old[]": RIGA_CARD_CODES,
        "removed_buildings[]": RIGA_CARD_CODES,
    },
}


def names(game_id: str) -> dict[str, Sequence[str]]:
    """Every named place of `game_id`'s observations with its names."""
    options = {f"options.{name}": spec.choices for name, spec in registry.info(game_id).options.items()
               if spec.choices and all(isinstance(choice, str) for choice in spec.choices)}
    return {**options, **GAME_NAMES.get(game_id, {})}
