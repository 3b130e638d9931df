"""Lost Cities: Rivals (Knizia, 2018), 2-4 players: the auction game of ../shared/rules/lost_cities_rivals.md.

Rules in brief
--------------
Each seat starts with two starting wagers of different colours (face up: they open two
expeditions) and 18/12/9 coins (2/3/4 players); the centre holds 0. The 80-card deck (per colour:
3 wagers, two each of 2-5, one each of 6-10) is cut into four piles of 20, played one after the
other. On a turn a seat either UNCOVERS the top card of the current pile into the display, or
opens an AUCTION on a non-empty display with a bid of 1..its coins. Bidding goes clockwise; a
seat raises (to any amount above the high bid, up to its coins) or passes for good, until one
seat is left. The winner pays into the centre, places any display cards it can into its
expeditions (one PLACE per card, then END_TAKE), may BOX one display card (out of the game), and
then reveals the top pile card. The next turn goes to the left of whoever revealed: the uncoverer,
or the auction winner. An expedition takes wagers only before its first number, and numbers in
non-decreasing order (equal values allowed). When a pile runs out the centre is shared equally
(the remainder stays in the centre); when the last card of the fourth pile is revealed the game
ends at once. Score per expedition: (1 + wagers) x footprints (2-5 show 1, 6-10 show 2) + 8 if it
holds at least four number cards; plus 1 per coin held. Ties share the victory (equal ranks).

Seats are 0..P-1; clockwise is increasing seat index; the start player is option `start_player`.

Cards
-----
A card is written colour + rank: colours R G B Y W, ranks 2..10 or "*" for a wager ("R7", "G*").
Its kind id is 10 * colour_index + (0 for a wager, value - 1 for a number): R* = 0, R2 = 1,
R10 = 9, G* = 10, ..., W10 = 49. Copies of a kind are interchangeable.

Action ids (fixed space, num_actions = 140)
-------------------------------------------
| id        | label              | when                                                   |
|-----------|--------------------|--------------------------------------------------------|
| 0         | uncover a card     | phase "turn": reveal the top pile card (illegal only   |
|           |                    |   when option display_limit forces an auction, below)  |
| 1         | pass               | phase "bidding": leave the auction for good            |
| 2..37     | bid b              | b = id - 1 (1..36). Phase "turn": open an auction at b |
|           |                    |   (needs a non-empty display and b <= coins). Phase    |
|           |                    |   "bidding": raise to b (high_bid < b <= coins)        |
| 38..87    | place red 7        | phase "take": put display card of kind id - 38 into    |
|           |                    |   your expedition (only when the placement is legal)   |
| 88        | take no more cards | phase "take": stop placing cards                       |
| 89..138   | box green wager    | phase "box": remove display card of kind id - 89       |
| 139       | box nothing        | phase "box": box nothing (the reveal follows at once)  |

Labels name cards in words (colour red/green/blue/yellow/white, then the number or "wager").

A seat that cannot outbid still gets a decision with the single action "pass"; a seat with 0
coins on its turn gets only "uncover a card"; an empty display after taking gives only "box nothing".

Chance nodes
------------
* Phase "deal": one node per starting-wager card drawn, seat 0 first, two cards per seat;
  outcome = colour index 0..4, probability by the count left in the shuffled stack. A second
  card of the same colour as the first goes under the stack and the seat draws again (once the
  shuffled part is empty the cards under it come up in order, probability 1).
* Phase "reveal": one node per pile card revealed; outcome = card kind 0..49, probability =
  copies unseen / cards unseen. Cutting a uniform shuffle into equal piles makes the current
  pile's next card a uniform draw from all unseen cards, so no pile contents are tracked.
* Labels (state.chance_label): "seat 0 draws the red starting wager", "revealed green 7". Every chance
  outcome is public (state.chance_visibility is None): wagers lie face up, reveals go to the display.

Observation (the same for every seat apart from "seat": nothing is hidden from one seat)
----------------------------------------------------------------------------------------
seat                  int, the observing seat
phase                 "deal" | "turn" | "bidding" | "take" | "box" | "reveal" | "game_over"
num_players           int
display_limit         int option (0 = no limit)
start_player          int option
turn_player           seat whose turn it is (during an auction: the seat that opened it; in
                      "reveal" the seat whose UNCOVER or auction led to the reveal)
to_act                seat that must decide now, or null at chance and terminal nodes
coins                 [int] per seat;  centre: int coins in the middle of the table
scores                [int] per seat: expedition scores + coins as they stand now
cards_revealed        int, 0..80 pile cards revealed so far
pile                  1..4 current pile;  pile_cards_left: int;  piles_to_come: int (20 each)
display               [card] in reveal order;  box: [card] boxed cards, in order
expeditions           per seat {colour: {"wagers": int (starting + deck), "numbers": [int]}}
                      for all five colours (a colour with 0 wagers and no numbers is unstarted)
starting_wagers       per seat [colour] dealt so far
starting_wager_bottom [colour] starting wagers put back under the stack during the deal
unseen                {card: count} main-deck cards not yet revealed (all piles together)
auction               null, or {"starter", "high_bid", "high_bidder", "in": [seats not passed]}
                      (kept through "take", "box" and "reveal" of the auction's turn)
winners               null, or at game over the seats tied for the highest score

Options
-------
start_player (0..3, default 0)   the seat that takes the first turn (must be < num_players)
display_limit (0, 4 or 8, default 0 = none)  rules A2's optional cap: when the display holds at
                                 least this many cards, a seat with coins must open an auction
                                 (uncover is illegal for it); a seat with 0 coins still uncovers.
"""

from engine.lost_cities_rivals.contract import RivalsState
from engine.lost_cities_rivals.game import DESCRIPTION, LostCitiesRivals

__all__ = ["DESCRIPTION", "LostCitiesRivals", "RivalsState"]
