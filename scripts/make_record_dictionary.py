"""Make a preset dictionary for a game's stored records (arena/record_encoding.py, `DICTIONARIES`).

    .venv/bin/python scripts/make_record_dictionary.py GAME PLAYERS ID

Plays two matches of GAME with the built-in bots (all `random`; `heuristic` and `random` in turn),
fixed seeds, and writes their records in columns (`columns_text`, as the driver stores them: the
bots' logs moved out) one after the other, at most zlib's 32 kB window, to
arena/record_dictionaries/GAME-ID.zdict; prints the line to add to `DICTIONARIES`. A released
dictionary is never changed: records stored with it decode only with it. Run it for a new id only.
"""

from __future__ import annotations

import hashlib
import sys

from arena.match.record import split_logs
from arena.match.runner import run_match
from arena.record_encoding import DICTIONARIES, DICTIONARY_FOLDER, columns_text

WINDOW = 32_768  # zlib uses the last 32 kB of a dictionary
SEATINGS = (["random"] * 6, ["heuristic", "random"] * 3)


def main(game: str, players: int, number: int) -> None:
    if number in DICTIONARIES or not 1 <= number <= 255:
        raise SystemExit(f"dictionary id {number} is taken or out of 1..255; taken: {sorted(DICTIONARIES)}")
    records = [split_logs(run_match(game, bots[:players], seed=1_000 + n).to_json())[0]
               for n, bots in enumerate(SEATINGS)]
    data = b"".join(columns_text(record) for record in records)[-WINDOW:]
    DICTIONARY_FOLDER.mkdir(exist_ok=True)
    name = f"{game}-{number}.zdict"
    (DICTIONARY_FOLDER / name).write_bytes(data)
    print(f'    {number}: ("{game}", "{name}", "{hashlib.sha256(data).hexdigest()}"),')


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
