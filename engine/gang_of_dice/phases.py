"""Gang of Dice's phases (what happens at a node) and a seat's status in a round, with the
names observations show for them, and the node kind of each phase."""

from __future__ import annotations

from typing import Final

from engine.core import NodeKind

# Final: the compiled engine inlines each as a constant instead of reading a global.
CARD: Final = 0
STAKE: Final = 1
DECIDE: Final = 2
PICK: Final = 3
ROLL: Final = 4
OVER: Final = 5
PHASE_NAMES = ("card", "stake", "decide", "pick", "roll", "over")
PHASE_KINDS: Final = (NodeKind.CHANCE, NodeKind.DECISION, NodeKind.DECISION, NodeKind.DECISION,
               NodeKind.CHANCE, NodeKind.TERMINAL)
# per-seat status within a round
WAITING: Final = 0
VALID: Final = 1
BUSTED: Final = 2
OUT: Final = 3
STATUS_NAMES = ("waiting", "valid", "busted", "out")
