"""The database schema: numbered migrations, each one script run once in order by
:meth:`bot.storage.sqlite.Store.migrate` (``PRAGMA user_version`` counts those applied)."""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: tables, action log, server settings, key/value metadata
    """
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        host_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
        abilities INTEGER NOT NULL DEFAULT 0,
        timer INTEGER NOT NULL DEFAULT 0,
        seed INTEGER NOT NULL,
        locale TEXT NOT NULL DEFAULT 'en',
        seats TEXT NOT NULL,
        state TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        message_id INTEGER,
        lobby_message_id INTEGER,
        deadline REAL,
        winner INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
        WHERE status IN ('lobby', 'running');
    CREATE INDEX tables_status ON tables(status);
    CREATE TABLE actions (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        step INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER,
        by_ai INTEGER NOT NULL DEFAULT 0,
        action TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (table_id, step)
    );
    CREATE TABLE settings (
        guild_id INTEGER PRIMARY KEY,
        abilities INTEGER NOT NULL DEFAULT 0,
        timer INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: a server may force the language of its tables (NULL: the server's language in Discord)
    """
    ALTER TABLE settings ADD COLUMN locale TEXT;
    """,
    # 3: a lobby's revision, bumped by every change, so a click on an older lobby is told apart
    """
    ALTER TABLE tables ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
    """,
    # 4: the level of the AI seats a host adds, and a server's default for new tables
    """
    ALTER TABLE tables ADD COLUMN ai_level TEXT NOT NULL DEFAULT 'normal';
    ALTER TABLE settings ADD COLUMN ai_level TEXT NOT NULL DEFAULT 'normal';
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
