"""The SQLite database's schema: numbered migrations, each run once, in order, in its own
transaction (:func:`run_migration`; ``PRAGMA user_version`` counts those applied).

A migration is an SQL script, or a Python function that runs its statements on the connection
(for what SQL alone cannot compute, such as a finished game's places from its stored state). A
migration is never changed once released: a later change of the schema is a new migration.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import aiosqlite

from bot.storage.records import load_state, seats_from_json, table_result
from bot.storage.sqlite_ratings import RATINGS_SCHEMA
from bot.storage.sqlite_rows import as_float, as_int, insert_result, opt_int
from cards import catalogue_version

#: A migration: an SQL script, or a function that migrates the connection it is given.
Migration = str | Callable[[aiosqlite.Connection], Awaitable[None]]


async def _results_and_undoable_log(db: aiosqlite.Connection) -> None:
    """Migration 5: the catalogue version of each table (existing tables get today's: they were
    played with today's cards), a per-table sequence of the action log that lets a step appear
    twice (an undone action stays, marked ``undone``), and the results of finished games, one
    ``results`` row and a ``result_seats`` row per seat, back-filled from the stored states.

    The results are written by :func:`~bot.storage.sqlite_rows.insert_result`, as the store
    writes them today: a later migration that changes ``results`` or ``result_seats`` first
    gives this one its own copy of that insert."""
    await run_script(db, """
    ALTER TABLE tables ADD COLUMN catalogue TEXT NOT NULL DEFAULT '';
    CREATE TABLE actions_by_seq (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        seq INTEGER NOT NULL,
        step INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER,
        by_ai INTEGER NOT NULL DEFAULT 0,
        action TEXT NOT NULL,
        at REAL NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, seq)
    );
    INSERT INTO actions_by_seq (table_id, seq, step, seat, user_id, by_ai, action, at)
        SELECT table_id, step, step, seat, user_id, by_ai, action, at FROM actions;
    DROP TABLE actions;
    ALTER TABLE actions_by_seq RENAME TO actions;
    CREATE TABLE results (
        table_id INTEGER PRIMARY KEY REFERENCES tables(id),
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        finished_at REAL NOT NULL,
        rounds INTEGER NOT NULL,
        actions INTEGER NOT NULL,
        catalogue TEXT NOT NULL,
        winner_seat INTEGER NOT NULL,
        winner_user_id INTEGER
    );
    CREATE INDEX results_by_guild ON results(guild_id, table_id);
    CREATE TABLE result_seats (
        table_id INTEGER NOT NULL REFERENCES results(table_id),
        seat INTEGER NOT NULL,
        user_id INTEGER,
        kind TEXT NOT NULL CHECK (kind IN ('person', 'ai')),
        ai_level TEXT,
        hero TEXT NOT NULL,
        keys INTEGER NOT NULL,
        hp INTEGER NOT NULL,
        place INTEGER NOT NULL,
        handed_to_ai INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, seat)
    );
    CREATE INDEX result_seats_by_user ON result_seats(user_id) WHERE user_id IS NOT NULL;
    """)
    version = catalogue_version()
    await db.execute("UPDATE tables SET catalogue = ?", (version,))
    async with db.execute(
            "SELECT id, guild_id, channel_id, seats, state, COALESCE(finished_at, updated_at) "
            "FROM tables WHERE status = 'finished' AND state IS NOT NULL ORDER BY id") as cur:
        finished = await cur.fetchall()
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
        table_id INTEGER PRIMARY KEY REFERENCES tables(id),
        offered_by INTEGER NOT NULL,
        offered_at REAL NOT NULL,
        ready TEXT NOT NULL,
        message_id INTEGER,
        new_table INTEGER,
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
        table_id INTEGER NOT NULL REFERENCES tables(id),
        version INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        answer BLOB NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (table_id, version, user_id)
    );
    """,
    # 11: who does each table's background work (AI turns, turn timer): one lease per table,
    # held by a process (by its name) until it expires
    """
    CREATE TABLE leases (
        table_id INTEGER PRIMARY KEY REFERENCES tables(id),
        owner TEXT NOT NULL,
        expires_at REAL NOT NULL
    );
    CREATE INDEX leases_by_owner ON leases(owner);
    """,
    # 12: each match's animation posted in a channel (who, when, its message), and when each
    # person last shared one in each channel (the channel's slowmode counts from it)
    """
    CREATE TABLE shares (
        table_id INTEGER NOT NULL REFERENCES tables(id),
        channel_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        posted_at REAL NOT NULL,
        message_id INTEGER,
        PRIMARY KEY (table_id, channel_id)
    );
    CREATE TABLE sharers (
        channel_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        shared_at REAL NOT NULL,
        PRIMARY KEY (channel_id, user_id)
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


async def run_script(db: aiosqlite.Connection, script: str) -> None:
    """Run each statement of an SQL script (statements end with ``;``)."""
    for statement in script.split(";"):
        if statement.strip():
            await db.execute(statement)


async def run_migration(db: aiosqlite.Connection, number: int) -> None:
    """Run migration ``number`` (from 1) and record it, inside the caller's transaction."""
    migration = MIGRATIONS[number - 1]
    if isinstance(migration, str):
        await run_script(db, migration)
    else:
        await migration(db)
    await db.execute(f"PRAGMA user_version = {int(number)}")


async def schema_version(db: aiosqlite.Connection) -> int:
    """The number of migrations applied to the database."""
    async with db.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "Migration", "run_migration", "schema_version"]
