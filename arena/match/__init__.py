"""Playing one match: the runner's loop (runner.py) and its record (record.py), the seats (seats.py)
and their clocks (clock.py), seeds (seeds.py), the steps a running match sends to live pages
(live.py), and where matches run, on Ray or in this process (executor.py).

Nothing is imported here, so that reading a record or deriving a seed does not load the runner.
"""
