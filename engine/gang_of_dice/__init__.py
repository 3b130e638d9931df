"""Gang of Dice (Reiner Knizia, 2022), BGA version by default; rules: shared/rules/gang_of_dice.md.

Game
----
2-4 players, 48 dice each (36 each with four). 12 rounds; each round reveals a warning card, then
every active player in turn order (clockwise from the start player) takes one turn: stake N >= 1 of
their dice, roll them, then up to two optional re-rolls of any subset. Faces are 1-5 and G (the
gangster: scores 0, equals nothing, neither odd nor even). A yellow card busts a player as soon as
any roll (first or re-roll) matches it; a black card is checked once, on the final faces. The best
valid result (score, then more dice staked, then earlier in the turn order) takes every die on the
table: all stakes, busted ones included, plus the pot. If everybody busts, the stakes stay in the
pot for the next round (after round 12 they leave the game). Rounds 10/11/12 add 3/6/9 bonus dice
to the pot. A player left with no dice after a round is eliminated; the game ends after round 12
or as soon as at most one player is left. Most dice wins; equal counts share the rank.

Options
-------
variant               "bga" (default) | "physical": the box game, modelled in dice-equivalents
                      (1 token = 3 dice); it sets deck_mode="two_deck" and hide_pools=True unless
                      those are given explicitly.
deck_mode             "uniform" (default: 12 of the 18 cards in random order) | "two_deck" (rounds
                      1-9 from the 12 bright-backed cards, rounds 10-12 from the 6 dark-backed ones).
hide_pools            False (default) | True: other seats' dice counts are not in the observation
                      (they stay derivable from "history"); all are shown when the game is over.
g_counts_as_distinct  False (default) | True: each G counts as one more different value (W08/W09).
start_rule            "rotate" (default: the next active seat clockwise) | "winner_starts" (the
                      round winner; after an all-bust round, rotate) | "fixed" (seat 0, or the first
                      active seat after it).

Chance nodes
------------
phase "card": outcome = card number 1..18 (W01 = 1 ... W18 = 18), uniform over the cards still
possible this round. phase "roll": one node per die, outcome = face code (0 = G, 1..5 = value),
each 1/6. A roll of N dice is N chance nodes; a re-roll of k dice is k chance nodes.
Labels (state.chance_label): "warning card W05: X X+1 X+2, black (checked on the final dice)",
"a die shows 4", "a die shows G (the gangster)".
Every chance outcome is public (state.chance_visibility is None): cards and dice are open.

Actions (num_actions = 1142)
----------------------------
| id                   | name         | when                                                    |
|----------------------|--------------|---------------------------------------------------------|
| 0                    | STOP         | phase "decide": keep these faces, end the turn          |
| 1                    | REROLL       | phase "decide": start choosing dice to re-roll           |
| 2 + (n-1)            | STAKE n      | phase "stake": stake n dice, 1 <= n <= own dice (2..163)  |
| 164 + 163*f + k      | PICK f k     | phase "pick": re-roll k of the dice showing face f       |
|                      |              | (f = 0 for G, 1..5 the value; 0 <= k <= dice showing f)  |

A re-roll is chosen face by face after REROLL: one PICK for each face shown by at least one die,
in the order 1, 2, 3, 4, 5, G ("pick_face" in the observation names the face asked about). The
re-rolled set may not be empty: at the last face shown, k = 0 is legal only if an earlier PICK
chose k >= 1 (keeping everything is STOP). The chosen dice are then rolled as k chance nodes.
After the first roll and after the first re-roll the player reaches phase "decide"; after the
second re-roll the turn ends by itself. Labels (words that follow the seat's name): "stops",
"re-rolls some dice", "stakes 7 dice", "re-rolls 2 dice showing 5", "keeps every die showing G".

Observation (observation(seat), JSON)
-------------------------------------
Faces are always given as counts by face code: [G, ones, twos, threes, fours, fives].

| field          | meaning                                                                     |
|----------------|-----------------------------------------------------------------------------|
| seat           | the observing seat                                                          |
| phase          | "card" | "stake" | "decide" | "pick" | "roll" | "over"                      |
| round, rounds  | current round 1..12, and 12                                                 |
| options        | the resolved options (see above)                                            |
| card           | this round's card {id, art, colour, predicate, param} or null before reveal |
| cards_revealed | card ids of every round so far, in round order                              |
| scores         | dice each seat owns and has not staked (null for others with hide_pools)    |
| active         | false for eliminated seats                                                  |
| pot            | bonus and carried-over dice on the table, owned by nobody                   |
| start_player   | this round's start seat                                                     |
| turn_order     | this round's order of play (active seats)                                   |
| to_move        | the seat whose turn it is (also while its dice roll), or null               |
| stakes         | dice each seat staked this round (0 before its turn)                        |
| faces          | each seat's faces this round (the roller's live faces), null before rolling |
| rolls          | rolls made this round per seat (1 = first roll, 3 = after two re-rolls)     |
| status         | "waiting" | "rolling" | "valid" | "busted" | "out" (eliminated) per seat    |
| leader         | {seat, score, dice} of the best valid result so far this round, or null     |
| picked         | phase "pick"/"roll": dice chosen for the re-roll so far, by face, else null |
| pick_face      | phase "pick": the face whose re-roll count is asked, else null              |
| dice_to_roll   | phase "roll": dice still to land                                            |
| log            | this round's rolls: {seat, roll, rerolled (counts or null), faces}          |
| history        | one record per finished round: round, card, start_player, turn_order,       |
|                | stakes, faces, rolls, status, winner (seat or null), dice_won,              |
|                | carried_over, discarded, eliminated                                         |

Everything but the hidden pools is public (dice are rolled in the open); nothing is hidden that
exists yet (future cards and dice are chance nodes), so `resample` returns the state itself.

Returns: each seat's final dice count. Ranks: by count, equal counts share the rank.
"""

from engine.gang_of_dice.components import CARD_TABLE, CARDS, triggered
from engine.gang_of_dice.contract import GangOfDiceState
from engine.gang_of_dice.game import DESCRIPTION, GangOfDice

__all__ = ["DESCRIPTION", "CARD_TABLE", "CARDS", "GangOfDice", "GangOfDiceState", "triggered"]
