"""The PostgreSQL database's schema: the same numbered migrations as SQLite's
(:mod:`bot.storage.sqlite_schema`), step for step in PostgreSQL's dialect, each run once, in
order, in its own transaction; the one-row table ``schema_version`` counts those applied.

Several bot processes may open the database at once: each migration runs under a transaction
advisory lock and re-reads the version under it, so it runs exactly once. A migration is never
changed once released: a later change of the schema is a new migration here AND in SQLite's list
(a test checks both lists have the same length).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.storage.postgres_ratings import RATINGS_SCHEMA
from bot.storage.postgres_rows import Db, insert_result
from bot.storage.records import SchemaTooNew, load_state, seats_from_json, table_result
from bot.storage.sqlite_rows import as_float, as_int, opt_int
from cards import catalogue_version

#: A migration: an SQL script, or a function that migrates the connection it is given.
Migration = str | Callable[[Db], Awaitable[None]]
#: The advisory lock key held while migrating (any fixed number: "karak" in ASCII).
MIGRATION_LOCK = 0x6B6172616B


async def _results_and_undoable_log(db: Db) -> None:
    """Migration 5 (as SQLite's): each table's catalogue version, an action log numbered by
    ``seq`` that keeps undone actions, and the results of finished games back-filled from their
    stored states."""
    await db.execute("""
    ALTER TABLE tables ADD COLUMN catalogue TEXT NOT NULL DEFAULT '';
    ALTER TABLE actions ADD COLUMN seq BIGINT;
    UPDATE actions SET seq = step;
    ALTER TABLE actions ALTER COLUMN seq SET NOT NULL;
    ALTER TABLE actions ADD COLUMN undone INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE actions DROP CONSTRAINT actions_pkey;
    ALTER TABLE actions ADD PRIMARY KEY (table_id, seq);
    CREATE TABLE results (
        table_id BIGINT PRIMARY KEY REFERENCES tables(id),
        guild_id BIGINT,
        channel_id BIGINT NOT NULL,
        finished_at DOUBLE PRECISION NOT NULL,
        rounds BIGINT NOT NULL,
        actions BIGINT NOT NULL,
        catalogue TEXT NOT NULL,
        winner_seat BIGINT NOT NULL,
        winner_user_id BIGINT
    );
    CREATE INDEX results_by_guild ON results(guild_id, table_id);
    CREATE TABLE result_seats (
        table_id BIGINT NOT NULL REFERENCES results(table_id),
        seat BIGINT NOT NULL,
        user_id BIGINT,
        kind TEXT NOT NULL CHECK (kind IN ('person', 'ai')),
        ai_level TEXT,
        hero TEXT NOT NULL,
        keys BIGINT NOT NULL,
        hp BIGINT NOT NULL,
        place BIGINT NOT NULL,
        handed_to_ai INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, seat)
    );
    CREATE INDEX result_seats_by_user ON result_seats(user_id) WHERE user_id IS NOT NULL;
    """)
    version = catalogue_version()
    await db.execute("UPDATE tables SET catalogue = $1", version)
    finished = await db.fetch(
        "SELECT id, guild_id, channel_id, seats, state, COALESCE(finished_at, updated_at) "
        "FROM tables WHERE status = 'finished' AND state IS NOT NULL ORDER BY id")
    for tid, guild, channel, seats, state, at in finished:
        try:  # a damaged row gets no result (reading the table tells what is wrong)
            result = table_result(
                as_int(tid, "id"), opt_int(guild, "guild_id"), as_int(channel, "channel_id"),
                version, seats_from_json(str(seats)), load_state(str(state), finished=True),
                as_float(at, "finished_at"))
        except (ValueError, TypeError):  # BadState is a ValueError
            continue
        await insert_result(db, result)


MIGRATIONS: tuple[Migration, ...] = (
    # 1: tables, action log, server settings, key/value metadata
    """
    CREATE TABLE tables (
        id BIGSERIAL PRIMARY KEY,
        guild_id BIGINT,
        channel_id BIGINT NOT NULL,
        host_id BIGINT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
        abilities INTEGER NOT NULL DEFAULT 0,
        timer BIGINT NOT NULL DEFAULT 0,
        seed BIGINT NOT NULL,
        locale TEXT NOT NULL DEFAULT 'en',
        seats TEXT NOT NULL,
        state TEXT,
        version BIGINT NOT NULL DEFAULT 0,
        message_id BIGINT,
        lobby_message_id BIGINT,
        deadline DOUBLE PRECISION,
        winner BIGINT,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION
    );
    CREATE UNIQUE INDEX tables_one_active_per_channel ON tables(channel_id)
        WHERE status IN ('lobby', 'running');
    CREATE INDEX tables_status ON tables(status);
    CREATE TABLE actions (
        table_id BIGINT NOT NULL REFERENCES tables(id),
        step BIGINT NOT NULL,
        seat BIGINT NOT NULL,
        user_id BIGINT,
        by_ai INTEGER NOT NULL DEFAULT 0,
        action TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (table_id, step)
    );
    CREATE TABLE settings (
        guild_id BIGINT PRIMARY KEY,
        abilities INTEGER NOT NULL DEFAULT 0,
        timer BIGINT NOT NULL DEFAULT 0
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
    ALTER TABLE tables ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
    """,
    # 4: the level of the AI seats a host adds, and a server's default for new tables
    """
    ALTER TABLE tables ADD COLUMN ai_level TEXT NOT NULL DEFAULT 'normal';
    ALTER TABLE settings ADD COLUMN ai_level TEXT NOT NULL DEFAULT 'normal';
    """,
    # 5: the catalogue version of each table, an action log that keeps undone actions, results
    _results_and_undoable_log,
    # 6: a guided first match (/goblin learn), whose hand messages explain rules as they come
    """
    ALTER TABLE tables ADD COLUMN lessons INTEGER NOT NULL DEFAULT 0;
    """,
    # 7: whether players may take back a move, per table and as a server's default
    """
    ALTER TABLE tables ADD COLUMN undo INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE settings ADD COLUMN undo INTEGER NOT NULL DEFAULT 1;
    """,
    # 8: a person's matches newest first, and the offers to play a finished table again
    """
    CREATE INDEX result_seats_by_user_table ON result_seats(user_id, table_id)
        WHERE user_id IS NOT NULL;
    CREATE TABLE rematches (
        table_id BIGINT PRIMARY KEY REFERENCES tables(id),
        offered_by BIGINT NOT NULL,
        offered_at DOUBLE PRECISION NOT NULL,
        ready TEXT NOT NULL,
        message_id BIGINT,
        new_table BIGINT,
        closed INTEGER NOT NULL DEFAULT 0
    );
    """,
    # 9: ratings per server, each rated match's changes, records against the AI; left empty:
    # ``python -m bot.admin ratings --recompute`` fills them from the stored results
    RATINGS_SCHEMA,
    # 10: whether people may ask for hints (NULL: decided when the game starts), and each hint
    # given: one per person and decision (the table's version), its answer kept as data
    """
    ALTER TABLE tables ADD COLUMN hints INTEGER;
    CREATE TABLE hints (
        table_id BIGINT NOT NULL REFERENCES tables(id),
        version BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        seat BIGINT NOT NULL,
        answer BYTEA NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (table_id, version, user_id)
    );
    """,
    # 11: who does each table's background work (AI turns, turn timer): one lease per table,
    # held by a process (by its name) until it expires
    """
    CREATE TABLE leases (
        table_id BIGINT PRIMARY KEY REFERENCES tables(id),
        owner TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX leases_by_owner ON leases(owner);
    """,
    # 12: each match's animation posted in a channel (who, when, its message), and when each
    # person last shared one in each channel (the channel's slowmode counts from it)
    """
    CREATE TABLE shares (
        table_id BIGINT NOT NULL REFERENCES tables(id),
        channel_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        posted_at DOUBLE PRECISION NOT NULL,
        message_id BIGINT,
        PRIMARY KEY (table_id, channel_id)
    );
    CREATE TABLE sharers (
        channel_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        shared_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (channel_id, user_id)
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


async def schema_version(db: Db) -> int:
    """The number of migrations applied to the database (0: a new database)."""
    await db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    value = await db.fetchval("SELECT MAX(version) FROM schema_version")
    return 0 if value is None else int(value)


async def run_migration(db: Db, number: int) -> None:
    """Run migration ``number`` (from 1) and record it, inside the caller's transaction."""
    migration = MIGRATIONS[number - 1]
    if isinstance(migration, str):
        await db.execute(migration)
    else:
        await migration(db)
    await db.execute("DELETE FROM schema_version")
    await db.execute("INSERT INTO schema_version (version) VALUES ($1)", number)


async def migrate(db: Db, upto: int = SCHEMA_VERSION) -> None:
    """Run every migration up to ``upto`` that the database lacks, each in a transaction under
    the migration lock (another process migrating at once waits, then finds it done); raises
    :class:`SchemaTooNew` for a database of a newer bot."""
    for number in range(1, upto + 1):
        async with db.transaction():
            await db.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            current = await schema_version(db)
            if current > SCHEMA_VERSION:
                raise SchemaTooNew(current, SCHEMA_VERSION)
            if current < number:
                await run_migration(db, number)


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate", "run_migration", "schema_version"]
