"""Failed author keys, counted per address and per the author name a key claims.

Counted per address alone, ten wrong keys from one stranger locked out every author behind that
address (a shared office, a NAT, the dashboard's own sign-in). A key names its author
(`arena_author_NAME:...`, `key_author` in arena/store/authors.py), so a failure is counted against
the pair (address, claimed name): a stranger who guesses locks only themselves out of that name at
that address. Brute force on one author stays bounded from every address together: the name's
failures over all addresses are capped too, at `NAME_FACTOR` times the per-pair limit. A key that
claims no name (one issued before keys carried names, or garbage) is counted under the address with
no name, as every key was before. Both the gateway's authors' service and the dashboard's sign-in
use this, with AuthorConfig's limits.
"""

from __future__ import annotations

from collections.abc import Callable

from arena.gateway.authoring import AuthFailures

NAME_FACTOR = 10  # one author's failed keys from all addresses together, per window, as pairs' limits


class KeyFailures:
    """After `limit` failed keys within `window_s` from one address claiming one name (or
    `NAME_FACTOR` × `limit` claiming one name from anywhere), keys claiming that name from that
    address (or from anywhere) are refused, unread, until the window lets them in again."""

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float]) -> None:
        self.limit, self.window_s = limit, window_s
        self._pairs = AuthFailures(limit, window_s, clock)
        self._names = AuthFailures(NAME_FACTOR * limit, window_s, clock)

    def refused_for(self, address: str, name: str | None) -> float:
        """Seconds until a key claiming `name` may be tried from `address` (0.0: now)."""
        pair = self._pairs.refused_for(_pair(address, name))
        return max(pair, self._names.refused_for(name)) if name else pair

    def failed(self, address: str, name: str | None) -> None:
        """Count a failed key from `address` that claimed `name`."""
        self._pairs.failed(_pair(address, name))
        if name:
            self._names.failed(name)

    def why(self, address: str, name: str | None) -> str:
        """Which limit refuses a key claiming `name` from `address`, in words (no key in it)."""
        who = f"author {name!r}" if name else "keys that name no author"
        if name and self._names.refused_for(name) > 0 >= self._pairs.refused_for(_pair(address, name)):
            return (f"{NAME_FACTOR * self.limit} failed keys for {who} from all addresses within "
                    f"{self.window_s:g} s")
        return f"{self.limit} failed keys for {who} from your address within {self.window_s:g} s"


def _pair(address: str, name: str | None) -> str:
    return f"{address} {name or ''}"  # an address has no space in it: the pair is unambiguous
