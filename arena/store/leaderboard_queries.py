"""What a page of a ruleset's leaderboard needs to know of the whole of it, read without reading
every rating: how many there are, the range of their intervals, and the few rated entrants that
are not a first version (only those can make an older version of their bot hidden)."""

from __future__ import annotations

import math

from sqlalchemy import case, func
from sqlmodel import Session, col, select

from arena.store.database import Store
from arena.store.tables import RatingRow


def rating_count(store: Store, ruleset: str) -> int:
    """How many entrants are rated in a ruleset."""
    with Session(store.engine) as session:
        return int(session.exec(select(func.count()).select_from(RatingRow).where(RatingRow.ruleset == ruleset)).one())


def later_versions(store: Store, ruleset: str) -> list[str]:
    """The rated entrants of a ruleset that are not version 1 of a bot (`mybot@2`, `mybot@3#b`,
    and any entrant without a version number): a few among thousands of first versions."""
    query = select(RatingRow.entrant).where(RatingRow.ruleset == ruleset, ~col(RatingRow.entrant).like("%@1"),
                                            ~col(RatingRow.entrant).like("%@1#%"))
    with Session(store.engine) as session:
        return list(session.exec(query))


def elo_range(store: Store, ruleset: str, left_out: list[str]) -> list[float] | None:
    """[lowest, highest] of the finite interval ends and ratings of a ruleset's rated entrants but
    `left_out` (the bars of every page of a leaderboard are drawn on it); None when none is rated."""
    query = select(func.min(RatingRow.elo), func.max(RatingRow.elo),  # one pass over the ruleset's ratings
                   func.min(case((col(RatingRow.low) > -math.inf, RatingRow.low))),
                   func.max(case((col(RatingRow.high) < math.inf, RatingRow.high))))
    with Session(store.engine) as session:
        low_elo, high_elo, low, high = session.exec(
            query.where(RatingRow.ruleset == ruleset, col(RatingRow.entrant).not_in(left_out))).one()
    if low_elo is None:
        return None
    return [low_elo if low is None else min(low_elo, low), high_elo if high is None else max(high_elo, high)]
