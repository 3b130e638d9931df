"""The arena's exceptions share one root, `ArenaError`; the errors that reach the user as one line
(what was wrong and what is valid) are `UsageError`s."""


class ArenaError(Exception):
    """The root of every exception that arena/ and dashboards/ define: `except ArenaError` tells the
    arena's own errors from a library's or a bug's (tests/test_outcomes.py checks the walk)."""


class UsageError(ArenaError):
    """Bad input from the command line or a configuration file (exit status 2)."""


class StoreError(UsageError):
    """The database refused to do what was asked (its disk is full, it is read-only): one line,
    like bad input, that says which database and what is wrong."""
