"""The `arena` command. Each sub-command lives in its own module, named after it, with a `register(subparsers)`.

Bad input ends with a one-line `arena: error: ...` that says what is valid, and exit status 2;
never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from arena.errors import UsageError


def main(argv: Sequence[str] | None = None) -> int:
    try:  # engine.implementation refuses a bad ARENA_ENGINE or a stale compiled engine at import
        import engine  # noqa: F401
    except (RuntimeError, ValueError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    # Only now the commands, which import the engine: a bad ARENA_ENGINE is the one line above.
    from arena.cli.commands import parser

    args = parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except UsageError as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
