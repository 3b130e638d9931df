"""Riviera (Valentin Demion, Helvetiq; BGA adaptation) for 2 to 6 players.

The rules are ../shared/rules/riviera.md (the "rules file", beside the repository); section numbers below refer to it.
This docstring is the protocol documentation for bot authors.

The game in one paragraph
-------------------------
Each round every player gets 10 cards (colours R G P B O, values 1-12; one colour leaves the
game with 2-4 players). Each turn the coloured dice (plus the golden die when a card 11 switched
it on) are rolled, and every player still IN must play one card from hand whose value equals a
die of its colour, or the sum of that die and one other available die (the golden die only as a
partner). A player with no such card uses their once-per-game Last Chance or crashes (scores 0 this
round). Then everyone still IN says Stop (bank the column's stars at round end) or More. Cards 1
(play another card), 2 (reserve your colour's die next turn), 9 (nudge a die next turn),
10 (swap 2 cards with an opponent) and 11 (golden die next turn) have powers. Emptying your hand
wins at once (Grand Slam); otherwise the game ends at a round end where the top score is >= 40.

Cards and dice
--------------
card id = colour * 12 + value - 1, colours R=0 G=1 P=2 B=3 O=4 (R1 = 0, R12 = 11, G1 = 12, O12 = 59).
Stars per value 1..12: 2 2 2 1 1 1 1 2 2 2 3 5. Die index: the colour 0..4, golden die = 5 ("Au").

Action ids (fixed space, num_actions = 204)
-------------------------------------------
| id        | label                 | when                                                           |
|-----------|-----------------------|----------------------------------------------------------------|
| 0..59     | plays <card>          | choose: play that legal card; bonus_choose: play it as a bonus |
| 60        | uses Last Chance      | choose: no legal card and Last Chance unused                   |
| 61        | crashes               | choose: no legal card                                          |
| 62        | passes                | bonus_choose: no bonus; adjust_dice: no change; powers: decline |
| 63        | stops                 | stop_or_more                                                   |
| 64        | goes on (more)        | stop_or_more                                                   |
| 65 + 2d   | turns <die> up one    | adjust_dice (card 9): turn die d (0..5) up, 6 -> 1             |
| 66 + 2d   | turns <die> down one  | adjust_dice (card 9): turn die d down, 1 -> 6                  |
| 77        | switches the power on | powers: switch on your card 2 (reserve) or card 11 (gold)      |
| 78 + t    | swaps with seat t     | powers, card 10: start a swap with opponent t (who is IN)      |
| 84 + c    | gives <card>          | swap_give: one of the k cards you give (k = min(2, hands))     |
| 144 + c   | discards <card>       | powers / fallback_discard, card 10 with no opponent IN: a card |
|           |                       | to throw away (k = min(2, hand, draw pile)); the first one     |
|           |                       | chosen at powers is the decision to use the power              |

A card 10 swap is: `swap with seat t`, then `give` k cards one per decision, then k chance
nodes draw the cards taken from t (uniformly, from t's hand before the swap). The fallback is:
`discard` k cards one per decision, then k chance nodes draw from the draw pile.

Nodes
-----
Chance nodes (outcomes are ints, uniform): the removed colour (0..4, only with 2-4 players and
removedColour=random), the first Holder (a seat, startPlayer=-1), each dealt card (a card id; seat
0 gets the first 10 cards, seat 1 the next 10, ...; a deal breaking the colour-spread rule is
redone), each die of a roll (1..6; coloured dice in colour order, then gold; a busting first
roll is redone while rerollBustingFirstRolls allows), each card taken in a swap and each card
drawn in the fallback (card ids). Labels (state.chance_label): "colour removed: purple", "first
holder: seat 2", "dealt red 7 to seat 1", "red die: 5", "golden die: 3", "seat 0 takes green 5
from seat 2", "seat 0 draws blue 3". Action labels (game.action_label) are words that follow the
seat's name: "plays red 7", "turns the golden die down one", "switches the power on" (ACTIVATE).
Who sees them (state.chance_visibility, §2.3): a dealt card only its seat, a card taken in a swap
only the two seats in it, a fallback draw only the drawer (the others read "dealt a card to seat
1", "seat 0 takes a card from seat 2", "seat 0 draws a card"); the rest is public, except a
busting first roll or a deal that is redone: nobody sees those (state.voided_chance_steps), so
they read "red die rolled", "dealt a card to seat 0".
Actions (state.action_visibility): `give <card>` and `discard <card>` only their seat sees (the
others: "seat 0 gives a card to seat 2", "seat 0 discards a card"); every other action is public.

Decision nodes: adjust_dice (one 9 owner, clockwise from the Holder), choose (simultaneous: all
IN seats at once; sequential: one seat at a time clockwise from the Holder), bonus_choose (all
eligible seats at once), powers / swap_give / fallback_discard (one owner at a time, clockwise from
the Holder; in sequential mode right after the owner's own play), stop_or_more (simultaneous:
all IN seats; sequential: one at a time).

Observation fields (observation(seat))
--------------------------------------
seat, num_players, mode ("simultaneous"/"sequential"), winning_score,
phase: "setup" | "deal" | "roll" | "adjust_dice" | "choose" | "bonus_choose" | "powers" |
    "swap_give" | "swap_pick" | "fallback_discard" | "fallback_draw" | "stop_or_more" | "game_over",
colours: colour letters in use; removed_colour: letter or null; round, turn (1-based);
holder: the seat with the Start token; scores (banked stars); status: "IN"/"STOPPED"/"CRASHED"
per seat; last_chance_used per seat;
hand: your cards (card ids, sorted; while the deal is in progress, the cards dealt to you so far);
hand_sizes (during the deal: the cards dealt to each seat so far);
columns: each seat's played cards this round in play order (a crashed column is discarded, so
empty); column_stars; played_this_turn: each seat's cards this turn (main, then bonus);
dice: {colour letter: value, or null while a roll is in progress}; gold_in_roll: bool;
gold: the golden die's value or null; reserved_by: {colour: [seats]} this turn;
modified_dice: die names changed by a 9 this turn; pending: {"gold": [owners of switched-on 11s],
"reservations": {colour: [owners]}, "adjusters": [owners of 9s]} for the next roll;
adjust_queue: the 9 owners still to act this turn; bonus_eligible: seats that may play a bonus;
acting: seats to act now; queue: the seats still to go in a one-at-a-time phase (the first is
the current power owner at powers);
power: null, or {"seat", "card", "target" (null until a swap target is chosen), "count" (k of
the swap), "selected" (the cards you chose so far; only for the owner), "draws_left"};
draw_pile_size (during the deal: the cards still to deal), discard_size;
known_hands: per seat, the cards you know that seat holds (from card 10 swaps you took part in);
known_discards: cards you know are in the discard pile (yours, and crashed columns);
events: this turn's public log, each {"type", "seat", ...}: play/bonus (card), bonus_pass,
last_chance, crash, adjust (die, delta; die null = pass), power (card, value, used), swap
(target, count; plus to_target / to_swapper card lists for the two players in it), fallback
(count), stop, more;
winners: the winning seats once the game is over; grand_slam: whether a Grand Slam ended it.
Simultaneous choices are taken in one step, so no observation ever shows an unrevealed choice.

Returns and ranks: the final stars; a Grand Slam winner gets max(100, best other score + 1)
(BGA's display), so ranks put every winner first, ties shared.

Settled points beyond the rules file (see also its §7)
------------------------------------------------------
- The game has no round limit in the rules; a hard cap of 100 rounds (maxRounds lowers it) keeps
  max_decisions finite; at the cap the highest score wins, as with maxRounds.
- removedColour is ignored with 5-6 players (no colour leaves the game).
- A card 10 with no opponent IN and an empty draw pile does nothing and asks no question.
- A bonus_choose seat with no legal card still gets the decision, with `pass` as its only
  action, so that its legal actions reveal nothing to others (they are private anyway).
- resample() and Riviera.sample_state() keep "card c is in place x" knowledge only: they do not
  condition on "that player had no legal card" (Last Chance, crash, first-roll rerolls) nor on
  the deal's colour-spread rule; see hidden.py.

Package layout (docs/architecture.md, "The engine", the same in every game): game.py (the Game class, options),
state.py (the value object and dispatch), components.py (colours, cards, stars, dice), actions.py
(action ids, labels), phases.py (phases, seat status), flow.py (transitions), queries.py
(legality and other read-only questions), observe.py (observations, chance labels, visibility),
hidden.py (hidden-information redraws: resample and sample_state).
"""

from engine.riviera.game import DESCRIPTION, Riviera

__all__ = ["DESCRIPTION", "Riviera"]
