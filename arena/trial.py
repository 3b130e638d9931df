"""An author's try (`arena-bot try NAME PATH`): a few unrated matches of files that are not a version.

The authors' service (arena/gateway/authoring.py) unpacks the files with a submission's checks
into a private folder and hands them here (`AuthorConfig.trial`, which `arena serve` sets to
`play_trial`). They play as a ladder match plays a submitted version: launched on this node in
the same sandbox, with the same limits (arena/node/, `play_on_node`), against the anchors of the
game's ladder (its seats per table, options and time control; the defaults of `arena up` when the
game has no ladder), the bot in each seat in turn. Nothing is stored: no version, no match, no
rating; what comes back is each match's result for the bot's seat, its faults and its log.
"""

from __future__ import annotations

from typing import Any

from arena.gateway.authoring import Trial, TrialMatch
from arena.ladder.field import DEFAULT_ANCHORS, LadderConfig
from arena.ladder.validation import fault_of, opponents
from arena.match.executor import JobOutcome, LocalExecutor, MatchJob, NodeLaunch, play_job
from arena.match.record import Fault, count_strikes
from arena.match.seeds import derive_seed
from arena.node.host import NodeHost
from arena.node.task import NodeSeats, prepare
from arena.outcomes import Termination
from arena.store import Store
from arena.tournament.driver import match_job
from arena.tournament.schedule import PlannedMatch
from engine import registry

TRIAL_VERSION = 0  # a try plays as NAME@0: no stored version has that number (its own node host: no clash)


def trial_ladder(store: Store, game_id: str) -> LadderConfig:
    """The config of the game's ladder with the fewest seats (as `arena up` runs it), or its defaults."""
    ladders = sorted((t for t in store.ladders() if t.game_id == game_id),
                     key=lambda t: int(t.config["players_per_match"]))
    if ladders:
        return LadderConfig.from_json(ladders[0].config)
    return LadderConfig(game_id, registry.info(game_id).min_players, DEFAULT_ANCHORS)


def trial_matches(config: LadderConfig, entrant: str, count: int, seed: int) -> list[PlannedMatch]:
    """`count` matches of `entrant` against the anchors, its seat going round the table."""
    planned = []
    for index in range(count):
        seat = index % config.players_per_match
        others = list(opponents(config))
        seats = tuple(others[:seat] + [entrant] + others[seat:])
        planned.append(PlannedMatch(index, 0, index, seat, seats, derive_seed(seed, "try match", index),
                                    derive_seed(seed, "try chance", index)))
    return planned


def play_trial(store: Store, trial: Trial) -> list[TrialMatch]:
    """Play the try's matches here, one after another; each one's result for the bot's seat."""
    config = trial_ladder(store, trial.game_id)
    entrant = f"{trial.bot}@{TRIAL_VERSION}"
    launch = NodeLaunch(entrant, trial.command, trial.sha256, str(trial.folder))
    planned = trial_matches(config, entrant, trial.matches, trial.seed)
    jobs = [match_job(0, config.as_tournament(), match, None, {entrant: launch}) for match in planned]
    # a node host of its own (node_limits(): a ladder node's limits), stopped with its bot at the end
    host = NodeHost().start()
    try:
        outcomes = list(LocalExecutor(task=lambda job: _play_on(host, job)).run(jobs))
    finally:
        host.stop()
    return [trial_match(match, outcome, match.seats.index(entrant))
            for match, outcome in zip(planned, outcomes, strict=True)]


def _play_on(host: NodeHost, job: MatchJob) -> JobOutcome:
    """play_on_node's work on the try's own host."""
    prepare(job, host)
    with NodeSeats(host, {launch.name for launch in job.launches}, job.gateway) as seats:
        return play_job(job, gateway=seats)


def trial_match(match: PlannedMatch, outcome: JobOutcome, seat: int) -> TrialMatch:
    """What the author sees of one match: only the bot's own seat (its log is its own output)."""
    record = outcome.record or {}
    if outcome.error or record.get("aborted"):
        return TrialMatch(match.seats, seat, error=outcome.error or str(record.get("aborted")))
    mine = record["seats"][seat]
    return TrialMatch(match.seats, seat, mine.get("termination", Termination.NORMAL), mine.get("reason", ""),
                      fault_of(record, seat) or "", count_strikes_of(mine), (record.get("ranks") or [None])[seat],
                      (record.get("returns") or [None])[seat], mine.get("log") or "")


def count_strikes_of(seat: dict[str, Any]) -> int:
    return count_strikes(Fault.from_json(f) for f in seat.get("faults") or [])
