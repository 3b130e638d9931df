"""Who the ladder seats, and its config.

The field: each registered bot's latest version, plus the versions kept active (`arena ladder
keep NAME@N`), but not a disabled or removed bot and not a suspended version; and the ladder's
anchors, built-in bots that stay in for ever and hold the scale in place. A registered bot
without versions only dials in when its author runs it, so the ladder does not seat it (a seat it
does not take would be a forfeit, not a measure of its strength).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from arena.errors import UsageError
from arena.match.clock import per_move
from arena.store import Store
from arena.tournament.schedule import TournamentConfig
from bots import bot_names, check_spec, is_builtin
from engine import registry

DEFAULT_ANCHORS = ("random", "heuristic")  # `arena up`'s: the weakest and a fair player hold the scale
SUSPEND_AFTER = 3  # a version whose last this many ladder matches all ended in its own crash is suspended


@dataclass(frozen=True)
class LadderConfig:
    """What a ladder is; stored as its tournament's config (a restart may change all but game and seats)."""

    game_id: str
    players_per_match: int
    anchors: tuple[str, ...] = ()
    options: dict[str, object] = field(default_factory=dict)
    seed: int = 1
    time_per_move_ms: int | None = None
    gateway: str | None = None  # HOST:PORT of the gateway the registered bots are reached through
    driver: str = ""  # host:pid of the process running it (a second one is refused)

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "anchors": list(self.anchors)}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> LadderConfig:
        return cls(**{**data, "anchors": tuple(data.get("anchors") or ())})  # type: ignore[arg-type]

    def as_tournament(self) -> TournamentConfig:
        """What a match job needs of it (tournament/driver.py's match_job)."""
        return TournamentConfig(self.game_id, self.players_per_match, self.anchors, seed=self.seed,
                                options=dict(self.options), time_per_move_ms=self.time_per_move_ms,
                                gateway=self.gateway)


def check_ladder(config: LadderConfig) -> str:
    """UsageError (one line) for a ladder that cannot run; returns its ruleset."""
    if config.game_id not in registry.GAMES:
        raise UsageError(f"unknown game {config.game_id!r}; valid games: {', '.join(registry.game_ids())}")
    try:
        game = registry.make(config.game_id, config.players_per_match, **config.options)
        per_move(config.time_per_move_ms)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if len(set(config.anchors)) != len(config.anchors):
        raise UsageError(f"an anchor is listed twice in {', '.join(config.anchors)}")
    for anchor in config.anchors:
        if not is_builtin(anchor):
            raise UsageError(f"anchor {anchor!r} is not a built-in bot; built-in bots: {', '.join(bot_names())} "
                             "(registered bots join the ladder by themselves)")
        try:
            check_spec(anchor, game)
        except ValueError as error:
            raise UsageError(f"anchor {anchor!r}: {error}") from None
    return game.ruleset


@dataclass(frozen=True)
class Member:
    """One bot of the field: the entrant it plays as and its owner (never two of one at a table)."""

    entrant: str
    owner: str


def ladder_field(store: Store, config: LadderConfig) -> list[Member]:
    """The bots the ladder may seat now: anchors, then the active versions, by name."""
    members = [Member(anchor, f"anchor:{anchor}") for anchor in config.anchors]
    return members + [Member(v.entrant, v.owner) for v in store.ladder_versions() if v.active]
