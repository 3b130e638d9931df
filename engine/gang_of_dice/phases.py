"""Gang of Dice's phases (what happens at a node) and a seat's status in a round, with the
names observations show for them, and the node kind of each phase."""

from __future__ import annotations

from engine.core import NodeKind

CARD, STAKE, DECIDE, PICK, ROLL, OVER = range(6)
PHASE_NAMES = ("card", "stake", "decide", "pick", "roll", "over")
PHASE_KINDS = (NodeKind.CHANCE, NodeKind.DECISION, NodeKind.DECISION, NodeKind.DECISION,
               NodeKind.CHANCE, NodeKind.TERMINAL)
# per-seat status within a round
WAITING, VALID, BUSTED, OUT = range(4)
STATUS_NAMES = ("waiting", "valid", "busted", "out")
