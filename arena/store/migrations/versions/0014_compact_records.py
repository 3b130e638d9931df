"""Compact match records: `match.record` becomes a nullable BLOB of the compressed record.

Revision ID: 0014
Revises: 0013

Each record's JSON text is encoded as arena/store/record_codec.py says (columns of steps + zlib,
or the text + zlib when the columns would not give it back byte for byte), in batches of BATCH
matches by id, so the upgrade's memory stays bounded however many matches are stored: a 4-player
Riga record of ~31 kB keeps ~1.5 kB. NULL (new here) is a pruned record (`arena store prune`).

The encoding comes from the codec rather than being written out here: the codec reads every
encoding it ever wrote, so what this revision wrote stays readable. The space the text held is
reused by new rows; the file (SQLite) or the table (PostgreSQL) shrinks only with a VACUUM
(docs/tournaments.md, "The database").
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from arena.store.record_codec import encode_text, record_text

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

BATCH = 2_000  # records read, encoded and written per round trip


def upgrade() -> None:
    op.add_column("match", sa.Column("record_blob", sa.LargeBinary(), nullable=True))
    # a value that is bytes already (SQLite keeps what it is given) was written by this arena's codec
    _convert("record", "record_blob", lambda stored: stored if isinstance(stored, bytes) else encode_text(stored))
    op.execute('ALTER TABLE "match" DROP COLUMN record')
    op.execute('ALTER TABLE "match" RENAME COLUMN record_blob TO record')


def downgrade() -> None:
    # a pruned record becomes the JSON `null` that 0012's readers take for "no record"
    op.add_column("match", sa.Column("record_text", sa.Text(), nullable=False, server_default=""))
    _convert("record", "record_text", lambda stored: "null" if stored is None else record_text(stored))
    op.execute('ALTER TABLE "match" DROP COLUMN record')
    op.execute('ALTER TABLE "match" RENAME COLUMN record_text TO record')


def _convert(source: str, target: str, convert: object) -> None:
    """target = convert(source) for every match, BATCH matches at a time in id order."""
    assert callable(convert)
    bind = op.get_bind()
    read = sa.text(f'SELECT id, {source} FROM "match" WHERE id > :after ORDER BY id LIMIT {BATCH}')
    write = sa.text(f'UPDATE "match" SET {target} = :value WHERE id = :id')
    after = 0
    while rows := bind.execute(read, {"after": after}).all():
        bind.execute(write, [{"id": match_id, "value": convert(stored)} for match_id, stored in rows])
        after = rows[-1][0]
