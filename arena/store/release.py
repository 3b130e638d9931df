"""When a stored match's replay may be shown: once every seat rotation of its table is played.

The rotations of one table share a chance seed (duplicate play: the same deal, the same dice, in
every rotation), so the replay of a rotation already played names the cards and dice of those still
to come; a watcher could pass them to a bot that plays one. A replay is therefore released when
no rotation of its table is left to play, whether or not the rest of its tournament has finished:
a ladder (which never finishes) or a long tournament shows its early tables' replays while it goes
on. A finished tournament or SPRT test releases every replay (nothing of it will be played).

What "a rotation still to play" is depends on who plans the table:
- a tournament (round robin, gauntlet): its table has `num_players` rotations, at consecutive
  match indexes from `match_index - rotation` (arena/tournament/schedule.py); those not stored yet
  are still to play;
- an SPRT test: a pair's two games (indexes 2·pair and 2·pair + 1, arena/sprt/pairs.py);
- a ladder: the rotations it planned (ladder_match) of that table without a stored result; a
  planned match it dropped (a bot left before it) is never played, so it holds nothing back.

Each check reads at most one table's rows through the (tournament, match index) keys, so it costs
the same at ten million stored matches as at ten.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import exists, func
from sqlmodel import Session, col, select

from arena.outcomes import TournamentStatus
from arena.store.database import Store
from arena.store.ladder import LADDER_KIND
from arena.store.sprt_tests import SPRT_KIND
from arena.store.tables import LadderMatchRow, MatchRow, TournamentRow, select_columns

PAIR_GAMES = 2  # an SPRT pair: A and B in two games, seats swapped


@dataclass(frozen=True)
class Withheld:
    """Why a stored match's replay is not shown yet: rotations of its table still to play."""

    tournament_id: int
    kind: str  # the tournament's kind: round_robin, gauntlet, sprt, ladder
    table: int
    unplayed: int  # rotations of the table not played yet

    def reason(self) -> str:
        """The one line the match page and the API show."""
        rotations = "rotation" if self.unplayed == 1 else "rotations"
        where = "the ladder" if self.kind == LADDER_KIND else f"tournament {self.tournament_id}"
        return (f"the replay is shown once every rotation of its table has been played: {self.unplayed} {rotations} "
                f"of table {self.table} of {where} still to play share this match's cards and dice (duplicate play)")


def replay_withheld(store: Store, match_id: int) -> Withheld | None:
    """Why match `match_id`'s replay may not be shown yet, or None when it may (or no such match)."""
    query = (select_columns(MatchRow.tournament_id, MatchRow.match_index, MatchRow.table_no, MatchRow.rotation,
                            MatchRow.num_players, TournamentRow.kind, TournamentRow.status)
             .join(TournamentRow, col(TournamentRow.id) == col(MatchRow.tournament_id))
             .where(MatchRow.id == match_id))
    with Session(store.engine) as session:
        found = session.exec(query).first()
        if found is None:
            return None
        tournament_id, index, table, rotation, players, kind, status = found
        if status == TournamentStatus.FINISHED:
            return None
        first = index - rotation  # a table's rotations have consecutive indexes
        if kind == LADDER_KIND:
            unplayed = _ladder_unplayed(session, tournament_id, table, first, players)
        else:
            rotations = PAIR_GAMES if kind == SPRT_KIND else players
            unplayed = rotations - _stored(session, tournament_id, table, first, rotations)
    return Withheld(tournament_id, kind, table, unplayed) if unplayed > 0 else None


def _stored(session: Session, tournament_id: int, table: int, first: int, rotations: int) -> int:
    """How many of the table's rotations are stored (played, or aborted: either way over)."""
    query = select(func.count()).where(MatchRow.tournament_id == tournament_id, MatchRow.table_no == table,
                                       col(MatchRow.match_index).between(first, first + rotations - 1))
    return int(session.exec(query).one())


def _ladder_unplayed(session: Session, tournament_id: int, table: int, first: int, rotations: int) -> int:
    """The rotations the ladder planned at this table that have no stored result yet."""
    played = exists().where(col(MatchRow.tournament_id) == tournament_id,
                            col(MatchRow.match_index) == col(LadderMatchRow.match_index))
    query = select(func.count()).where(LadderMatchRow.tournament_id == tournament_id, LadderMatchRow.table_no == table,
                                       col(LadderMatchRow.match_index).between(first, first + rotations - 1), ~played)
    return int(session.exec(query).one())
