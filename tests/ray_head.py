"""A local Ray head in a process of its own, for the tests that play on Ray (tests/conftest.py).

The test process joins it by address rather than starting Ray itself: a pytest worker has by then
run gateways, gRPC servers and threads in-process, and in CI a head started from such a process
twice failed to come up (its GCS server never wrote its port; its raylet never registered), while
a fresh process starts one cleanly. Prints the head's address on its first line, then keeps it up
until its standard input closes.
"""

from __future__ import annotations

import sys

import ray

from arena.match import executor


def main() -> None:
    executor.connect(num_cpus=int(sys.argv[1]) if len(sys.argv) > 1 else 2)
    print(ray.get_runtime_context().gcs_address, flush=True)
    sys.stdin.read()  # the test session closes it at the end (or dies, which closes it too)
    executor.disconnect()


if __name__ == "__main__":
    main()
