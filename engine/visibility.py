"""What each viewer of a replay may read: chance outcomes and actions, by who may see them.

The engine says, per chance outcome (`State.chance_visibility`) and per action
(`State.action_visibility`), which seats may see it; these helpers apply that to the steps of a
stored match, so that replays, logs and pages show each viewer (a seat, or None: a spectator
who is no seat) only what that viewer may know, and everyone else the label without the card
("dealt a card to seat 0").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.core import AnyState, Game, Step, mypyc_attr


@mypyc_attr(native_class=False)  # compiled, a plain class: pickle and copy set its frozen fields
@dataclass(frozen=True)
class ChanceView:
    """One chance step of a replay as its viewers may read it."""

    label: str  # what the outcome is: `chance_label`
    hidden_label: str  # the step without its outcome: `hidden_chance_label`
    seen_by: frozenset[int] | None  # None = every seat; a voided outcome: nobody

    def label_for(self, viewer: int | None) -> str:
        """The label `viewer` (a seat, or None: a spectator who is no seat) may read."""
        return self.label if self.visible_to(viewer) else self.hidden_label

    def visible_to(self, viewer: int | None) -> bool:
        """Whether `viewer` (a seat, or None for a spectator) may see the outcome."""
        return may_see(self.seen_by, viewer)


def may_see(seen_by: frozenset[int] | None, viewer: int | None) -> bool:
    """Whether `viewer` (a seat, or None: a spectator who is no seat) may see what `seen_by`
    seats see (None: every seat, and spectators)."""
    return seen_by is None or viewer in seen_by


def chance_views(states: Sequence[AnyState], steps: Sequence[Step]) -> list[ChanceView | None]:
    """Each step of a replay as its viewers may read it; None for a decision step. `states[n]`
    is the state before `steps[n]`.

    An outcome is seen by the seats `chance_visibility` names, unless a later outcome voided
    it (a roll redone unseen): then by nobody.
    """
    voided = voided_steps(states, steps)
    return [
        None if step.chance is None else ChanceView(
            state.chance_label(step.chance), state.hidden_chance_label(),
            frozenset() if n in voided else state.chance_visibility(step.chance),
        )
        for n, (state, step) in enumerate(zip(states, steps))
    ]


def seen_action_label(state: AnyState, game: Game, seat: int, action: int, viewer: int | None) -> str:
    """`seat`'s `action` at `state` as `viewer` (a seat, or None: a spectator) may read it: its
    `game.action_label`, or `state.hidden_action_label(seat)` when `action_visibility` hides it."""
    if may_see(state.action_visibility(seat, action), viewer):
        return game.action_label(action)
    hidden: str = state.hidden_action_label(seat)
    return hidden


def seen_chance_labels(states: Sequence[AnyState], steps: Sequence[Step], viewer: int | None) -> list[str | None]:
    """Each step's chance label as `viewer` (a seat, or None: a spectator) may read it; None
    for a decision step (see `chance_views`)."""
    return [None if view is None else view.label_for(viewer) for view in chance_views(states, steps)]


def voided_steps(states: Sequence[AnyState], steps: Sequence[Step]) -> set[int]:
    """The indexes of the chance steps that a later outcome threw away unseen."""
    voided: set[int] = set()
    for n, (state, step) in enumerate(zip(states, steps)):
        if step.chance is not None:
            voided.update(range(n + 1 - state.voided_chance_steps(step.chance), n + 1))
    return voided
