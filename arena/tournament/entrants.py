"""Entrants by name, and the versions of registered bots they stand for.

An entrant is a built-in bot spec (`random`, `ismcts:sims=200`), a registered bot's name (`mybot`:
its latest version) or a pinned version (`mybot@2`), each with an optional `#label` that enters it
again (`random#2`, `mybot@1#old`). The name after pinning is what plays and what is rated:
`mybot` becomes `mybot@N` (its latest version) when a tournament is created or a match is
played, so every version has its own rating and a tournament keeps playing the version it
started with. A registered bot without versions only dials in with its token: it is rated under
its plain name, and the version string it declares when it connects is recorded with each seat
(a bot's own word is not an identity the arena can pin or trust).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from arena.errors import UsageError
from arena.store import BotVersion, LeaderboardRow, Store
from arena.tournament.schedule import bot_spec
from bots import is_builtin


def split_version(spec: str) -> tuple[str, int | None]:
    """`mybot@2` -> ("mybot", 2); `mybot` -> ("mybot", None); UsageError for `mybot@x`."""
    name, sep, number = spec.partition("@")
    if not sep:
        return spec, None
    if not number.isdigit() or int(number) < 1:
        raise UsageError(f"bad version in {spec!r}: write NAME@N with N a version number (1, 2, ...)")
    return name, int(number)


def bot_name(spec: str) -> str:
    """The registered bot a spec names: `mybot@2` -> `mybot`."""
    return spec.partition("@")[0]


def pinned_version(spec: str, store: Store) -> BotVersion | None:
    """The stored version a registered bot's spec plays (its latest for a plain name), or None
    for a bot without versions; UsageError for a version number it does not have."""
    name, number = split_version(spec)
    version = store.version(name, number)
    if version is None and number is not None:
        have = ", ".join(v.entrant for v in store.versions(name)) or "none (submit one with `arena bot submit`)"
        raise UsageError(f"bot {name!r} has no version {number}; its versions: {have}")
    return version


def pin(entrant: str, store: Store) -> str:
    """The entrant with its version made explicit: `mybot#b` -> `mybot@3#b` (built-in specs,
    bots without versions and unknown names stay as they are: the caller's check says what is
    wrong with them)."""
    spec, mark, label = entrant.partition("#")
    if is_builtin(spec) or store.bot(bot_name(spec)) is None:
        return entrant
    version = pinned_version(spec, store)
    return entrant if version is None else version.entrant + mark + label


def family(entrant: str) -> str:
    """What the versions of one entrant share: `mybot@2#b` -> `mybot#b` (the leaderboard shows
    the latest version of each family)."""
    spec, mark, label = entrant.partition("#")
    return bot_name(spec) + mark + label if not is_builtin(spec) else entrant


def version_number(entrant: str) -> int:
    """`mybot@2#b` -> 2; 0 for an entrant without a version number."""
    spec = bot_spec(entrant)
    if is_builtin(spec) or "@" not in spec:
        return 0
    number = spec.partition("@")[2]
    return int(number) if number.isdigit() else 0


def latest_versions_only(rows: Sequence[LeaderboardRow]) -> list[LeaderboardRow]:
    """A leaderboard with only the latest rated version of each bot (`mybot@2`, not `mybot@1`),
    placed 1, 2, 3, ... again; entrants without versions are all kept."""
    latest: dict[str, int] = {}
    versions = [(family(row.entrant), version_number(row.entrant)) for row in rows]
    for name, number in versions:
        latest[name] = max(latest.get(name, 0), number)
    kept = [row for row, (name, number) in zip(rows, versions, strict=True) if number == latest[name]]
    if len(kept) == len(rows) and all(row.place == place for place, row in enumerate(rows, start=1)):
        return kept  # one version of each (a field of thousands): placed as they are already
    return [replace(row, place=place) for place, row in enumerate(kept, start=1)]
