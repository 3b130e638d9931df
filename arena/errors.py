"""Errors that reach the user as one line: what was wrong and what is valid."""


class UsageError(Exception):
    """Bad input from the command line or a configuration file (exit status 2)."""
