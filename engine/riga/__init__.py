"""Riga (Stefan Risthaus, OSTIA 2017) with the Grand Master tiles, for 2 to 4 players.

The rules are ../shared/rules/riga.md; this docstring is the protocol documentation for bot
authors. The package has the layout of every game (docs/architecture.md, "The engine"): the Game in game.py;
card data (goods values, the 48 city buildings, the 4 Riga buildings, the tiles) in
components.py; action ids and labels in actions.py; the arithmetic (values, costs, payments,
Grand Master check, scoring) in scoring.py; the state in state.py, its transitions in flow.py
and its phases in phases.py; observations, chance labels and visibility in observe.py;
hidden-information redraws (State.resample and Game.sample_state) in hidden.py.

Options
-------
use_riga_buildings (bool, default True)  each player has the 4 brown Riga buildings to build.
use_grand_master   (bool, default True)  4 Grand Master tiles are drawn (the Riga tile is
                                         removed from the pool without Riga buildings).

Seats 0..n-1 sit clockwise. Goods: cloth, glass, wine, grain (base 5, 4, 3, 2). Card codes:
"V01".."V12" Visby, "T01".."T12" Tallinn, "S01".."S12" Stockholm, "D01".."D12" Danzig (slot =
position in the city template of rules §1.3), "R1".."R4" the Riga buildings (each player's own).
Card ids: city * 12 + slot - 1 for city cards (Visby 0, Tallinn 1, Stockholm 2, Danzig 3),
48..51 for R1..R4.

Actions (170 ids)
-----------------
| ids      | action                    | meaning                                               |
|----------|---------------------------|-------------------------------------------------------|
| 0..1     | KEEP_START_BUILDING(i)    | set-up: keep the i-th of the two drawn buildings      |
| 2..7     | TAKE_ROW(r)               | take goods row slot r (0..n+1)                        |
| 8..55    | TAKE_BUILDING(card id)    | take a city building from the display                 |
| 56       | TAKE_NOTHING              | only when no row and no display card is left          |
| 57..108  | START_BUILD(card id)      | begin building a hand card or own Riga building       |
| 109..112 | PAY(good)                 | pay one cloth / glass / wine / grain card             |
| 113..116 | PAY_CREDIT(i)             | use the unused Strongbox credit V05 / T05 / S05 / D05 |
| 117      | END_TURN                  | stop building                                         |
| 118..121 | DISCARD(good)             | winter: discard one goods card of that type           |
| 122..169 | DISCARD_BUILDING(card id) | winter: discard one building card from hand           |

A build is START_BUILD then one PAY per card: a PAY is legal only while the items paid so far
fit in some legal (sufficient, minimal, no refused goods) payment, and the build completes by
itself (tableau, Grand Master check) once the paid items reach the cost. At most 3 builds per
turn. Winter discards are one card at a time until the hand is at its limit.

Chance nodes (outcome ids): start player (seat); Grand Master set-up: 4 "turn over" draws then
4 "take" draws (tile ids 0..7: Riga, Visby, Stockholm, Tallinn, Danzig, Money, Knight,
Merchant; a taken tile shows "1." exactly when it was turned over); every goods card drawn
(good 0..3, weighted by the deck's contents); every building card drawn from the shuffled part
of the deck (card id). Set-up order: start player, tiles, then each player's starting goods,
two building draws and the keep decision, then year 1 spring.
Labels (state.chance_label): "start player: seat 1", "Grand Master tile turned over: Money",
"Grand Master tile to the supply: Knight", "goods card for a row: wine", "building card: Visby
Strongbox (V05)"; actions read "take goods row 2" (rows numbered from 1), "build Danzig Town Gate
(D08)", "pay with wine" (engine/riga/actions.py).
Who sees them (state.chance_visibility): the start building cards and extra goods cards only the
drawing seat (to the others: "start building card for seat 0", "extra goods card for seat 1");
every other draw is public. Of the actions only "keep the first/second start building" is private to its seat
("seat 0 keeps a start building card" to the others).

Observation (JSON object)
-------------------------
seat, phase (the node: "start_player", "tile_flip", "tile_draw", "setup_goods",
"setup_buildings", "spring_rows", "spring_display", "extra_draw" are chance nodes;
"keep_start_building", "take", "build", "discard" are decisions; "game_over"),
season ("setup", "spring", "summer", "autumn", "winter", "game_over"), year, years,
start_player, turn_queue (seats still to act this season, head = active), active,
builds_this_turn, scores (per seat: building VP - 2 per building in hand + Grand Master tile VP;
at game over the final totals including the Money tile), options,
rows (list per row slot of good names; [] = no row there), display_new, display_old,
removed_buildings (card codes), goods_deck_size, building_deck_size,
building_deck_bottom_owners (who put each card under the building deck, in order),
goods_discard ({good: count}), tiles ([{tile, side: "max"|"first"|"p23"|"p4", holder: seat or -1}]),
players (per seat: tableau, credits_used, riga_supply, city_counts, knights, merchants,
building_vp, hand_limit, goods_in_hand, buildings_in_hand, known_goods (goods publicly known to
be in that hand: taken rows and starting goods, less what was paid or discarded),
known_buildings (hand buildings taken from the display); at game over every hand and money),
hand_goods and hand_buildings (this seat's own hand), my_cards_under_deck, start_choice
(the two buildings this seat is choosing from at set-up), start_choice_size, draws_pending
(goods or buildings still to be drawn at this chance step), tiles_turned_over and tiles_drawn
(the Grand Master set-up draws), pending_build (card, cost,
paid_goods, paid_credits while a build is being paid), discards_left (winter), recent_events
(the last 24 public events: takes, builds with their payments, claims, discards, reshuffles,
hidden extra draws as counts only), final (totals, money, ranks; game over only).

Hidden from the other seats: goods from EXTRA_DRAW, the kept start building (until built or
discarded), the card put under the building deck, the start choice, the decks' contents. At game
over every hand is shown (the Money tile and the tie-break count it), so observations then reveal
all hands and money.

Returns are the final VP totals; ranks break ties by money, then buildings built (rules §4.4).
"""

from engine.riga.contract import RigaState
from engine.riga.game import DESCRIPTION, Riga

__all__ = ["DESCRIPTION", "Riga", "RigaState"]
