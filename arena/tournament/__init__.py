"""Tournaments: round robins and gauntlets, stored, resumable and rated.

- `schedule`: the config, and which entrants sit at which table, in which seat, with which seeds
- `entrants`: entrants by name, and the bot versions they stand for
- `driver`: plan a tournament once (pin, check, schedule), store it, play what is missing, rate
- `live`: the driver's thread that writes running matches' steps for the live pages
"""
