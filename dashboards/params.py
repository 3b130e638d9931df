"""Query and path parameters, checked: a bad one is a 4xx with one line saying what is valid."""

from __future__ import annotations

from collections.abc import Mapping

from arena.errors import ArenaError
from arena.outcomes import Termination
from arena.store import dashboard_queries as dq
from engine import registry

TERMINATIONS = (Termination.NORMAL, *dq.FAULT_TERMINATIONS, Termination.ABORTED, dq.ANY_FAULT)
MAX_PER_PAGE = 200


class BadRequest(ArenaError):
    """A parameter the dashboard cannot serve: 400 (malformed) or 404 (names nothing stored)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def game(value: str | None) -> str | None:
    """A registered game id, or None when not given."""
    if value in (None, ""):
        return None
    if value not in registry.GAMES:
        raise BadRequest(f"unknown game {value!r}; valid games: {', '.join(registry.game_ids())}")
    return value


def positive_int(params: Mapping[str, str], name: str, default: int | None = None,
                 maximum: int | None = None) -> int | None:
    """`name` as a whole number >= 1 (at most `maximum`), or `default` when it is not given."""
    text = params.get(name)
    if text in (None, ""):
        return default
    assert text is not None
    if not text.isdigit() or int(text) < 1:
        raise BadRequest(f"{name} must be a whole number from 1{f' to {maximum}' if maximum else ''}, not {text!r}")
    if maximum is not None and int(text) > maximum:
        raise BadRequest(f"{name} must be at most {maximum}, not {text}")
    return int(text)


def flag(params: Mapping[str, str], name: str) -> bool:
    """A yes/no parameter: 1/true/yes or 0/false/no (absent: no)."""
    text = (params.get(name) or "").lower()
    if text in ("", "0", "false", "no"):
        return False
    if text in ("1", "true", "yes"):
        return True
    raise BadRequest(f"{name} must be 1 or 0 (true or false), not {params.get(name)!r}")


def page(params: Mapping[str, str], default_per_page: int = 50) -> tuple[int, int]:
    """(page, per_page) from `page` (1-based) and `per_page` (1 to MAX_PER_PAGE)."""
    number = positive_int(params, "page", 1)
    per_page = positive_int(params, "per_page", default_per_page, MAX_PER_PAGE)
    assert number is not None and per_page is not None
    return number, per_page


def check_page_exists(number: int, per_page: int, total: int) -> int:
    """The number of pages; 404 when `number` lies past the last one (page 1 always exists)."""
    pages = max(1, -(-total // per_page))
    if number > pages:
        raise BadRequest(f"page {number} does not exist; there {'is 1 page' if pages == 1 else f'are {pages} pages'}",
                         404)
    return pages


def termination(value: str | None) -> str | None:
    """A seat termination to filter matches by, or `any_fault`; None when not given."""
    if value in (None, ""):
        return None
    if value not in TERMINATIONS:
        raise BadRequest(f"unknown termination {value!r}; valid: {', '.join(TERMINATIONS)}")
    return value


def view(value: str | None, num_players: int) -> str | int:
    """`public` (the default) or a seat number of the match."""
    if value in (None, "", "public"):
        return "public"
    assert value is not None
    if not value.isdigit() or int(value) >= num_players:
        raise BadRequest(f"view must be 'public' or a seat from 0 to {num_players - 1}, not {value!r}")
    return int(value)


def position(value: str | None, positions: int) -> tuple[int, str | None]:
    """A replay position from 0 to `positions` - 1 (default 0), and a note when one past the end
    was clamped to the end (a link into a match is still useful then); anything else is a 400."""
    last = positions - 1
    if value in (None, ""):
        return 0, None
    assert value is not None
    if not value.isdigit():
        raise BadRequest(f"position must be a whole number from 0 to {last}, not {value!r}")
    if int(value) > last:
        return last, f"position {int(value)} is past the end of this match: showing its last position, {last}"
    return int(value), None
