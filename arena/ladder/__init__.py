"""The ladder: an always-on arena per game that seats every active bot and places new versions by itself.

`matchmaking` (the rule that picks the next table: pure functions), `field` (who plays: the stored
bots, their owners, suspensions), `driver` (plans tables as slots free, plays them on an executor,
writes results, suspends crashing versions, obeys pause/stop from the database).
"""
