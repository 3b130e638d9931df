"""Alembic's environment: runs the revisions on the connection arena.store.migrations passes in.

That connection is already inside the transaction that holds the upgrade lock (BEGIN EXCLUSIVE on
SQLite, an advisory lock on PostgreSQL), so Alembic must not begin or commit one of its own.
"""

from alembic import context

context.configure(connection=context.config.attributes["connection"], target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
