"""Errors that reach the user as one line: what was wrong and what is valid."""


class UsageError(Exception):
    """Bad input from the command line or a configuration file (exit status 2)."""


class StoreError(UsageError):
    """The database refused to do what was asked (its disk is full, it is read-only): one line,
    like bad input, that says which database and what is wrong."""
